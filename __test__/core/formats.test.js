'use strict'
// Issue 52, items 2 and 4a, and issue 53: the formats of a 64-bit id are one table
// (lib/formats/formats.js), and every surface offers exactly its rows: the id methods of
// generators and clients (nextString(format) for each text row), FlakeId.parse, the command's
// --format, what decompose reads back (the export and the command), the native side's text
// forms, and the types. Each expectation here is derived from the rows: a row added to the table
// alone fails here until each surface has it.

const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const path = require('node:path')
const ts = require('typescript')
const FlakeId = require('../..')
const { FlakeIdClient } = require('../../client.js')
const { FORMATS, TEXT_NAMES, WIDE_NAMES } = require('../../lib/formats/formats.js')
const binding = require('../../lib/binding/load-binding.js')
const { ID_METHODS } = require('../../lib/formats/id-methods.js')
const { listening } = require('../support/loopback.js')
const { spawnCommand } = require('../support/helpers.js')

const ROOT = path.join(__dirname, '..', '..')
const BIN = path.join(ROOT, 'bin', 'flake-idgen.js')
const sorted = (names) => [...new Set(names)].sort()

const METHOD_ROWS = FORMATS.filter((row) => row.method !== undefined)
const FLAG_ROWS = FORMATS.filter((row) => row.flag !== undefined)
const TEXT_ROWS = FORMATS.filter((row) => typeof row.fromBytes(new Uint8Array(8), 0) === 'string')
// The text rows nextString(format) writes: its argument is the row's name.
const takesName = (row) => row.method === 'nextString'

/** The id method of `row` called on `ids`, a generator or a client: nextString with the row's name. */
const call = (ids, row) => (takesName(row) ? ids.nextString(row.name) : ids[row.method]())

/** `id` (a bigint) in `digits` digits of `alphabet`, zero-padded: the rows' forms, written here apart from them. */
function inBase(id, alphabet, digits) {
  const base = BigInt(alphabet.length)
  let text = ''
  for (let rest = id; text.length < digits; rest /= base) text = alphabet[Number(rest % base)] + text
  return text
}
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** The id of a default-layout generator of node id 9, epoch 1000, at 5000 ms: `sequence`'s, in 8 bytes. */
function idBytes(sequence) {
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64BE((4000n << 22n) | (9n << 12n) | BigInt(sequence))
  return bytes
}

function run(args) {
  const { status, stdout, stderr } = spawnCommand(process.execPath, [BIN, ...args], { encoding: 'utf8' })
  return { status, stdout, stderr, lines: stdout.split('\n').filter(Boolean) }
}

test('the rows: a name each, 8 bytes made into each form, text that the form reads back tells itself apart', () => {
  assert.equal(sorted(FORMATS.map((row) => row.name)).length, FORMATS.length)
  const bytes = idBytes(7)
  for (const row of FORMATS) {
    assert.match(row.name, /^[a-z][a-z0-9]*$/)
    // The same id wherever its 8 bytes lie.
    const shifted = Buffer.concat([Buffer.alloc(5), bytes])
    assert.deepEqual(row.fromBytes(shifted, 5), row.fromBytes(bytes, 0), row.name)
    if (row.fromBigInt !== undefined) assert.equal(row.fromBigInt(bytes.readBigUInt64BE()), row.fromBytes(bytes, 0))
    if (row.flag !== undefined) assert.ok(TEXT_ROWS.includes(row), `${row.name}: a flag prints text`)
    if (row.pattern !== undefined) {
      assert.ok(row.decompose && typeof row.described === 'string', row.name)
      assert.match(row.fromBytes(bytes, 0), row.pattern)
      // Another text form is taken for this one only as digits alone, which the command's
      // decompose refuses to guess (see the command's test below).
      for (const other of TEXT_ROWS.filter((other) => other !== row)) {
        const text = other.fromBytes(bytes, 0)
        if (row.pattern.test(text)) assert.match(text, /^[0-9]+$/, `${other.name} read as ${row.name}`)
      }
    }
  }
  // The ends of the range, in each form as the runtime writes it.
  for (const id of [0n, 2n ** 64n - 1n]) {
    const ends = Buffer.alloc(8)
    ends.writeBigUInt64BE(id)
    const forms = Object.fromEntries(FORMATS.map((row) => [row.name, row.fromBytes(ends, 0)]))
    assert.deepEqual(forms, {
      buffer: ends,
      bigint: id,
      decimal: id.toString(),
      base32: inBase(id, CROCKFORD, 13),
      base62: inBase(id, BASE62, 11),
      hex: ends.toString('hex'),
      base64: ends.toString('base64'),
    })
  }
})

test("the native side reads the rows' text forms: the same names, widths and 128-bit forms", () => {
  const zero = new Uint8Array(8)
  const readable = TEXT_ROWS.filter((row) => row.decompose)
  assert.deepEqual(
    binding.textForms().map((form) => form.name),
    readable.map((row) => row.name),
  )
  assert.deepEqual(
    TEXT_NAMES,
    readable.map((row) => row.name).filter((name) => takesName(FORMATS.find((row) => row.name === name))),
  )
  for (const form of binding.textForms()) {
    const row = readable.find((row) => row.name === form.name)
    // A fixed-width form's text is the width the native side reads; decimal's is at most that.
    if (row.name !== 'decimal') assert.equal(row.fromBytes(zero, 0).length, form.width, row.name)
    assert.equal(form.wideWidth !== undefined, row.wide === true, row.name)
  }
  assert.deepEqual(
    WIDE_NAMES,
    binding
      .textForms()
      .filter((form) => form.wideWidth !== undefined)
      .map((form) => form.name),
  )
})

test("a generator's and a client's id methods are the same functions, one per row that names one", () => {
  // id-methods.js names them itself, so that a start loads no table: a row whose method it lacks
  // would be a method no surface has, and one it has beyond the rows a form no row says.
  assert.deepEqual(sorted(Object.keys(ID_METHODS)), sorted(METHOD_ROWS.map((row) => row.method)))
  for (const { method } of METHOD_ROWS) {
    assert.equal(typeof ID_METHODS[method], 'function')
    assert.equal(FlakeId.prototype[method], ID_METHODS[method], `FlakeId#${method}`)
    assert.equal(FlakeIdClient.prototype[method], ID_METHODS[method], `client#${method}`)
    // Not enumerable, as a class's own methods are.
    assert.equal(Object.getOwnPropertyDescriptor(FlakeId.prototype, method).enumerable, false)
  }
})

test("each id method gives its row's form of the next id of one sequence, on a generator", () => {
  const generator = new FlakeId({ id: 9, epoch: 1000, clock: () => 5000 })
  let sequence = 0
  for (let round = 0; round < 2; round++) {
    for (const row of METHOD_ROWS) {
      assert.deepEqual(call(generator, row), row.fromBytes(idBytes(sequence), 0), `${row.name} #${sequence}`)
      sequence++
    }
  }
  // nextString() is the decimal row's.
  assert.equal(generator.nextString(), FORMATS.find((row) => row.name === 'decimal').fromBytes(idBytes(sequence++), 0))
  assert.equal(generator.stats().ids, sequence)
})

test("each id method gives its row's form of the next id of one sequence, on a client", async (t) => {
  const member = new FlakeId({ id: 9, epoch: 1000, clock: () => 5000 })
  const server = await listening(http.createServer(member.batchHandler({ allowNoToken: true })))
  t.after(server.close)
  const ids = FlakeId.client({ members: [server.url], prefetchCount: 20 })
  t.after(() => ids.close())
  // The first id fetches the batch: the rest are at hand, in order.
  assert.deepEqual(await ids.nextAsync(), idBytes(0))
  let sequence = 1
  for (let round = 0; round < 2; round++) {
    for (const row of METHOD_ROWS) {
      assert.deepEqual(call(ids, row), row.fromBytes(idBytes(sequence), 0), `${row.name} #${sequence}`)
      sequence++
    }
  }
  assert.equal(ids.nextString(), FORMATS.find((row) => row.name === 'decimal').fromBytes(idBytes(sequence++), 0))
  assert.equal(ids.stats().ids, sequence)
})

test('--format takes each text row that has a flag, and json; nothing else', () => {
  const flags = [...FLAG_ROWS.map((row) => row.flag), 'json']
  const refused = run(['--format', 'xml'])
  assert.equal(refused.status, 2)
  assert.equal(
    refused.stderr,
    `flake-idgen: --format must be ${flags.slice(0, -1).join(', ')} or ${flags.at(-1)}, got "xml"\n`,
  )
  const zero = Buffer.alloc(8)
  for (const row of FLAG_ROWS) {
    const { status, lines, stderr } = run(['-n', '2', '--format', row.flag, '--id', '5'])
    assert.equal(status, 0, stderr)
    assert.equal(lines.length, 2)
    for (const line of lines) {
      // Read back where the library reads it, as the row's; else of the form's fixed width.
      if (row.pattern !== undefined) {
        assert.match(line, row.pattern)
        assert.equal(FlakeId.decompose(line, { format: row.name }).id, 5, `${row.flag}: ${line}`)
        assert.equal(row.fromBytes(FlakeId.parse(line, row.name), 0), line)
      } else {
        assert.equal(line.length, row.fromBytes(zero, 0).length, `${row.flag}: ${line}`)
      }
    }
  }
  // --help names each, with what the row says of it.
  const help = run(['--help']).stdout
  // As one line: a row's words may wrap.
  const paragraph = help.slice(help.indexOf('--format FORMAT'), help.indexOf('--layout LAYOUT')).replace(/\s+/g, ' ')
  for (const row of FLAG_ROWS) {
    assert.match(paragraph, new RegExp(`\\b${row.flag}\\b`), row.flag)
    if (row.help !== undefined) assert.ok(paragraph.includes(`${row.flag} (${row.help})`), row.flag)
  }
})

test('decompose and FlakeId.parse read back the forms whose row says so, and refuse the others', () => {
  // An id whose every text form tells itself apart (letters in each), and one of digits alone.
  for (const bytes of [Buffer.from('6889d67b5bc05000', 'hex'), idBytes(42)]) {
    const parts = FlakeId.decompose(bytes.readBigUInt64BE(), { epoch: 1000 })
    const readBack = TEXT_ROWS.filter((row) => row.decompose).map((row) => row.described)
    for (const row of FORMATS) {
      const form = row.fromBytes(bytes, 0)
      const isText = TEXT_ROWS.includes(row)
      if (!row.decompose) {
        assert.throws(() => FlakeId.decompose(form), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' }, row.name)
        assert.throws(() => FlakeId.parse(form, row.name), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' })
      } else if (isText) {
        assert.deepEqual(FlakeId.decompose(form, { epoch: 1000, format: row.name }), parts, row.name)
        assert.deepEqual(FlakeId.parse(form, row.name), bytes, row.name)
      } else {
        assert.deepEqual(FlakeId.decompose(form, { epoch: 1000 }), parts, row.name)
      }
      if (!isText) continue
      // The command: the same parts, or a refusal that names each text form it reads. A text
      // that has two rows' forms (digits alone) is refused unless --format says which.
      const forms = TEXT_ROWS.filter((other) => other.pattern?.test(form))
      const { status, stdout, stderr } = run(['decompose', '--epoch', '1000', form])
      const named = run(['decompose', '--epoch', '1000', '--format', row.name, form])
      if (!row.decompose) {
        assert.equal(status, 2)
        for (const described of readBack) assert.ok(stderr.includes(described), `${described}: ${stderr}`)
        assert.equal(named.status, 2)
        continue
      }
      for (const printed of forms.length > 1 ? [named] : [{ status, stdout, stderr }, named]) {
        assert.equal(printed.status, 0, printed.stderr)
        assert.deepEqual(JSON.parse(printed.stdout), { ...parts, date: parts.date.toISOString() }, row.name)
      }
      if (forms.length > 1) {
        assert.equal(status, 2, `${row.name}: ${form}`)
        const flags = forms.map((other) => `--format ${other.name}`).join(' or ')
        assert.equal(
          stderr,
          `flake-idgen: "${form}" is a 64-bit id as ${forms.map((other) => other.name).join(' or as ')}: give ${flags}\n`,
        )
      }
    }
  }
})

test('the types: IdMethods<Id> declares one method per row, of its type; generators and clients have it', () => {
  const files = ['index.d.ts', 'client.d.ts'].map((file) => path.join(ROOT, file))
  const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, types: ['node'] })
  const checker = program.getTypeChecker()
  const found = {}
  const visit = (node) => {
    if (ts.isInterfaceDeclaration(node) || ts.isClassDeclaration(node)) {
      const symbol = checker.getSymbolAtLocation(node.name)
      found[checker.getFullyQualifiedName(symbol)] ??= checker.getDeclaredTypeOfSymbol(symbol)
    }
    ts.forEachChild(node, visit)
  }
  for (const file of files) visit(program.getSourceFile(file))
  /** Each id method of `type`: the return type of its first signature, as written. */
  const returns = (type) =>
    Object.fromEntries(
      METHOD_ROWS.map(({ method }) => {
        const property = type.getProperty(method)
        assert.ok(property, `${checker.typeToString(type)} has no ${method}`)
        const [signature] = checker.getTypeOfSymbol(property).getCallSignatures()
        // Buffer as newer @types/node print it: Buffer<ArrayBufferLike>.
        return [method, checker.typeToString(signature.getReturnType()).replace(/<ArrayBufferLike>$/, '')]
      }),
    )
  const expected = (id) => Object.fromEntries(METHOD_ROWS.map((row) => [row.method, row.type === 'Id' ? id : row.type]))
  const idMethods = found['FlakeId.IdMethods']
  assert.deepEqual(
    sorted(checker.getPropertiesOfType(idMethods).map((property) => property.name)),
    sorted(METHOD_ROWS.map((row) => row.method)),
  )
  assert.deepEqual(returns(idMethods), expected('Id'))
  // nextString takes the text rows' names, and the 128-bit kinds' their wide rows'.
  /** The string literals of index.d.ts's type alias `name`, in order. */
  const union = (name) => {
    const literals = []
    const visitAlias = (node) => {
      if (ts.isTypeAliasDeclaration(node) && node.name.text === name)
        literals.push(...node.type.types.map((member) => member.literal.text))
      ts.forEachChild(node, visitAlias)
    }
    visitAlias(program.getSourceFile(files[0]))
    return literals
  }
  assert.deepEqual(union('TextFormat'), TEXT_NAMES)
  assert.deepEqual(union('WideTextFormat'), WIDE_NAMES)
  const [nextString] = checker.getTypeOfSymbol(idMethods.getProperty('nextString')).getCallSignatures()
  assert.match(checker.typeToString(checker.getTypeOfSymbol(nextString.parameters[0])), /^TextFormat\b/)
  assert.deepEqual(returns(found.FlakeId), expected('Buffer'))
  assert.deepEqual(returns(found['client.FlakeIdClient']), expected('Id'))
  // Declared once, in IdMethods: neither class spells them out again.
  for (const name of ['FlakeId', 'client.FlakeIdClient']) {
    const declaredIn = METHOD_ROWS.map(({ method }) =>
      found[name]
        .getProperty(method)
        .declarations.map((declaration) =>
          checker.getFullyQualifiedName(checker.getSymbolAtLocation(declaration.parent.name)),
        ),
    )
    for (const owners of declaredIn) assert.deepEqual(sorted(owners), ['FlakeId.IdMethods'], name)
  }
})

'use strict'
// A 128-bit kind is spelt at four sites (issue 52): its Rust file, its row of KINDS
// (src/kinds/mod.rs), which the binding lists (`kinds()`), its JS file, lib/kinds/<name>.js,
// which index.js finds from the row, and its command's row (bin/flake-idgen.js); and in two texts
// read without running: its name in index.js's lexer line, and its types in index.d.ts. Each is
// held here to the binding's list, so a kind added to one and not the others fails.

const test = require('node:test')
const assert = require('node:assert/strict')
const { readFileSync, readdirSync } = require('node:fs')
const path = require('node:path')
const binding = require('../../lib/binding/load-binding.js')

const names = binding.kinds().map((row) => row.name)
const wide = binding.kinds().filter((row) => row.bytes === 16)

test("the binding's kinds are KINDS' rows, each described as its name says", () => {
  assert.ok(names.length >= 3, `${names}`)
  assert.equal(new Set(names).size, names.length, `${names}`)
  for (const row of binding.kinds()) assert.deepEqual(binding.describeKind(row.name), row)
})

test("the one TypeScript name of a kind, KindName, holds exactly the binding's kinds", () => {
  assert.deepEqual(Object.values(binding.KindName).sort(), [...names].sort())
  const declared = readFileSync(path.join(__dirname, '../../binding.d.ts'), 'utf8')
  const union = declared.match(/^export type KindName = (.*)$/m)
  assert.ok(union, 'binding.d.ts declares KindName')
  assert.deepEqual(union[1].split(' | ').sort(), names.map((name) => `'${name}'`).sort())
  // No other declaration spells a kind: each takes a KindName.
  const elsewhere = declared.replace(union[0], '')
  for (const name of names) assert.doesNotMatch(elsewhere, new RegExp(`'${name}'`), name)
})

test("the command's rows of 128-bit kinds are the binding's, in its order", () => {
  const bin = readFileSync(path.join(__dirname, '../../bin/flake-idgen.js'), 'utf8')
  assert.deepEqual(
    [...bin.matchAll(/^ {4}kind: '(\w+)',$/gm)].map((match) => match[1]),
    wide.map((row) => row.name),
  )
})

test("each 128-bit kind's text has its form and no other kind's: decompose tells them apart so", () => {
  const { uuidv7, Flake128 } = require('../..')
  const made = {
    uuidv7: [uuidv7()],
    flake128: [Flake128.toBase62(new Flake128({ worker: 1, scope: 'process' }).next()), `0x${'0'.repeat(31)}1`],
  }
  for (const kind of wide) {
    assert.ok(made[kind.name], `a test id for ${kind.name}`)
    for (const other of wide) {
      for (const text of made[other.name]) {
        assert.equal(binding.idHasForm(kind.name, text), kind === other, `${kind.name} on ${other.name}'s ${text}`)
      }
    }
  }
})

// Node's ESM named imports are what its lexer reads in index.js's text (see there).
const entry = readFileSync(path.join(__dirname, '../../index.js'), 'utf8')
const lexerLine = entry.match(/^0 && \(module\.exports = \{ (.*) \}\)$/m)

test("each row's export is the package's, a named ESM import and typed in index.d.ts", () => {
  const pkg = require('../..')
  assert.ok(lexerLine, "index.js spells its named exports for Node's lexer")
  const exports = wide.map((row) => row.export)
  assert.deepEqual(lexerLine[1].split(', '), exports, "the lexer line: the 128-bit kinds' exports, in the rows' order")
  const types = readFileSync(path.join(__dirname, '../../index.d.ts'), 'utf8')
  for (const row of binding.kinds()) {
    assert.equal(typeof pkg[row.export], 'function', row.export)
    // index.js finds a 128-bit kind's file from its row alone.
    if (row.bytes === 16) assert.equal(require(`../../lib/kinds/${row.name}.js`), pkg[row.export], row.name)
    // FlakeId is the module itself (`export = FlakeId`); the others are declared in its namespace.
    assert.match(types, new RegExp(`^\\s*(export|declare) (class|const|function) ${row.export}\\b`, 'm'), row.export)
  }
})

test('index.js spells no 128-bit kind but in its lexer line: its exports are made from the rows', () => {
  assert.ok(lexerLine, "index.js spells its named exports for Node's lexer")
  const rest = entry.replace(lexerLine[0], '')
  for (const row of wide) assert.doesNotMatch(rest, new RegExp(`\\b(${row.name}|${row.export})\\b`), row.name)
})

/** `text` without its comments (`//` to the line's end, `/* … *\/`), near enough for names. */
const uncommented = (text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')

/** The files under `dir` (from the package's root) whose names end in `suffix`. */
function filesUnder(dir, suffix) {
  const root = path.join(__dirname, '../..')
  return readdirSync(path.join(root, dir), { recursive: true })
    .map((file) => path.join(dir, file).replaceAll(path.sep, '/'))
    .filter((file) => file.endsWith(suffix))
}

// Where a 128-bit kind may be spelt, its name or its export (issue 52): its four sites (its Rust
// file, the module its row's `wide` names; its row of each_kind! in src/kinds/mod.rs; its JS
// file, with any it splits off, lib/kinds/<name>-*.js, as uuidv7's options; its command's row in
// bin/flake-idgen.js, with the usage text there), and index.d.ts, whose declarations TypeScript
// reads (the kind's types there are its API's documentation). index.js is the test above's.
const kindsTable = readFileSync(path.join(__dirname, '../../src/kinds/mod.rs'), 'utf8')
/** `row`'s Rust module, as its row of each_kind! names it (`wide: Some(<module>::DOES)`). */
const rustModule = (row) => kindsTable.match(new RegExp(`name: "${row.name}",[^}]*?wide: Some\\((\\w+)::DOES\\)`))?.[1]
const SITES = (row) => [
  `src/kinds/${rustModule(row)}.rs`,
  'src/kinds/mod.rs',
  `lib/kinds/${row.name}.js`,
  'bin/flake-idgen.js',
  'index.d.ts',
]

test('a 128-bit kind is spelt at its sites alone: everything else reads the table', () => {
  const root = path.join(__dirname, '../..')
  const sources = [
    ...filesUnder('src', '.rs').filter((file) => !file.startsWith('src/tests/')),
    ...filesUnder('lib', '.js'),
    ...filesUnder('bin', '.js'),
    'index.d.ts',
    'client.js',
    'client.d.ts',
  ].map((file) => [file, uncommented(readFileSync(path.join(root, file), 'utf8'))])
  for (const row of wide) {
    assert.ok(rustModule(row), `${row.name}'s Rust module`)
    const spelt = new RegExp(`\\b(${row.name}|${row.export})\\b`)
    const found = sources.filter(([, text]) => spelt.test(text)).map(([file]) => file)
    assert.ok(found.includes('src/kinds/mod.rs'), `${row.name}'s row`)
    assert.deepEqual(
      found.filter((file) => !SITES(row).includes(file) && !file.startsWith(`lib/kinds/${row.name}-`)),
      [],
      `${row.name} spelt outside its sites`,
    )
  }
})

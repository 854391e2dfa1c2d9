'use strict'
// Issue 52, item 1: where a generator's node id comes from is one table, lib/id-sources/ (given,
// the orchestrator's, leased, or none of its own: a client of members). The option lists the
// factories refuse others by, and serve's flags, are made from its rows; what is written
// elsewhere (the native option list, the TypeScript option types, the general help) is held to
// them here.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const ts = require('typescript')
const FlakeId = require('../..')
const sources = require('../../lib/id-sources/index.js')
const { BATCH_HANDLER_OPTIONS } = require('../../lib/member/options.js')
const { SERVE_USAGE } = require('../../lib/cli/serve-help.js')
const { runServe, tokenDir } = require('../command/serve-process.js')
const { assertUsageErrors } = require('../support/helpers.js')

const ROOT = path.join(__dirname, '..', '..')
const { SOURCES, GENERATOR_OPTIONS, FLAKE_ID_OPTIONS, LEASE_OPTIONS, CLIENT_OPTIONS, SERVE_SOURCES } = sources
const sorted = (names) => [...names].sort()
// Help text is wrapped to its columns: compared as words.
const words = (text) => text.replace(/\s+/g, ' ')
const rowNamed = (name) => SOURCES.find((row) => row.name === name)

/** The property names of each named interface of the package's declarations, with those it extends. */
function declaredOptions(names) {
  const files = ['index.d.ts', 'client.d.ts'].map((file) => path.join(ROOT, file))
  const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, types: ['node'] })
  const checker = program.getTypeChecker()
  const found = {}
  const visit = (node) => {
    if (ts.isInterfaceDeclaration(node)) {
      const symbol = checker.getSymbolAtLocation(node.name)
      const name = checker.getFullyQualifiedName(symbol)
      if (names.includes(name)) {
        const type = checker.getDeclaredTypeOfSymbol(symbol)
        found[name] = checker.getPropertiesOfType(type).map((property) => property.name)
      }
    }
    ts.forEachChild(node, visit)
  }
  for (const file of files) visit(program.getSourceFile(file))
  return found
}

test('the rows: each names its factory and options; no two sources of a factory read one option twice', () => {
  for (const row of SOURCES) {
    assert.match(row.name, /^[a-z][\w-]*$/)
    assert.match(row.takenBy, /^(new FlakeId|FlakeId\.\w+)\(\)$/)
    assert.ok(row.options.length > 0 && row.options.every((name) => /^[a-z]\w*$/.test(name)), row.name)
    assert.equal(typeof row.generatorOptions, 'boolean')
    for (const { flag, value, help, optional } of row.serve) {
      assert.match(flag, /^[a-z][a-z-]*$/)
      assert.match(value, /^[A-Z]+$/)
      assert.equal(typeof help({ schemes: ['redis://'] }), 'string')
      assert.ok(optional === undefined || optional === true, flag)
    }
    // Its first flag is one it needs: synopses and refusals name it first.
    if (row.serve.length > 0) assert.ok(!row.serve[0].optional, row.name)
  }
  // new FlakeId()'s rows: the given node id or its parts, and the orchestrator's; a serve flag of
  // theirs gives the option it names.
  const ofFlakeId = SOURCES.filter((row) => row.takenBy === 'new FlakeId()')
  assert.deepEqual(
    ofFlakeId.map((row) => row.name),
    ['given', 'orchestrator'],
  )
  assert.deepEqual(
    sorted(FLAKE_ID_OPTIONS),
    sorted(['id', 'datacenter', 'worker', 'process', 'idFrom', 'idOffset', ...GENERATOR_OPTIONS]),
  )
  for (const { flag } of ofFlakeId.flatMap((row) => row.serve))
    assert.ok(FLAKE_ID_OPTIONS.includes(sources.optionOf(flag)))
  assert.deepEqual(sorted(CLIENT_OPTIONS), sorted(SOURCES.find((row) => row.name === 'members').options))
})

test("new FlakeId() takes exactly the rows' options: the native side's list is the table's", async () => {
  const warnings = []
  const listen = (warning) => warnings.push(warning.message)
  process.on('warning', listen)
  new FlakeId({ notAnOptionOfAnyRow: 1, scope: 'process' })
  await new Promise(setImmediate)
  process.off('warning', listen)
  const listed = warnings.join('\n').match(/"notAnOptionOfAnyRow" \(it takes ([^)]*)\)/)
  assert.ok(listed, warnings.join('\n'))
  assert.deepEqual(sorted(listed[1].split(', ')), sorted(FLAKE_ID_OPTIONS))
})

test("FlakeId.lease() refuses every option of new FlakeId()'s sources: the lease sets the node id", async () => {
  const others = SOURCES.filter((row) => row.takenBy === 'new FlakeId()').flatMap((row) => row.options)
  assert.ok(others.includes('idFrom') && others.includes('id'), others.join())
  const store = { defineCommand() {}, call: async () => assert.fail('the store was called'), duplicate() {} }
  for (const name of others) {
    // `process` is a part of the discord layout's node id only.
    const options = { store, namespace: 'x', layout: name === 'process' ? 'discord' : undefined, [name]: 1 }
    await assert.rejects(FlakeId.lease(options), {
      code: 'ERR_FLAKE_INVALID_OPTION',
      message: `option \`${name}\` must be left out: a lease sets it, got 1`,
    })
  }
})

test("the TypeScript option types declare exactly the rows' options", () => {
  const declared = declaredOptions([
    'FlakeId.Options',
    'FlakeId.LeaseOptions',
    'client.ClientOptions',
    'FlakeId.BatchHandlerOptions',
  ])
  assert.deepEqual(sorted(declared['FlakeId.Options']), sorted(FLAKE_ID_OPTIONS))
  assert.deepEqual(sorted(declared['FlakeId.LeaseOptions']), sorted(LEASE_OPTIONS))
  assert.deepEqual(sorted(declared['client.ClientOptions']), sorted(CLIENT_OPTIONS))
  assert.deepEqual(sorted(declared['FlakeId.BatchHandlerOptions']), sorted(BATCH_HANDLER_OPTIONS))
})

test("serve's synopses and flags are the rows': in both helps, and one source at a time", () => {
  const general = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'flake-idgen.js'), '--help'], {
    encoding: 'utf8',
  })
  assert.equal(general.status, 0, general.stderr)
  const synopses = SERVE_SOURCES.map(sources.serveSynopsis)
  const either = `(${synopses.join(' | ')})`
  assert.ok(words(general.stdout).includes(`flake-idgen serve --port P [--host H] ${either}`), general.stdout)
  assert.ok(words(SERVE_USAGE).includes(`flake-idgen serve --port P ${either}`), SERVE_USAGE)
  for (const { flag, value } of SERVE_SOURCES.flatMap((row) => row.serve)) {
    assert.match(SERVE_USAGE, new RegExp(`^  --${flag} ${value} {2,}\\S`, 'm'), flag)
    assert.match(general.stdout, new RegExp(`^  --${flag} `, 'm'), flag)
  }
  // The given source's options are the flags of the command that prints ids, and so are the
  // orchestrator's serve flags.
  for (const name of rowNamed('given').options) {
    assert.match(general.stdout, new RegExp(`^  --${name} N {2,}`, 'm'), name)
  }
  for (const { flag, value } of rowNamed('orchestrator').serve) {
    assert.match(general.stdout, new RegExp(`^  --${flag} ${value} {2,}`, 'm'), flag)
  }
  const { tokenFile, cleanup } = tokenDir()
  try {
    const token = ['--port', '0', '--token-file', tokenFile]
    assertUsageErrors(runServe, [
      [
        ['--id', '1', '--lease', 'redis://127.0.0.1:9', '--namespace', 'x', ...token],
        'serve takes --id or --lease, not both',
      ],
      [['--lease', 'redis://127.0.0.1:9', ...token], 'serve --lease URL needs --namespace N'],
      [['--namespace', 'x', ...token], 'serve --namespace N needs --lease URL'],
      [['--id', '1', '--id-from', 'pm2', ...token], 'serve takes --id or --id-from, not both'],
      [['--id-offset', '4', ...token], 'serve --id-offset N needs --id-from SOURCE'],
      [
        token,
        `serve needs ${synopses.slice(0, -1).join(', ')} or ${synopses.at(-1)}: each member needs a node id of its own`,
      ],
    ])
  } finally {
    cleanup()
  }
})

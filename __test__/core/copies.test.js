'use strict'
// Issue 22: any number of copies of the package's JS in one thread (a test runner's fresh module
// registry, require.cache cleared, vm contexts, the package under two names) load, and issue
// from the same state. Each scenario runs in a process of its own (copies-child.js).

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { copyPackage } = require('../support/package-copy.js')

const child = path.join(__dirname, '..', 'support', 'copies-child.js')
// Heap growth allowed for 1,000 loads: a copy kept per load (its modules) grows it 20 to 50 MB.
const HEAP_LIMIT_MB = 5

function run(args, flags = []) {
  return JSON.parse(execFileSync(process.execPath, [...flags, child, ...args], { encoding: 'utf8', timeout: 240_000 }))
}

/** Every generator's ids carry its id, and each generator id's only increase, across copies. */
function assertOneState(result, copies) {
  assert.equal(result.copies, copies)
  assert.equal(result.distinctClasses, copies, 'each load is a copy of its own')
  assert.ok(result.ids >= copies * 9000, `${result.ids} ids`)
  assert.equal(result.wrongGenerator, 0, 'ids carrying another generator id')
  assert.equal(result.notIncreasing, 0, 'ids not above the last of their generator id')
}

test('copies loaded after require.cache is cleared (the JS, or all) share the state', () => {
  assertOneState(run(['registries']), 5)
})

test('copies in vm contexts of their own, as Jest and vmThreads load them, share the state', () => {
  assertOneState(run(['vm']), 4)
})

test('flake-idgen (the alias) beside flake-idgen-rs, each with a binary, share the state', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-alias-'))
  try {
    copyPackage(dir, 'flake-idgen-rs')
    copyPackage(dir, 'flake-idgen')
    // The command, as a project that has both would run it.
    const both =
      "const a = require('flake-idgen-rs'), b = require('flake-idgen'); console.log(new a().next().length + new b().next().length)"
    assert.equal(execFileSync(process.execPath, ['-e', both], { cwd: dir, encoding: 'utf8' }).trim(), '16')
    assertOneState(run(['alias', dir]), 2)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test(`1,000 loads, require.cache cleared each time, load the binary once and grow the heap by less than ${HEAP_LIMIT_MB} MB after GC`, () => {
  const { loads, bindings, grownMb } = run(['reloads'], ['--expose-gc'])
  assert.equal(loads, 1000)
  assert.equal(bindings, 1, 'binding objects: the binary was loaded again')
  assert.ok(grownMb < HEAP_LIMIT_MB, `the heap grew by ${grownMb.toFixed(1)} MB, not below ${HEAP_LIMIT_MB} MB`)
})

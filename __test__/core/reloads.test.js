'use strict'
// Issue 33, item 5: reloading the package's JS 1,000 times in one thread (Jest's module registry
// per test file, watch mode) keeps nothing per load. Measured from the first load, not after a
// warm-up (copies.test.js measures the steady state), with every part that loads on first use
// used by each copy.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const path = require('node:path')

const child = path.join(__dirname, '..', 'support', 'reloads-child.js')
const major = Number(process.versions.node.split('.')[0])
// V8 grows its young generation to its largest size under the allocation of many loads, and a
// GC does not shrink it back: tens of MB of RSS (more from Node 22 on) that any JS reloaded in a
// loop gets, and that no load keeps. Pinned at 1 MB here, so that what is left is what loads
// keep. Node 20 then grows RSS by ~11 MB over 1,000 loads of this package, as over 1,000 of
// flake-idgen's one file; from Node 22 on, compiling a module again costs the runtime some 20 KB
// of RSS whatever the module (~25-35 MB here, the heap in use flat), hence a looser bound there.
const FLAGS = ['--expose-gc', '--max-semi-space-size=1']
const RSS_LIMIT_MB = major <= 20 ? 20 : 40
// A load that kept its modules' closures or a cache entry would keep several KB of heap.
const HEAP_LIMIT_MB = 2

test(`1,000 loads from the first, each used, grow RSS by < ${RSS_LIMIT_MB} MB and the heap by < ${HEAP_LIMIT_MB} MB after GC`, () => {
  const result = JSON.parse(execFileSync(process.execPath, [...FLAGS, child], { encoding: 'utf8', timeout: 240_000 }))
  assert.equal(result.loads, 1000)
  assert.equal(result.bindings, 1, 'the binary was loaded again')
  assert.ok(result.heapUsedMb < HEAP_LIMIT_MB, `the heap in use grew by ${result.heapUsedMb.toFixed(2)} MB`)
  assert.ok(result.rssMb < RSS_LIMIT_MB, `RSS grew by ${result.rssMb.toFixed(1)} MB`)
})

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
// V8 grows its young generation to its largest size under the allocation of many loads, and a
// GC does not shrink it back: tens of MB of RSS that any JS reloaded in a loop gets, and that no
// load keeps. Pinned at 1 MB here, so that what is left is what loads keep: 8-12 MB over 1,000
// loads of this package on Node 20 to 26, 7-11 MB over 1,000 of flake-idgen's one file.
const FLAGS = ['--expose-gc', '--max-semi-space-size=1']
const RSS_LIMIT_MB = 20
// A load that kept its modules' closures or a cache entry would keep several KB of heap.
const HEAP_LIMIT_MB = 2

test(`1,000 loads from the first, each used, grow RSS by < ${RSS_LIMIT_MB} MB and the heap by < ${HEAP_LIMIT_MB} MB after GC`, () => {
  const result = JSON.parse(execFileSync(process.execPath, [...FLAGS, child], { encoding: 'utf8', timeout: 240_000 }))
  assert.equal(result.loads, 1000)
  assert.equal(result.bindings, 1, 'the binary was loaded again')
  assert.ok(result.heapUsedMb < HEAP_LIMIT_MB, `the heap in use grew by ${result.heapUsedMb.toFixed(2)} MB`)
  assert.ok(result.rssMb < RSS_LIMIT_MB, `RSS grew by ${result.rssMb.toFixed(1)} MB`)
})

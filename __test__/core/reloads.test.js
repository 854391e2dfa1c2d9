'use strict'
// Issue 39, item 9, and issue 51, item 3: reloading the package's JS 1,000 times in one thread,
// as a test runner's fresh module registries do (each time every file of the package but the
// `.node` deleted from require.cache, then required again), under Node's default flags, measured
// from the first load. Node keeps each module a file required among that file's `children` even
// once the cache forgot it: that kept every copy's module graph, +62 MB of heap (issue 39). And
// each reload compiled the package's ten files again (50 KB of JS), and V8 grew its young
// generation by what of them survived: +34 MB of resident memory on Node 20, +57 to 73 MB on
// Node 22 to 26, where flake-idgen's one file, reloaded the same way, keeps 8 to 20 MB (issue 51).

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const path = require('node:path')

const child = path.join(__dirname, '..', 'support', 'reloads-child.js')
// --expose-gc alone: the measurement runs on Node's default heap sizes.
const FLAGS = ['--expose-gc']
const HEAP_LIMIT_MB = 10
const MEMORY_LIMIT_MB = 20

const runs = new Map()
/** What 1,000 loads kept, measured by reloads-child.js in a process of its own (once a mode). */
function reloads(mode) {
  if (!runs.has(mode)) {
    const printed = execFileSync(process.execPath, [...FLAGS, child, mode], { encoding: 'utf8', timeout: 240_000 })
    runs.set(mode, JSON.parse(printed))
  }
  return runs.get(mode)
}

const flakeIdgen = () => require.resolve('flake-idgen')

for (const [mode, what] of [
  ['first', 'each making one generator and taking one id'],
  ['each', 'each using every part that loads on first use'],
]) {
  test(`1,000 reloads, ${what}, load the binary once, compile index.js alone again, and grow the heap by < ${HEAP_LIMIT_MB} MB`, () => {
    const result = reloads(mode)
    assert.equal(result.loads, 1000)
    assert.equal(result.binaries, 1, 'the binary was loaded again')
    assert.ok(result.heapUsedMb < HEAP_LIMIT_MB, `the heap in use grew by ${result.heapUsedMb.toFixed(2)} MB`)
    // A realm loads each part once: a later copy is its index.js over the first copy's parts.
    const again = Object.entries(result.reloaded).filter(([file, loads]) => file !== 'index.js' && loads > 1)
    assert.deepEqual(again, [], 'files the reloads loaded again, and how many times')
    assert.equal(result.reloaded['index.js'], 1000)
  })
}

// The issue's way (one generator, one id a load), as V8's own full GC leaves memory: the young
// generation V8 grew under the loads stays grown, as in a test runner's process. Resident memory
// not backed by a file is Linux's (RssAnon); RSS elsewhere also counts the pages of Node's own
// binary its code maps in as it first runs (and under Wine, Wine's).
test(`1,000 reloads, each making one generator and taking one id, grow resident memory by < ${MEMORY_LIMIT_MB} MB`, {
  skip: process.platform !== 'linux' && "read from Linux's /proc/self/status (RssAnon)",
}, (t) => {
  const result = reloads('first')
  // Side by side, for the record: flake-idgen's file, reloaded the same way; and every part used.
  const theirs = reloads(flakeIdgen())
  t.diagnostic(
    `resident +${result.residentMb.toFixed(1)} MB (every part used: +${reloads('each').residentMb.toFixed(1)} MB); ` +
      `flake-idgen's file: +${theirs.residentMb.toFixed(1)} MB`,
  )
  assert.ok(result.residentMb < MEMORY_LIMIT_MB, `resident memory grew by ${result.residentMb.toFixed(1)} MB`)
})

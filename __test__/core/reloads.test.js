'use strict'
// Issue 39, item 9: reloading the package's JS 1,000 times in one thread, as a test runner's
// fresh module registries do (each time every file of the package but the `.node` deleted from
// require.cache, then required again), keeps nothing per load, under Node's default flags. Node
// keeps each module a file required among that file's `children` even once the cache forgot it:
// before the fix, that kept every copy's module graph, +62 MB of heap (flake-idgen's one file,
// reloaded the same way, keeps +8.3 MB). Measured from the first load, not after a warm-up.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const path = require('node:path')

const child = path.join(__dirname, '..', 'support', 'reloads-child.js')
// --expose-gc alone: the measurement runs on Node's default heap sizes.
const FLAGS = ['--expose-gc']
const HEAP_LIMIT_MB = 10
const RSS_LIMIT_MB = 20

/** What 1,000 loads kept, measured by reloads-child.js in a process of its own. */
function reloads(mode) {
  return JSON.parse(execFileSync(process.execPath, [...FLAGS, child, mode], { encoding: 'utf8', timeout: 240_000 }))
}

const flakeIdgen = () => require.resolve('flake-idgen')

for (const [mode, what] of [
  ['first', 'each making one generator and taking one id'],
  ['each', 'each using every part that loads on first use'],
]) {
  test(`1,000 reloads, ${what}, grow the heap by < ${HEAP_LIMIT_MB} MB and RSS by < ${RSS_LIMIT_MB} MB`, (t) => {
    const result = reloads(mode)
    assert.equal(result.loads, 1000)
    assert.equal(result.bindings, 1, 'the binary was loaded again')
    if (mode === 'first') {
      // Side by side, for the record: flake-idgen's file, reloaded the same way.
      const theirs = reloads(flakeIdgen())
      t.diagnostic(
        `heap +${result.heapUsedMb.toFixed(2)} MB, RSS +${result.rssMb.toFixed(1)} MB; flake-idgen's file: ` +
          `heap +${theirs.heapUsedMb.toFixed(2)} MB, RSS +${theirs.rssMb.toFixed(1)} MB`,
      )
    }
    assert.ok(result.heapUsedMb < HEAP_LIMIT_MB, `the heap in use grew by ${result.heapUsedMb.toFixed(2)} MB`)
    assert.ok(result.rssMb < RSS_LIMIT_MB, `RSS grew by ${result.rssMb.toFixed(1)} MB`)
  })
}

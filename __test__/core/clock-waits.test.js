'use strict'
// Every wait for the system clock is bounded (issue 39, item 6): a clock that stands still, or
// steps back, during the first mapping of a state file, a batch's slice or a sync next() on a
// coarse unit never holds the event loop; each returns, or throws a coded error, and no id
// repeats. The clocks are LD_PRELOAD shims (../support/clock-shims.js).

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const { stateDir } = require('../support/state-files.js')
const { shims, shimEnv } = require('../support/clock-shims.js')

const CHILD = path.join(__dirname, '..', 'support', 'waits-child.js')
const options = { skip: shims().skip ?? false }

/** Runs the child in `mode` under `shim`; what it printed, parsed. */
function run(mode, shim) {
  const dir = path.join(stateDir('waits'), 'state')
  const { status, signal, stdout, stderr } = spawnSync(process.execPath, [CHILD, mode, dir], {
    encoding: 'utf8',
    // Generous: a child that hangs (the bug) is killed, and fails here.
    timeout: 60_000,
    env: shimEnv(shim),
  })
  assert.deepEqual([status, signal], [0, null], `the child did not finish: ${stderr}`)
  return JSON.parse(stdout)
}

test(
  'nextBatchAsync with the clock frozen mid-batch: the event loop turns, the batch ends once it moves',
  options,
  () => {
    const { frozenTurns, count, ascending } = run('batchFrozen', 'absclock')
    assert.ok(frozenTurns > 0, 'the event loop never turned while the clock stood still')
    assert.equal(count, 20000)
    assert.ok(ascending, 'an id repeated or went back')
  },
)

test('a first mapping with the clock frozen: the constructor returns, ids wait for the clock', options, () => {
  const result = run('constructFrozen', 'absclock')
  for (const name of ['ms', 'seconds']) {
    // The start of a fresh file is ahead of a frozen clock: refused as a clock behind, coded.
    assert.deepEqual(result[name], { scope: 'host', next: 'ERR_FLAKE_CLOCK_BACKWARDS', later: 8 }, name)
  }
})

test('a first mapping whose wait meets a 2 s step back returns at once: ids wait for the clock', options, () => {
  const { stepped, next, later } = run('constructBack', 'fakeclock')
  assert.equal(stepped, 2, 'the clock had not stepped during the wait')
  assert.equal(next, 'ERR_FLAKE_CLOCK_BACKWARDS')
  assert.equal(later, 8)
})

test('nextBatchAsync through a 2 s step back: it waits between turns of the event loop', options, () => {
  const { steppedTurns, count, ascending } = run('batchBack', 'fakeclock')
  assert.ok(steppedTurns > 0, 'the event loop never turned while the clock was stepped back')
  assert.equal(count, 1 << 23)
  assert.ok(ascending, 'an id repeated or went back')
})

test('a sync next() on a 1000 ms unit with the clock frozen throws ERR_FLAKE_CLOCK_STALLED', options, () => {
  assert.deepEqual(run('nextCoarseFrozen', 'absclock'), { code: 'ERR_FLAKE_CLOCK_STALLED' })
})

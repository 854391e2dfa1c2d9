'use strict'
// Every wait for the system clock is bounded (issue 39, item 6): a clock that stands still, or
// steps back, during the first mapping of a state file, a batch's slice or a sync next() on a
// coarse unit never holds the event loop; each returns, or throws a coded error, and no id
// repeats. Nor does a promise's wait hang (issue 51, item 2): nextAsync() and nextBatchAsync()
// give up on a clock that stands still, 100 ms of real time after what it needed; next(cb)
// waits on, as flake-idgen's does. The clocks are LD_PRELOAD shims (../support/clock-shims.js).

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const { stateDir } = require('../support/state-files.js')
const { shims, shimEnv } = require('../support/clock-shims.js')

const CHILD = path.join(__dirname, '..', 'support', 'waits-child.js')
const options = { skip: shims().skip ?? false }
// How long an async wait goes on past what the clock needed (lib/generator/wait.js), and an upper bound on
// when it must have given up by: room for a loaded machine, far below the child's 10 s for a
// hang.
const GRACE_MS = 100
const GIVEN_UP_MS = 5000

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

/** Asserts that `outcome` (waits-child.js's `settled`) is a rejection with `code`, given up on within the bound. */
function assertGivenUp(outcome, code, dueMs, what) {
  assert.ok(!outcome.hung, `${what} never settled: it hangs under a clock that stands still`)
  assert.equal(outcome.code, code, `${what}: ${JSON.stringify(outcome)}`)
  assert.ok(
    outcome.ms >= dueMs + GRACE_MS && outcome.ms < GIVEN_UP_MS,
    `${what} gave up after ${outcome.ms} ms, not between ${dueMs + GRACE_MS} and ${GIVEN_UP_MS}`,
  )
}

test(
  'with default options and the clock frozen, nextBatchAsync and nextAsync reject with ERR_FLAKE_CLOCK_STALLED; next(cb) waits on',
  options,
  () => {
    const { batch, frozenTurns, async, inLine, waitingOn, order, callbacksAbove, above } = run('frozen', 'absclock')
    assertGivenUp(batch, 'ERR_FLAKE_CLOCK_STALLED', 1, 'nextBatchAsync(10000)')
    assert.match(batch.message, /did not advance for \d+ ms .*\(1 ms past its reading\)/)
    assert.ok(frozenTurns > 0, 'the event loop never turned while the clock stood still')
    assertGivenUp(async, 'ERR_FLAKE_CLOCK_STALLED', 1, 'nextAsync() after the millisecond was used up')
    // A promise in line behind a callback is rejected all the same; the callbacks wait on, as
    // flake-idgen's do, and are answered once the clock moves, in call order.
    assertGivenUp(inLine, 'ERR_FLAKE_CLOCK_STALLED', 1, 'nextAsync() behind next(cb)')
    assert.equal(waitingOn, 1, `only the promise was answered while the clock stood still: ${order}`)
    assert.deepEqual(order, ['async', 'callback 1', 'callback 2'])
    assert.ok(callbacksAbove, "the callbacks' ids were not above those before, in call order")
    assert.ok(above, 'once the clock moved, an id was not above those before')
  },
)

test(
  'a promise made 60 ms after the last was given up on, callbacks still waiting, waits afresh: its own 100 ms',
  options,
  () => {
    const { first, later } = run('afresh', 'absclock')
    assertGivenUp(first, 'ERR_FLAKE_CLOCK_STALLED', 1, 'nextAsync() behind a waiting next(cb)')
    assertGivenUp(later, 'ERR_FLAKE_CLOCK_STALLED', 1, 'nextAsync() made 60 ms after that one was given up on')
  },
)

test('a wait the frozen clock steps back 500 ms during rejects with ERR_FLAKE_CLOCK_BACKWARDS', options, () => {
  const outcome = run('frozenBack', 'absclock')
  assertGivenUp(outcome, 'ERR_FLAKE_CLOCK_BACKWARDS', 500, 'nextAsync()')
  assert.match(outcome.message, /^Clock moved backwards\. Refusing to generate id for 50\d milliseconds$/)
})

test('a wait the clock steps back 1 s during, and moves on, is waited out', options, () => {
  const { ids, ms, above, ...rest } = run('stepBackMidWait', 'fakeclock')
  assert.equal(ids, 1, `nextAsync() did not resolve: ${JSON.stringify(rest)}`)
  // The step landed in the wait: the id came once the clock had caught up.
  assert.ok(ms >= 900, `resolved after ${ms} ms, before the clock caught up`)
  assert.ok(above, 'the id was not above those before the step')
})

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

'use strict'

// Waiting: for the clock, as next(cb) and nextBatchAsync do when they found no id, and for real
// time, as a lease does between calls to its store.

// Timers from the module, not the globals: fake timers in a user's tests replace the globals,
// and would then hold waits that only the real clock can end.
const { setImmediate, setTimeout, clearImmediate, clearTimeout } = require('node:timers')
const { AbortError } = require('./errors.js')

// The longest timer set for the clock: the system clock is read again at least this often (it
// may be set forward meanwhile), and a delay never nears setTimeout's 2^31 - 1 ms limit, past
// which Node warns and fires at once.
const LONGEST_MS = 1000

/**
 * Calls `then` once the clock may have advanced `ms` milliseconds. A clock of the user's is
 * read again every millisecond or so: it may stand still (a fake one in tests) or jump (a test
 * moving it), and what it does has nothing to do with real time. Returns a function that
 * cancels the wait.
 */
function waitForClock(ms, clock, then) {
  // Overflow clears within the millisecond: poll with setImmediate, not setTimeout(1), which
  // waits 1-2 ms and would cap a burst far below the 4,096 ids per ms available.
  if (clock === undefined && ms <= 1) {
    const immediate = setImmediate(then)
    return () => clearImmediate(immediate)
  }
  const timer = setTimeout(then, clock === undefined ? Math.min(ms - 1, LONGEST_MS) : 1)
  return () => clearTimeout(timer)
}

/** Resolves after `ms` of real time; rejects when `signal` aborts. Keeps the process alive. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError(signal))
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortError(signal))
    }
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      },
      Math.max(0, Math.min(ms, 2 ** 31 - 1)),
    )
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

module.exports = { waitForClock, sleep }

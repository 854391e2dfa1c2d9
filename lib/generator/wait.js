'use strict'

// Waiting: for the clock, as next(cb), nextAsync() and nextBatchAsync() do when they found no
// id, and for real time, as a lease does between calls to its store.

// Timers from the module, not the globals: fake timers in a user's tests replace the globals,
// and would then hold waits that only the real clock can end.
const { setImmediate, setTimeout, clearImmediate, clearTimeout } = require('node:timers')
// STALL_GRACE_MS: real ms a wait goes on past the time the clock needed, before it is given up
// on, the grace sync next() gives the same fault.
const { systemNowMs, STALL_GRACE_MS } = require('../binding/load-binding.js')
const codedError = require('../errors/coded-error.js')
const { AbortError } = require('../errors/errors.js')

// The longest timer set for the clock: the system clock is read again at least this often (it
// may be set forward meanwhile), and a delay never nears setTimeout's 2^31 - 1 ms limit, past
// which Node warns and fires at once.
const LONGEST_MS = 1000

// Real time, in ms: process.uptime() counts by the monotonic clock, which a change of the system
// clock does not move, and no fake timers replace it (they replace performance.now() and
// process.hrtime(): a test moving them would end a wait early).
const realMs = () => process.uptime() * 1000

/**
 * One wait for the system clock, from the look that found no id to the one that found some. A
 * clock that moves with real time gets where the ids need it in the time it said; one that has
 * not, STALL_GRACE_MS of real time (monotonic) later, stands still or runs slow, and the wait is
 * given up on rather than kept for ever (a request handler awaiting it would hang). Its due is
 * counted from its lowest reading: a step back during the wait is waited out, as one before it
 * is. A clock that got there to find the ids still taken (other generators were first, a lease
 * awaits renewal) moves, and begins another wait.
 */
class ClockWatch {
  #start
  #from
  #lowest
  #target

  constructor(waitMs) {
    this.#begin(realMs(), systemNowMs(), waitMs)
  }

  #begin(real, now, waitMs) {
    this.#start = real
    this.#from = this.#lowest = now
    this.#target = now + waitMs
  }

  /** Counts real time from now on: for a promise made after the last were given up on. */
  restart() {
    this.#start = realMs()
  }

  /** Real ms until the wait is given up on, if the clock stays short. */
  get leftMs() {
    return this.#start + this.#target - this.#lowest + STALL_GRACE_MS - realMs()
  }

  /** After a look that still found `waitMs` to wait: the error to give up with, or undefined. */
  check(waitMs) {
    // Real time first: a pause between the two readings then shows as a clock that moved, never
    // as one that stood still.
    const real = realMs()
    const now = systemNowMs()
    if (now >= this.#target) {
      this.#begin(real, now, waitMs)
      return undefined
    }
    this.#lowest = Math.min(this.#lowest, now)
    const waitedMs = Math.floor(real - this.#start)
    if (waitedMs <= this.#target - this.#lowest + STALL_GRACE_MS) return undefined
    // Still behind where the wait began: it stepped back, and never came back. As sync next()
    // throws it, in flake-idgen's words.
    if (now < this.#from)
      return codedError(
        Error,
        'ERR_FLAKE_CLOCK_BACKWARDS',
        `Clock moved backwards. Refusing to generate id for ${waitMs} milliseconds`,
      )
    return codedError(
      Error,
      'ERR_FLAKE_CLOCK_STALLED',
      `The clock did not advance for ${waitedMs} ms while waiting for the time the next id needs ` +
        `(${waitMs} ms past its reading); refusing to wait longer`,
    )
  }
}

/**
 * The watch of a wait for `clock` that found `waitMs` to go, or undefined for a clock of the
 * user's: that one is the user's time (a fake one in tests stands still until the test moves
 * it), which real time says nothing about, and its waits are never given up on.
 */
const watchClock = (clock, waitMs) => (clock === undefined ? new ClockWatch(waitMs) : undefined)

/**
 * Calls `then` once the clock may have advanced `ms` milliseconds, or the system clock's
 * `watch` would give up. A clock of the user's is read again every millisecond or so: it may
 * stand still (a fake one in tests) or jump (a test moving it), and what it does has nothing to
 * do with real time. Returns a function that cancels the wait.
 */
function waitForClock(ms, clock, then, watch) {
  // Overflow clears within the millisecond: poll with setImmediate, not setTimeout(1), which
  // waits 1-2 ms and would cap a burst far below the 4,096 ids per ms available.
  if (clock === undefined && ms <= 1) {
    const immediate = setImmediate(then)
    return () => clearImmediate(immediate)
  }
  const delay = clock === undefined ? Math.min(ms - 1, LONGEST_MS, Math.max(1, Math.ceil(watch.leftMs) + 1)) : 1
  const timer = setTimeout(then, delay)
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

module.exports = { waitForClock, watchClock, sleep }

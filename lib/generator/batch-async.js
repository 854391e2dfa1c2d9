'use strict'

// nextBatchAsync(): a batch filled on this thread a millisecond at a time, between turns of the
// event loop, never on libuv's pool. A pool thread waiting for the clock holds one of the four
// that fs, crypto and dns share, for seconds, and keeps process.exit and worker.terminate()
// waiting for it; and batches of one generator id share one state, so threads would not make
// them faster anyway. Here a batch is only timers: exit and terminate drop it at once.

const { Buffer } = require('node:buffer')
const { setImmediate, clearImmediate } = require('node:timers')
const { checkCount, RUNS_HEADER_BYTES, RUN_BYTES } = require('../binding/load-binding.js')
const { slice, runSlice, decode, queueOf } = require('../binding/native.js')
const { waitForClock, watchClock } = require('./wait.js')
const { AbortError, invalidArgument } = require('../errors/errors.js')

// Ids per native call: 16 ms of one generator's ids, so that even a slice of borrowed
// milliseconds (allowedFutureMs) hands the event loop back within a fraction of a millisecond.
const SLICE = 65_536

// The batch running on each state, so that batches of one generator id run one after the other
// (the first asked is the first done) rather than all finishing at the end. Keyed by slot for a
// shared state, by the fields themselves for a private or leased one (native.queueOf); an entry
// goes when its last batch does.
const running = new Map()

/** The `signal` of nextBatchAsync's options, checked. */
function signalOf(options) {
  if (options === undefined || options === null) return undefined
  if (typeof options !== 'object') throw invalidArgument('options', 'an object such as { signal }', options)
  const { signal } = options
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw invalidArgument('options.signal', 'an AbortSignal', signal)
  return signal
}

/** Resolves once `start(then)` calls back, or rejects as soon as `signal` aborts, calling the
 * function `start` returned to cancel what it started. */
function waitOrAbort(start, signal) {
  if (signal === undefined) return new Promise((resolve) => start(resolve))
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cancel()
      reject(new AbortError(signal))
    }
    const cancel = start(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    })
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

function nextTurn(then) {
  const immediate = setImmediate(then)
  return () => clearImmediate(immediate)
}

/**
 * Takes `total` ids a slice at a time, `take(filled, max)` each (a report), counting into
 * `counts`; fewer once `cut()` says so.
 */
async function issueAll(clock, counts, total, take, signal, cut) {
  let filled = 0
  // A wait counts once, however often it polls; on the system clock, it is watched (wait.js).
  let waitCounted = false
  let watch
  while (filled < total) {
    if (signal?.aborted) throw new AbortError(signal)
    let report
    try {
      report = take(filled, Math.min(SLICE, total - filled))
    } catch (error) {
      counts.refused(error)
      throw error
    }
    const waitMs = decode.waitMs(report)
    if (waitMs > 0) {
      if (!waitCounted) {
        waitCounted = true
        counts.waits++
        counts.met(report)
        watch = watchClock(clock, waitMs)
      } else {
        const given = watch?.check(waitMs)
        if (given !== undefined) throw given
      }
      await waitOrAbort((then) => waitForClock(waitMs, clock, then, watch), signal)
      continue
    }
    waitCounted = false
    watch = undefined
    const count = decode.count(report)
    counts.ids += count
    counts.met(report)
    filled += count
    if (cut?.()) return
    if (filled < total) await waitOrAbort(nextTurn, signal)
  }
}

/**
 * `count` ids, ascending, in one Buffer, without blocking the event loop: waits for the clock
 * instead of failing on overflow or a clock behind, but not for a system clock that stands still
 * (wait.js). `options.signal` aborts it (an `AbortError`); ids taken by then are not handed out
 * again.
 */
async function batchAsync(fields, clock, counts, count, options) {
  const signal = signalOf(options)
  const ids = Buffer.allocUnsafeSlow(checkCount(count) * 8)
  if (signal?.aborted) throw new AbortError(signal)
  const take = (filled, max) => slice(fields, ids, filled, max, clock)
  await inTurn(fields, signal, () => issueAll(clock, counts, ids.length / 8, take, signal))
  return ids
}

// The runs of a member's slice (runsAsync), read by its `add` before the next is taken: one
// Buffer for them all, as big as the biggest slice asked.
let runs = Buffer.alloc(0)

/**
 * As batchAsync, for a member, which sends its ids as runs: up to `count` ids, taken as their
 * runs (src/js/generator/batches.rs, issueRuns), each slice's handed to `add(runs)` as it is
 * taken. Fewer where `add` returns false: runs of another node id (a leased generator that took
 * a new id), whose ids are dropped.
 */
async function runsAsync(fields, clock, counts, count, options, add) {
  const signal = signalOf(options)
  const total = checkCount(count)
  if (signal?.aborted) throw new AbortError(signal)
  const bytes = RUNS_HEADER_BYTES + RUN_BYTES * Math.min(SLICE, total)
  if (runs.length < bytes) runs = Buffer.allocUnsafeSlow(bytes)
  let cut = false
  const take = (_filled, max) => {
    const report = runSlice(fields, runs, max, clock)
    if (decode.count(report) > 0 && !add(runs)) cut = true
    return report
  }
  await inTurn(fields, signal, () => issueAll(clock, counts, total, take, signal, () => cut))
}

/**
 * `work()` once the batches before it on `fields`' state are done, done or failed (the first
 * asked is the first done), or an AbortError when `signal` aborts first.
 */
function inTurn(fields, signal, work) {
  const key = queueOf(fields)
  const before = running.get(key)
  const mine = (
    before === undefined ? Promise.resolve() : waitOrAbort((then) => before.then(then) && (() => {}), signal)
  ).then(work)
  const done = mine.then(
    () => {},
    () => {},
  )
  // Each batch waits for the one before it, done or failed, and no longer.
  const tail = before === undefined ? done : Promise.all([before, done])
  running.set(key, tail)
  tail.then(() => {
    if (running.get(key) === tail) running.delete(key)
  })
  return mine
}

module.exports = batchAsync
module.exports.runsAsync = runsAsync

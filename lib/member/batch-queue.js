'use strict'

// A member's batch requests, admitted up to a limit and served a slice at a time. Each request
// holds only the ranges of the ids it was given so far (its answer, ~16 bytes a millisecond),
// never a Buffer of every id it asked for: a flood of max-count requests held 274 MB when each
// took its whole batch up front. Between slices the request given the fewest ids so far goes
// next (the smaller one on a tie), so a 1-id request is answered after at most the slice in
// progress, not after every big batch before it; the big ones share the ids evenly. A request
// of one slice or fewer is admitted apart from the bigger ones (each kind up to the limit), so a
// flood of big requests never has a small one refused either.

const { setImmediate, setInterval, clearInterval } = require('node:timers')
const wire = require('../wire/batch-wire.js')

// Ids per slice: one millisecond of the default layout's, so a slice costs a turn of the event
// loop about a millisecond and a request waits for at most one in progress.
const SLICE = 4096
// A leased member's lease is looked at this often while a slice waits: a lease lost meanwhile
// ends the wait (the slice would wait for a new lease) with a refusal the client fails over on.
const LEASE_POLL_MS = 50

/** An Error of a lease's `refusal` ({ code, message }), which the handler refuses with. */
const refusalError = (refusal) => Object.assign(new Error(refusal.message), { code: refusal.code })

/**
 * The queue of batches taken by `takeRuns(count, { signal }, add)` (a generator's ids as runs,
 * each slice's handed to `add`, in wire `layout`), at most `limit` requests at once of each
 * kind (one slice or fewer, bigger): `take(count, res)` is undefined past it, else a promise of
 * { node, ranges, count }: the ids served (fewer than asked only when a leased generator's node
 * id changed mid-batch), or the Error that stopped them (an AbortError when `res` closed first:
 * its ids are never handed out).
 */
function batchQueue(takeRuns, layout, lease, limit) {
  const jobs = []
  let queuedIds = 0
  let running = false
  let current
  const idsPerSecond = (2 ** layout.sequenceBits * 1000) / layout.timeUnitMs

  // Requests admitted, by kind: of one slice or fewer, and bigger.
  const admitted = { small: 0, big: 0 }
  const kindOf = (count) => (count <= SLICE ? 'small' : 'big')

  function finish(job, outcome) {
    const at = jobs.indexOf(job)
    if (at === -1) return
    jobs.splice(at, 1)
    admitted[kindOf(job.count)]--
    queuedIds -= job.count - job.served
    job.res.off('close', job.onClose)
    job.resolve(outcome ?? { node: job.node, ranges: job.ranges, count: job.served })
  }

  /** The job given the fewest ids so far; the smaller on a tie, then the first admitted. */
  function pick() {
    let best = jobs[0]
    for (const job of jobs) {
      if (job.served < best.served || (job.served === best.served && job.count < best.count)) best = job
    }
    return best
  }

  /** Adds `taken` ({ node, ranges, count }: a slice of `asked` ids just taken for `job`) to it. */
  function add(job, taken, asked) {
    const { node, ranges, count } = taken
    if (count === 0) return finish(job)
    if (job.node === -1) job.node = node
    // A leased generator that took a new node id: the ids under it are dropped, never sent under
    // the node id of the ids before them; the request is answered with what it has.
    if (node !== job.node) return finish(job)
    const last = job.ranges.at(-1)
    const [time, first, size] = ranges[0]
    if (last !== undefined && last[0] === time && last[1] + last[2] === first) {
      last[2] += size
      ranges.shift()
    }
    for (const range of ranges) job.ranges.push(range)
    job.served += count
    queuedIds -= count
    if (job.served === job.count || count < asked) finish(job)
  }

  async function serveAll() {
    running = true
    const poll =
      lease === undefined
        ? undefined
        : setInterval(() => {
            if (lease.refusal !== undefined) current?.abort()
          }, LEASE_POLL_MS)
    poll?.unref()
    try {
      while (jobs.length > 0) {
        const refusal = lease?.refusal
        if (refusal !== undefined) {
          for (const job of [...jobs]) finish(job, refusalError(refusal))
          break
        }
        const job = pick()
        current = new AbortController()
        job.slice = current
        const asked = Math.min(SLICE, job.count - job.served)
        const taken = { node: -1, ranges: [], count: 0 }
        try {
          await takeRuns(asked, { signal: current.signal }, (runs) => wire.addRuns(taken, runs))
        } catch (error) {
          // A job already gone (its client closed) answers nothing: its slice's ids are dropped.
          finish(job, error instanceof Error ? error : new Error(String(error)))
          continue
        } finally {
          current = undefined
          job.slice = undefined
        }
        if (jobs.includes(job)) add(job, taken, asked)
        // A slice that met no wait resolves in a microtask: without a turn of the event loop
        // between slices, a flood would hold it for as long as its ids take (seconds).
        await new Promise(setImmediate)
      }
    } finally {
      running = false
      if (poll !== undefined) clearInterval(poll)
    }
  }

  const gone = () => Object.assign(new Error('the client went away'), { code: 'ABORT_ERR' })

  function take(count, res) {
    // Closed while its body was read: it takes no ids, nor a place.
    if (res.destroyed) return Promise.resolve(gone())
    if (admitted[kindOf(count)] >= limit) return undefined
    admitted[kindOf(count)]++
    return new Promise((resolve) => {
      const job = { count, served: 0, node: -1, ranges: [], res, resolve, slice: undefined }
      job.onClose = () => {
        job.slice?.abort()
        finish(job, gone())
      }
      res.on('close', job.onClose)
      jobs.push(job)
      queuedIds += count
      if (!running) {
        serveAll().catch((error) => {
          for (const waiting of [...jobs]) finish(waiting, error)
        })
      }
    })
  }

  return {
    take,
    /** Whole seconds until the ids asked for now are served, at the layout's rate: at least 1. */
    retryAfter: () => Math.min(60, Math.max(1, Math.ceil(queuedIds / idsPerSecond))),
  }
}

module.exports = batchQueue

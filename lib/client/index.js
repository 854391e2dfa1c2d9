'use strict'

// FlakeId.client() and `flake-idgen-rs/client`: ids for a process that holds no generator id, from
// batches that members serve (generator.batchHandler), as Hazelcast's clients take theirs. Pure
// JS, on node:http in Node and the global fetch elsewhere (transport.js): it loads no native
// binary, and runs wherever fetch does.
//
// A batch is used for prefetchValidityMs at most, measured on the monotonic clock AND the wall
// clock from before its request: a process frozen (a Lambda between calls, a SIGSTOP, a laptop
// asleep, when the monotonic clock stops) never issues an id older than that once thawed. Its
// ids are unique whatever their age; the validity keeps them near creation time.
//
// It requires no `node:` module (only transport.js does, in Node alone), so that it loads in edge
// runtimes without Node's APIs: its ids are Buffers where a global Buffer is (Node, Bun, Deno,
// workerd's nodejs_compat), 8-byte Uint8Arrays elsewhere.

// The global one, which every runtime with fetch has (node:perf_hooks is Node's and Bun's).
const { performance, Buffer } = globalThis
const wire = require('../wire/batch-wire.js')
const codedError = require('../errors/coded-error.js')
const { readOptions, checkCount, describe, MAX_PREFETCH } = require('./options.js')
const { Members, closed } = require('./members.js')
const { VIA, REQUEST_SCOPED } = require('./transport.js')
const { formatNamed } = require('../formats/formats.js')
const { installIdMethods, TAKE_ID, TAKE_BIGINT, TAKE_TEXT, CALL_BACK } = require('../formats/id-methods.js')

// The id at an offset of a batch, in 8 bytes of its own, and as a bigint.
const idAt = formatNamed('buffer').fromBytes
const bigIntAt = formatNamed('bigint').fromBytes

const noPrefetched = () =>
  codedError(
    Error,
    'ERR_FLAKE_NO_PREFETCHED_ID',
    'no prefetched id is at hand (none fetched yet, all used, or older than prefetchValidityMs): use nextAsync(), or call again once the refill it started has come',
  )

// After a refill that no member served, a background refill (one no caller waits for) is not
// tried again for this long: sync callers on a client whose members are down do not hammer them.
const RETRY_MS = 1000

// In a request-scoped runtime (transport.js), a refill started for no caller (ahead of need) would
// be cancelled with the request that started it, and a caller of another request waiting on it
// would wait for ever; so a refill is made only by a caller that needs it and waits for it, in its
// own request (see #waitScoped).

/** `size` bytes to write ids into: a Buffer where the runtime has one (ids stay Buffers there), else a Uint8Array. */
const bytes = Buffer === undefined ? (size) => new Uint8Array(size) : (size) => Buffer.allocUnsafeSlow(size)

class FlakeIdClient {
  #config
  #members
  // Batches in the order they came: { ids (a Buffer), at (the next id's offset), and the
  // monotonic and wall-clock times past which it is not used, and past which the next is fetched }.
  #batches = []
  // Ids left in #batches, fresh or not.
  #left = 0
  // Async callers waiting in order: { count, resolve, reject }.
  #waiters = []
  #needed = 0
  // Callers of a request-scoped runtime waiting in #waitScoped, and the refill they wait on.
  #scopedWaiting = 0
  #scopedFill
  #fetching = false
  #retryAt = 0
  // The monotonic clock and the wall clock as #readClocks() last read them.
  #now = 0
  #wall = 0
  // Whether #now was read in this turn of the event loop.
  #monoRead = false
  #closed = false
  #counts = { ids: 0, batches: 0, dropped: 0, failures: 0 }

  constructor(options) {
    this.#config = readOptions(options)
    this.#members = new Members(this.#config, options[VIA])
  }

  // next(), nextBigInt() and nextString(format) are the id methods (../formats/id-methods.js),
  // a generator's too: they take the id by these.

  [TAKE_ID]() {
    return idAt(this.#takeOne(), this.#at)
  }

  [TAKE_BIGINT]() {
    return bigIntAt(this.#takeOne(), this.#at)
  }

  [TAKE_TEXT](write) {
    return write(this.#takeOne(), this.#at)
  }

  [CALL_BACK](cb) {
    if (typeof cb !== 'function')
      throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "cb" argument must be a function, got ${describe(cb)}`)
    this.nextAsync().then(
      (id) => cb(null, id),
      (error) => cb(error),
    )
  }

  /** The next id, an 8-byte Buffer, from a prefetched batch or the next one fetched. */
  nextAsync() {
    // An id at hand resolves at once, copied as next() copies it: no batch of one is made.
    if (!this.#closed && this.#waiters.length === 0 && this.#scopedWaiting === 0) {
      const ids = this.#takeAtHand(true)
      if (ids !== undefined) return Promise.resolve(idAt(ids, this.#at))
    }
    return this.nextBatchAsync(1)
  }

  /** `count` ids, in one Buffer of 8 bytes each, ascending within each batch they came from. */
  nextBatchAsync(count) {
    try {
      checkCount(count)
      if (this.#closed) throw closed()
    } catch (error) {
      return Promise.reject(error)
    }
    if (this.#waiters.length === 0 && this.#scopedWaiting === 0 && this.#fresh(true) >= count) {
      const ids = this.#copy(count)
      this.#refill(false)
      return Promise.resolve(ids)
    }
    if (REQUEST_SCOPED) return this.#waitScoped(count)
    return new Promise((resolve, reject) => {
      this.#waiters.push({ count, resolve, reject })
      this.#needed += count
      this.#refill(true)
    })
  }

  stats() {
    const { ids, batches, dropped, failures } = this.#counts
    return { ids, batches, prefetched: this.#left, dropped, failovers: this.#members.failovers, failures }
  }

  /** Ends the request in flight, drops the prefetched ids; waiting callers reject. */
  close() {
    if (this.#closed) return
    this.#closed = true
    this.#members.close()
    this.#counts.dropped += this.#left
    this.#batches = []
    this.#left = 0
    this.#rejectWaiters(closed())
  }

  // Where #takeOne's id is in the Buffer it returned: no object is made per id.
  #at = 0

  /**
   * The Buffer of the next id, taken now (synchronously) from a fresh batch, its offset in #at;
   * or throws: closed, or ERR_FLAKE_NO_PREFETCHED_ID (after starting a refill). Callers waiting
   * come first.
   */
  #takeOne() {
    if (this.#closed) throw closed()
    if (this.#waiters.length === 0 && this.#scopedWaiting === 0) {
      const ids = this.#takeAtHand()
      if (ids !== undefined) return ids
    }
    this.#refill(false)
    throw noPrefetched()
  }

  /** The Buffer of a fresh id taken now, its offset in #at, or undefined; for a caller none waits before. */
  #takeAtHand(always) {
    // A stale first batch: #fresh() drops it, and any after it that are.
    return this.#takeFresh(always) ?? (this.#fresh(always) > 0 ? this.#take() : undefined)
  }

  /**
   * The per-id path of a sync call: the Buffer of the next id, taken from the first batch if it
   * is fresh, its offset in #at; or undefined. One batch looked at, the wall clock read once.
   */
  #takeFresh(always) {
    const batch = this.#batches[0]
    if (batch === undefined) return undefined
    // Both clocks: a wall clock set back (or standing still) reads as no time passed, and the
    // monotonic one stops while the machine sleeps. The monotonic one is read again once the wall
    // clock moved, and once per turn of the event loop (#readClocks). A batch of
    // prefetchValidityMs 0 ends at Infinity.
    const wall = this.#readClocks(always)
    if (this.#now < batch.monoEnd && wall < batch.wallEnd) return this.#take()
    return undefined
  }

  /**
   * The wall clock's reading; the monotonic clock's into #now, when the wall clock moved or first
   * in a turn (a microtask marks it stale at the turn's end), or `always` (a promise's call).
   * Read only when the wall clock moved, a process whose wall clock stood still issued ids of a
   * batch 3.7 s old (validity 1 s); read for every sync id, a run of them cost a third more.
   * Within one turn, ids are a batch's at most, handed out in microseconds. A promise's call is a
   * microtask of its own: the microtask that marks the reading stale made nextAsync() 1.7 × a
   * local generator's, where reading both clocks costs it about a tenth.
   */
  #readClocks(always) {
    const wall = Date.now()
    if (always) {
      this.#wall = wall
      this.#now = performance.now()
    } else if (wall !== this.#wall || !this.#monoRead) {
      this.#wall = wall
      this.#now = performance.now()
      if (!this.#monoRead) {
        this.#monoRead = true
        queueMicrotask(this.#monoStale)
      }
    }
    return wall
  }

  #monoStale = () => {
    this.#monoRead = false
  }

  /** As #takeOne, once #fresh() said there is an id, and no caller waits. */
  #take() {
    const batch = this.#batches[0]
    this.#at = batch.at
    batch.at += 8
    if (batch.at === batch.ids.length) this.#batches.shift()
    this.#left--
    this.#counts.ids++
    if (this.#left * 2 < this.#config.prefetchCount || this.#now > batch.refreshAt) this.#refill(false)
    return batch.ids
  }

  /** Drops the batches too old to use; returns the ids left, all fresh. */
  #fresh(always = false) {
    const validity = this.#config.prefetchValidityMs
    if (validity === 0) return this.#left
    const batches = this.#batches
    while (batches.length > 0) {
      const { monoEnd, wallEnd } = batches[0]
      // Both clocks, read as #takeFresh() reads them.
      const wall = this.#readClocks(always)
      if (this.#now < monoEnd && wall < wallEnd) break
      const batch = batches.shift()
      const dropped = (batch.ids.length - batch.at) / 8
      this.#left -= dropped
      this.#counts.dropped += dropped
    }
    return this.#left
  }

  /** `count` fresh ids (there are that many) copied out of the batches, in one Buffer. */
  #copy(count) {
    const out = Buffer === undefined ? new Uint8Array(count * 8) : Buffer.allocUnsafe(count * 8)
    let filled = 0
    while (filled < out.length) {
      const batch = this.#batches[0]
      const end = Math.min(batch.ids.length, batch.at + out.length - filled)
      out.set(batch.ids.subarray(batch.at, end), filled)
      filled += end - batch.at
      batch.at = end
      if (end === batch.ids.length) this.#batches.shift()
    }
    this.#left -= count
    this.#counts.ids += count
    return out
  }

  /**
   * Starts fetching, unless a request is in flight, while callers wait or the ids left run low:
   * under half a prefetch, or in a batch past most of its validity. So a steady caller finds
   * its ids at hand. `asked`: a caller waits on it (a background refill after every member
   * failed waits RETRY_MS).
   */
  #refill(asked) {
    if (this.#fetching || this.#closed) return
    if (!asked && this.#waiters.length === 0) {
      if (REQUEST_SCOPED) return
      if (!this.#low() || performance.now() < this.#retryAt) return
    }
    this.#fetching = true
    // Begun in a microtask: a sync next() that starts a refill returns before the request is
    // built and written, so a caller's run of sync ids pays nothing for it.
    queueMicrotask(() =>
      this.#fill().catch((error) => {
        this.#fetching = false
        this.#rejectWaiters(error)
      }),
    )
  }

  /** Whether the ids left call for another batch now. */
  #low() {
    const { prefetchCount, prefetchValidityMs } = this.#config
    if (this.#left * 2 < prefetchCount) return true
    const newest = this.#batches.at(-1)
    if (newest === undefined || prefetchValidityMs === 0) return false
    return performance.now() > newest.refreshAt
  }

  /** Fetches batches, one request at a time, until the waiting callers are served and ids are not low. */
  async #fill() {
    // #fetching is cleared in the same turn as the check that ends the loop: a caller that comes
    // after finds no request in flight, and starts one (cleared after an await, a caller resumed
    // by #serve would run first, find one "in flight", and wait for ever).
    while (!this.#closed && (this.#waiters.length > 0 || this.#low())) {
      try {
        await this.#fetchBatch()
      } catch (error) {
        this.#fetching = false
        if (this.#closed) return
        this.#retryAt = performance.now() + RETRY_MS
        this.#rejectWaiters(error)
        return
      }
      if (this.#closed) break
      this.#serve()
    }
    this.#fetching = false
  }

  /**
   * One batch, for the ids the callers wait for and a prefetch more, added to those at hand (none
   * once closed); what the members did thrown, counted as a failure.
   */
  async #fetchBatch() {
    const missing = Math.max(0, this.#needed - this.#fresh())
    const count = Math.min(MAX_PREFETCH, missing + this.#config.prefetchCount)
    // Timed from before the request: the member makes the ids after it was sent.
    const mono = performance.now()
    const wall = Date.now()
    let batch
    try {
      batch = await this.#members.fetch(count)
    } catch (error) {
      if (!this.#closed) this.#counts.failures++
      throw error
    }
    if (!this.#closed) this.#push(batch, mono, wall)
  }

  /** Adds `batch`, asked at `mono` and `wall`, to the batches at hand. */
  #push(batch, mono, wall) {
    const ids = bytes(batch.count * 8)
    wire.writeIds(batch, ids, 0)
    const validity = this.#config.prefetchValidityMs || Number.POSITIVE_INFINITY
    this.#batches.push({
      ids,
      at: 0,
      monoEnd: mono + validity,
      wallEnd: wall + validity,
      refreshAt: mono + validity * 0.8,
    })
    this.#left += batch.count
    this.#counts.batches++
  }

  /**
   * `count` ids for a caller of a request-scoped runtime: from the batches at hand, else from a
   * refill in flight (another request's, which waits for it too, so it is not cancelled), else
   * from one it makes in its own request. Each I/O lives and dies in the request that made it;
   * a promise settled by another request's I/O resumes its waiter in the waiter's own request.
   */
  async #waitScoped(count) {
    this.#scopedWaiting++
    this.#needed += count
    try {
      for (;;) {
        if (this.#closed) throw closed()
        if (this.#fresh() >= count) return this.#copy(count)
        this.#scopedFill ??= this.#fetchBatch().finally(() => {
          this.#scopedFill = undefined
        })
        try {
          await this.#scopedFill
        } catch (error) {
          throw this.#closed ? closed() : error
        }
      }
    } finally {
      this.#scopedWaiting--
      this.#needed -= count
    }
  }

  /** Answers the waiting callers, in order, while fresh ids are enough for the first. */
  #serve() {
    while (this.#waiters.length > 0) {
      const waiter = this.#waiters[0]
      if (this.#fresh() < waiter.count) return
      this.#waiters.shift()
      this.#needed -= waiter.count
      waiter.resolve(this.#copy(waiter.count))
    }
  }

  #rejectWaiters(error) {
    const waiters = this.#waiters
    this.#waiters = []
    this.#needed = 0
    for (const waiter of waiters) waiter.reject(error)
  }
}

installIdMethods(FlakeIdClient)

/** A client of `options.members` (see FlakeIdClient). */
function client(options) {
  return new FlakeIdClient(options)
}

module.exports = client
module.exports.client = client
module.exports.FlakeIdClient = FlakeIdClient
module.exports.default = client

'use strict'

// One process's lease in a namespace, and the generator it drives: a holder issues nothing past
// the ceiling the store acknowledged, and its successor nothing at or below it. So holders'
// timestamps never overlap, whatever pauses, kills, lost renewals or clock skew do. The store
// adapters (store.js) make each step one atomic compare-and-set on the owner token.

const os = require('node:os')
const { randomUUID } = require('node:crypto')
const { performance } = require('node:perf_hooks')
const { setTimeout, clearTimeout } = require('node:timers')
const { TIMESTAMP_BITS, NODE_BITS, SEQUENCE_BITS } = require('../load-binding.js')
const native = require('../native.js')
const { AbortError, codedError, describe } = require('../errors.js')
const { sleep } = require('../wait.js')

// The id layout, written into the namespace's marker with the epoch: holders that read ids
// differently must not share a namespace.
const LAYOUT = `${TIMESTAMP_BITS}/${NODE_BITS}/${SEQUENCE_BITS}`

/**
 * One process's lease in a namespace, and the generator it drives: through native.js, the
 * generator's fields get the leased id, a state started above the lease's floor, and each
 * ceiling the store acknowledges; nothing else changes them.
 */
class Lease {
  // The lease's configuration (see options.js), its store adapter, the generator's fields.
  #config
  #store
  #fields
  #now
  #owner = `${os.hostname()}:${process.pid}:${randomUUID()}`
  #meta
  // The lease the generator issues under, and one acquired but not installed yet.
  #held
  #next
  #timer
  #closed = false
  #acquiring = false
  #started = false
  #lostReported = false
  #lastError

  /** A lease for `config` from `store`, driving the leased `fields` of a generator of `epoch`. */
  constructor(config, store, fields, epoch) {
    this.#config = config
    this.#store = store
    this.#fields = fields
    const { clock } = config.generator
    // The holder's clock is the generator's: its ceilings fence that clock's timestamps.
    this.#now = clock === undefined ? Date.now : () => Math.floor(clock())
    this.#meta = JSON.stringify({ layout: LAYOUT, epoch, ttl: config.ttl, maxClockSkewMs: config.maxClockSkewMs })
  }

  /** The generator id the generator issues under, undefined before its first lease. */
  get id() {
    return this.#held?.id
  }

  /** What the generator issues under now: its id, floor and ceiling (ms since 1970). */
  get fence() {
    const held = this.#held
    if (held === undefined || this.#closed) return undefined
    return {
      namespace: this.#config.namespace,
      id: held.id,
      floor: held.floor,
      ceiling: native.ceilingOf(this.#fields),
    }
  }

  /** Acquires the first lease and installs it, waiting as long as its floor requires. */
  async start() {
    const { signal, acquireTimeout } = this.#config
    try {
      for (;;) {
        const lease = await this.#acquire(signal, acquireTimeout)
        this.#next = lease
        this.#schedule(this.#config.ttl / 3)
        await this.#untilPast(lease.floor, signal)
        // Lost while it waited (renewals go on meanwhile): another one, then.
        if (this.#next === lease) break
      }
    } catch (error) {
      await this.close().catch(() => {})
      throw error
    }
    this.#install(this.#next)
    this.#started = true
  }

  /** Releases the lease: the next holder starts at once, above the last id issued. */
  async close() {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#timer)
    const held = this.#held
    // Fenced first, so the last timestamp issued is final before the store hears of it.
    const last = held === undefined ? undefined : native.lastIssuedAt(this.#fields)
    native.setCeiling(this.#fields, native.CLOSED)
    const releases = []
    if (held !== undefined) releases.push(this.#release(held, Math.max(held.floor, last ?? held.floor)))
    if (this.#next !== undefined) releases.push(this.#release(this.#next, this.#next.floor))
    this.#held = this.#next = undefined
    await Promise.all(releases)
  }

  #release(lease, last) {
    const { namespace } = this.#config
    return this.#timed(this.#store.release({ namespace, id: lease.id, owner: this.#owner, last }))
  }

  /** A store call that answers within a third of the ttl, or fails. */
  #timed(promise) {
    const ms = Math.ceil(this.#config.ttl / 3)
    let timer
    const late = new Promise((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            codedError(
              Error,
              'ERR_FLAKE_LEASE_STORE',
              `the lease store (${this.#store.kind}) did not answer within ${ms} ms`,
            ),
          ),
        ms,
      )
    })
    return Promise.race([promise, late]).finally(() => clearTimeout(timer))
  }

  /** Refuses a clock further from the store's than maxClockSkewMs (with the round trip's margin). */
  async #checkSkew() {
    const store = this.#store
    const { maxClockSkewMs } = this.#config
    const before = performance.now()
    const local = this.#now()
    const storeNow = await this.#timed(store.time())
    const roundTrip = performance.now() - before
    const skew = local + roundTrip / 2 - storeNow
    if (Math.abs(skew) > maxClockSkewMs + roundTrip / 2) {
      throw codedError(
        Error,
        'ERR_FLAKE_CLOCK_SKEW',
        `the clock reads ${Math.round(Math.abs(skew))} ms ${skew > 0 ? 'ahead of' : 'behind'} the lease store's (${store.kind}), more than maxClockSkewMs (${maxClockSkewMs})`,
      )
    }
  }

  /** A lease: waits while the pool is exhausted, up to `timeout` ms of real time. */
  async #acquire(signal, timeout) {
    const store = this.#store
    const { namespace, ids, ttl, maxClockSkewMs } = this.#config
    const [first, last] = ids
    const deadline = performance.now() + timeout
    for (;;) {
      if (signal?.aborted) throw new AbortError(signal)
      await this.#checkSkew()
      const proposed = this.#now() + ttl
      const answer = await this.#timed(
        store.acquire({
          namespace,
          first,
          last,
          owner: this.#owner,
          ttl,
          proposed,
          meta: this.#meta,
          unknownMs: ttl + maxClockSkewMs,
        }),
      )
      if (answer.status === 'acquired') return answer
      if (answer.status === 'mismatch') {
        throw codedError(
          Error,
          'ERR_FLAKE_LEASE_MISMATCH',
          `namespace ${describe(namespace)} is leased with other settings (${answer.meta}), not ${this.#meta}`,
        )
      }
      // Unreplicated: not ours to use; left to expire, since its floor is not known here.
      // Polled, not only at the earliest expiry: a holder that closes frees its id at once.
      const retryIn = Math.min(answer.status === 'exhausted' ? answer.retryAt - answer.now : ttl / 3, ttl / 10, 1000)
      const left = deadline - performance.now()
      if (left <= 0) {
        throw codedError(
          Error,
          'ERR_FLAKE_NO_FREE_ID',
          `no generator id of ${first}–${last} is free in namespace ${describe(namespace)} after ${timeout} ms`,
        )
      }
      await sleep(Math.min(Math.max(retryIn, 10), left), signal)
    }
  }

  /** Resolves once the holder's clock is past `floor`. */
  async #untilPast(floor, signal) {
    for (let now = this.#now(); now <= floor; now = this.#now()) {
      // A clock of the user's is read every millisecond: it need not follow real time.
      await sleep(this.#config.generator.clock === undefined ? floor - now + 1 : 1, signal)
      if (this.#closed)
        throw codedError(Error, 'ERR_FLAKE_LEASE_CLOSED', 'the lease was closed while it waited for its floor')
    }
  }

  /** Makes `lease` the one the generator issues under: its id, above its floor, to its ceiling. */
  #install(lease) {
    if (this.#closed) return
    native.installLease(this.#fields, this.#config.generator, lease.id, lease.floor, lease.ceiling)
    this.#held = lease
    if (this.#next === lease) this.#next = undefined
    this.#lostReported = false
  }

  #schedule(ms) {
    clearTimeout(this.#timer)
    if (this.#closed) return
    this.#timer = setTimeout(() => this.#renew(), ms)
    // Renewals never keep a process alive.
    this.#timer.unref()
  }

  /** Renews the leases held; a lost one is replaced by a new acquire, in the background. */
  async #renew() {
    const store = this.#store
    const { namespace, ttl } = this.#config
    let failed = false
    for (const lease of [this.#held, this.#next]) {
      if (lease === undefined || lease.lost) continue
      try {
        const answer = await this.#timed(
          store.renew({ namespace, id: lease.id, owner: this.#owner, ttl, proposed: this.#now() + ttl }),
        )
        if (this.#closed) return
        if (answer.status === 'renewed') {
          this.#lastError = undefined
          lease.ceiling = answer.ceiling
          if (lease === this.#held) native.setCeiling(this.#fields, answer.ceiling)
          continue
        }
        // Lost (taken over, or the store lost its data): keep issuing up to the ceiling we
        // have, and get another lease meanwhile.
        if (lease === this.#next) this.#next = undefined
        else lease.lost = true
      } catch (error) {
        failed = true
        this.#lastError = error
      }
    }
    if (this.#closed) return
    if (this.#started && (this.#held?.lost || this.#held === undefined) && this.#next === undefined) this.#reacquire()
    this.#reportLost()
    this.#schedule(failed ? ttl / 6 : ttl / 3)
  }

  /** Tells onLost, once per loss, when the generator can issue nothing more. */
  #reportLost() {
    const ceiling = native.ceilingOf(this.#fields)
    if (this.#lostReported || this.#now() <= ceiling || this.#next !== undefined) return
    if (!this.#held?.lost && this.#lastError === undefined) return
    this.#lostReported = true
    const error = codedError(
      Error,
      'ERR_FLAKE_LEASE_EXPIRED',
      `the lease on generator id ${this.#held?.id} in namespace ${describe(this.#config.namespace)} expired: no renewal was acknowledged before its ceiling`,
      this.#lastError,
    )
    this.#config.onLost?.(error)
  }

  async #reacquire() {
    if (this.#acquiring) return
    this.#acquiring = true
    try {
      while (!this.#closed) {
        try {
          const lease = await this.#acquire(undefined, Infinity)
          if (this.#closed) {
            // Nobody waits for this one: it expires if the release fails.
            await this.#release(lease, lease.floor).catch(() => {})
            return
          }
          this.#next = lease
          await this.#untilPast(lease.floor)
          if (this.#next === lease) this.#install(lease)
          return
        } catch (error) {
          this.#lastError = error
          if (this.#closed) return
          this.#reportLost()
          await sleep(this.#config.ttl / 6)
        }
      }
    } finally {
      this.#acquiring = false
    }
  }
}

module.exports = Lease

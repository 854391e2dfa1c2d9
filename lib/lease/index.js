'use strict'

// FlakeId.lease(): a generator id leased from the user's Redis or PostgreSQL, so that a fleet
// of processes never holds one id twice, with every id's timestamp fenced: a holder issues
// nothing past the ceiling the store acknowledged, and its successor nothing at or below it.
// So holders' timestamps never overlap, whatever pauses, kills, lost renewals or clock skew do.
// The store adapters (store.js) make each step one atomic compare-and-set on the owner token.

const os = require('node:os')
const { randomUUID } = require('node:crypto')
const { performance } = require('node:perf_hooks')
const { setTimeout, clearTimeout } = require('node:timers')
const native = require('../native.js')
const { storeFor } = require('./store.js')

// The id layout, written into the namespace's marker with the epoch: holders that read ids
// differently must not share a namespace.
const LAYOUT = '42/10/12'

const DEFAULTS = { ttl: 30_000, maxClockSkewMs: 1000 }

// Options a lease sets itself.
const LEASED_OPTIONS = ['id', 'datacenter', 'worker', 'scope', 'stateDir']

function describe(value) {
  if (value === null || value === undefined) return String(value)
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

function flakeError(Kind, code, message, cause) {
  const error = new Kind(message, cause === undefined ? undefined : { cause })
  error.code = code
  return error
}

function invalid(Kind, option, expected, got) {
  return flakeError(Kind, 'ERR_FLAKE_INVALID_OPTION', `option \`${option}\` must be ${expected}, got ${describe(got)}`)
}

function integer(option, value, fallback, min, max) {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'number') throw invalid(TypeError, option, `an integer from ${min} to ${max}`, value)
  if (!Number.isInteger(value) || value < min || value > max) throw invalid(RangeError, option, `an integer from ${min} to ${max}`, value)
  return value
}

/** The lease options, each read once, checked; and the generator's own options. */
function read(options) {
  if (options === null || typeof options !== 'object') throw flakeError(TypeError, 'ERR_FLAKE_INVALID_OPTION', `options must be an object, got ${describe(options)}`)
  const o = {}
  for (const name of LEASED_OPTIONS) {
    const value = options[name]
    if (value !== undefined) throw invalid(TypeError, name, 'left out: a lease sets it', value)
  }
  const { store, namespace, ids, signal, onLost, replicas, epoch, seqMask, allowedFutureMs, clock } = options
  o.ttl = integer('ttl', options.ttl, DEFAULTS.ttl, 100, 86_400_000)
  o.maxClockSkewMs = integer('maxClockSkewMs', options.maxClockSkewMs, DEFAULTS.maxClockSkewMs, 0, 3_600_000)
  o.acquireTimeout = integer('acquireTimeout', options.acquireTimeout, o.ttl, 0, 2 ** 31 - 1)
  if (typeof namespace !== 'string' || namespace.length === 0 || namespace.length > 200) {
    throw invalid(TypeError, 'namespace', 'a string of 1 to 200 characters', namespace)
  }
  o.namespace = namespace
  if (ids === undefined || ids === null) {
    o.first = 0
    o.last = 1023
  } else {
    const pair = Array.isArray(ids) && ids.length === 2 && ids.every((id) => Number.isInteger(id) && id >= 0 && id <= 1023)
    if (!pair || ids[0] > ids[1]) throw invalid(TypeError, 'ids', 'a pair [first, last] of generator ids, 0 ≤ first ≤ last ≤ 1023', ids)
    ;[o.first, o.last] = ids
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw invalid(TypeError, 'signal', 'an AbortSignal', signal)
  o.signal = signal
  if (onLost !== undefined && typeof onLost !== 'function') throw invalid(TypeError, 'onLost', 'a function', onLost)
  o.onLost = onLost
  o.store = storeFor(store, { replicas: replicas ?? 0 })
  o.generator = { epoch, seqMask, allowedFutureMs, clock }
  return o
}

class AbortError extends Error {
  constructor(signal) {
    super('The operation was aborted', { cause: signal.reason })
    this.name = 'AbortError'
    this.code = 'ABORT_ERR'
  }
}

/** Resolves after `ms` of real time; rejects when `signal` aborts. Keeps the process alive. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError(signal))
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortError(signal))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, Math.max(0, Math.min(ms, 2 ** 31 - 1)))
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * One process's lease in a namespace, and the generator it drives: the generator's call
 * fields (see native.js) get the leased id, a state started above the lease's floor, and each
 * ceiling the store acknowledges; nothing else writes them.
 */
class Lease {
  #o
  #call
  #settings
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

  constructor(o, call, settingsFor) {
    this.#o = o
    this.#call = call
    this.#settings = settingsFor
    const { clock } = o.generator
    // The holder's clock is the generator's: its ceilings fence that clock's timestamps.
    this.#now = clock === undefined ? Date.now : () => Math.floor(clock())
    this.#meta = JSON.stringify({ layout: LAYOUT, epoch: call.epoch, ttl: o.ttl, maxClockSkewMs: o.maxClockSkewMs })
    // Nothing may be issued before a lease is installed.
    call.ceiling = 0
  }

  /** The generator id the generator issues under, undefined before its first lease. */
  get id() {
    return this.#held?.id
  }

  /** What the generator issues under now: its id, floor and ceiling (ms since 1970). */
  get fence() {
    const held = this.#held
    if (held === undefined || this.#closed) return undefined
    return { namespace: this.#o.namespace, id: held.id, floor: held.floor, ceiling: this.#call.ceiling }
  }

  /** Acquires the first lease and installs it, waiting as long as its floor requires. */
  async start() {
    const { signal, acquireTimeout } = this.#o
    try {
      for (;;) {
        const lease = await this.#acquire(signal, acquireTimeout)
        this.#next = lease
        this.#schedule(this.#o.ttl / 3)
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
    const last = held === undefined ? undefined : native.lastIssuedAt(this.#call)
    this.#call.ceiling = 0
    const releases = []
    if (held !== undefined) releases.push(this.#release(held, Math.max(held.floor, last ?? held.floor)))
    if (this.#next !== undefined) releases.push(this.#release(this.#next, this.#next.floor))
    this.#held = this.#next = undefined
    await Promise.all(releases)
  }

  #release(lease, last) {
    const { store, namespace } = this.#o
    return this.#timed(store.release({ namespace, id: lease.id, owner: this.#owner, last }))
  }

  /** A store call that answers within a third of the ttl, or fails. */
  #timed(promise) {
    const ms = Math.ceil(this.#o.ttl / 3)
    let timer
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(flakeError(Error, 'ERR_FLAKE_LEASE_STORE', `the lease store (${this.#o.store.kind}) did not answer within ${ms} ms`)), ms)
    })
    return Promise.race([promise, late]).finally(() => clearTimeout(timer))
  }

  /** Refuses a clock further from the store's than maxClockSkewMs (with the round trip's margin). */
  async #checkSkew() {
    const { store, maxClockSkewMs } = this.#o
    const before = performance.now()
    const local = this.#now()
    const storeNow = await this.#timed(store.time())
    const roundTrip = performance.now() - before
    const skew = local + roundTrip / 2 - storeNow
    if (Math.abs(skew) > maxClockSkewMs + roundTrip / 2) {
      throw flakeError(
        Error,
        'ERR_FLAKE_CLOCK_SKEW',
        `the clock reads ${Math.round(Math.abs(skew))} ms ${skew > 0 ? 'ahead of' : 'behind'} the lease store's (${store.kind}), more than maxClockSkewMs (${maxClockSkewMs})`,
      )
    }
  }

  /** A lease: waits while the pool is exhausted, up to `timeout` ms of real time. */
  async #acquire(signal, timeout) {
    const { store, namespace, first, last, ttl, maxClockSkewMs } = this.#o
    const deadline = performance.now() + timeout
    for (;;) {
      if (signal?.aborted) throw new AbortError(signal)
      await this.#checkSkew()
      const proposed = this.#now() + ttl
      const answer = await this.#timed(
        store.acquire({ namespace, first, last, owner: this.#owner, ttl, proposed, meta: this.#meta, unknownMs: ttl + maxClockSkewMs }),
      )
      if (answer.status === 'acquired') return answer
      if (answer.status === 'mismatch') {
        throw flakeError(Error, 'ERR_FLAKE_LEASE_MISMATCH', `namespace ${describe(namespace)} is leased with other settings (${answer.meta}), not ${this.#meta}`)
      }
      // Unreplicated: not ours to use; left to expire, since its floor is not known here.
      // Polled, not only at the earliest expiry: a holder that closes frees its id at once.
      const retryIn = Math.min(answer.status === 'exhausted' ? answer.retryAt - answer.now : ttl / 3, ttl / 10, 1000)
      const left = deadline - performance.now()
      if (left <= 0) {
        throw flakeError(Error, 'ERR_FLAKE_NO_FREE_ID', `no generator id of ${first}–${last} is free in namespace ${describe(namespace)} after ${timeout} ms`)
      }
      await sleep(Math.min(Math.max(retryIn, 10), left), signal)
    }
  }

  /** Resolves once the holder's clock is past `floor`. */
  async #untilPast(floor, signal) {
    for (let now = this.#now(); now <= floor; now = this.#now()) {
      // A clock of the user's is read every millisecond: it need not follow real time.
      await sleep(this.#o.generator.clock === undefined ? floor - now + 1 : 1, signal)
      if (this.#closed) throw flakeError(Error, 'ERR_FLAKE_LEASE_CLOSED', 'the lease was closed while it waited for its floor')
    }
  }

  /** Makes `lease` the one the generator issues under: its id, above its floor, to its ceiling. */
  #install(lease) {
    if (this.#closed) return
    const call = this.#call
    call.settings = this.#settings(lease.id)
    native.startAbove(call, lease.floor)
    call.ceiling = lease.ceiling
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
    const { store, namespace, ttl } = this.#o
    let failed = false
    for (const lease of [this.#held, this.#next]) {
      if (lease === undefined || lease.lost) continue
      try {
        const answer = await this.#timed(store.renew({ namespace, id: lease.id, owner: this.#owner, ttl, proposed: this.#now() + ttl }))
        if (this.#closed) return
        if (answer.status === 'renewed') {
          this.#lastError = undefined
          lease.ceiling = answer.ceiling
          if (lease === this.#held) this.#call.ceiling = answer.ceiling
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
    const ceiling = this.#call.ceiling
    if (this.#lostReported || this.#now() <= ceiling || this.#next !== undefined) return
    if (!this.#held?.lost && this.#lastError === undefined) return
    this.#lostReported = true
    const error = flakeError(Error, 'ERR_FLAKE_LEASE_EXPIRED', `the lease on generator id ${this.#held?.id} in namespace ${describe(this.#o.namespace)} expired: no renewal was acknowledged before its ceiling`, this.#lastError)
    this.#o.onLost?.(error)
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
          await sleep(this.#o.ttl / 6)
        }
      }
    } finally {
      this.#acquiring = false
    }
  }
}

/**
 * A generator leased from `options.store` (see the README's "Fleets"); `make(options, lease)`
 * makes the FlakeId that `lease` drives.
 */
async function lease(options, make) {
  const o = read(options)
  let lease
  const generator = make(o.generator, (call, settingsFor) => (lease = new Lease(o, call, settingsFor)))
  await lease.start()
  return generator
}

module.exports = { lease }

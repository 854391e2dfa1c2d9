'use strict'

// One process's lease in a namespace, and the generator it drives: a holder issues nothing past
// the ceiling the store acknowledged, and its successor nothing at or below it. So holders'
// timestamps never overlap, whatever pauses, kills, lost renewals or clock skew do. The store
// adapters (one file each, listed in stores.js) make each step one atomic compare-and-set on the
// owner token.

const os = require('node:os')
const { randomUUID } = require('node:crypto')
const { performance } = require('node:perf_hooks')
const { setTimeout, clearTimeout } = require('node:timers')
const native = require('../binding/native.js')
const { systemNowMs } = require('../binding/load-binding.js')
const { AbortError, codedError, describe } = require('../errors/errors.js')
const { sleep } = require('../generator/wait.js')
const { storeError } = require('./replies.js')
const { turn, IN_FLIGHT } = require('./gate.js')

// The store failures acquire tries again: calls not answered in time, and the client's own
// failures. A reply that is not the store's answer is not among them.
const TRANSIENT = new WeakSet()

/** Calls the user's `callback` with `args`; what it throws is thrown where no lease code catches it. */
function report(callback, ...args) {
  if (callback === undefined) return
  try {
    callback(...args)
  } catch (error) {
    process.nextTick(() => {
      throw error
    })
  }
}

/** Resolves once `promise` settles, `ms` pass, or `signal` aborts, whichever comes first. */
function settled(promise, ms, signal) {
  if (!(ms > 0) || signal?.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
    promise.then(done, done)
  })
}

/**
 * One process's lease in a namespace, and the generator it drives: through native.js, the
 * generator's fields get the leased id, its state (the one every generator of the id on the
 * host shares, whatever the namespace) raised above the lease's floor, and each ceiling the
 * store acknowledges; nothing else changes them.
 */
class Lease {
  // The lease's configuration (see options.js), its store adapter, the generator's fields.
  #config
  #store
  #fields
  #now
  // Each attempt to acquire has an owner token of its own ("host:pid:uuid"), kept with the lease
  // it took: the late answer of an attempt given up on is given back under its own token, which
  // can never release the lease of another attempt, even one of the same id.
  #host = `${os.hostname()}:${process.pid}`
  #meta
  // How far past the store's time a ceiling runs: a holder whose clock is ahead by up to
  // maxClockSkewMs still has a ttl of ids before it.
  #ahead
  // The lease the generator issues under, and one acquired but not installed yet.
  #held
  #next
  #timer
  #closed = false
  #acquiring = false
  #started = false
  #lastError
  // The message of the last lasting failure told to onLost (#tellLasting).
  #toldFailure

  /** A lease for `config` from `store`, driving the leased `fields` of a generator of `epoch`. */
  constructor(config, store, fields, epoch) {
    this.#config = config
    this.#store = store
    this.#fields = fields
    const { clock } = config.generator
    // The holder's clock is the generator's: its ids' timestamps are that clock's. The system's
    // is read as the native side reads it, not by Date.now, which fake timers in a user's tests
    // replace (and stop: the lease would wait for a floor its ids passed long ago).
    this.#now = clock === undefined ? systemNowMs : () => Math.floor(clock())
    this.#ahead = config.ttl + config.maxClockSkewMs
    // The layout's key goes into the namespace's marker with the epoch: holders that read ids
    // differently must not share a namespace ('42/10/12' for the default, as before layouts).
    const { key } = config.generator.layout
    this.#meta = JSON.stringify({ layout: key, epoch, ttl: config.ttl, maxClockSkewMs: config.maxClockSkewMs })
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

  /**
   * Why a member serving this lease's ids to clients (generator.batchHandler) must refuse now, or
   * undefined: a lease closed, lost (its ceiling is still safe, but a client that fails over to
   * another member gets ids at once, where this one would wait for a new lease), or past its
   * ceiling with no renewal acknowledged.
   */
  get refusal() {
    const held = this.#held
    const { namespace } = this.#config
    if (this.#closed) return codedError(Error, 'ERR_FLAKE_LEASE_CLOSED', 'the lease was closed: it issues no more ids')
    if (held === undefined || held.lost)
      return codedError(
        Error,
        'ERR_FLAKE_LEASE_EXPIRED',
        `the lease ${held === undefined ? '' : `on generator id ${held.id} `}in namespace ${describe(namespace)} was lost: no ids are served until another is had`,
      )
    if (this.#now() > native.ceilingOf(this.#fields))
      return codedError(
        Error,
        'ERR_FLAKE_LEASE_EXPIRED',
        `the lease on generator id ${held.id} in namespace ${describe(namespace)} is past its ceiling: no renewal was acknowledged`,
        this.#lastError,
      )
    return undefined
  }

  /** Acquires the first lease and installs it, waiting as long as its floor requires. */
  async start() {
    const { signal, acquireTimeout } = this.#config
    try {
      for (;;) {
        const lease = await this.#acquire(signal, acquireTimeout)
        this.#next = lease
        await this.#prepare(lease)
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
    if (held !== undefined && !held.lost) releases.push(this.#release(held, Math.max(held.floor, last ?? held.floor)))
    if (this.#next !== undefined) releases.push(this.#release(this.#next, this.#next.floor))
    this.#held = this.#next = undefined
    try {
      await Promise.all(releases)
    } finally {
      await this.#store.close()
    }
  }

  #release(lease, last) {
    const { namespace } = this.#config
    return this.#timed(this.#store.release({ namespace, id: lease.id, owner: lease.owner, last }))
  }

  /**
   * A store call that answers within a third of the ttl, or fails with an ERR_FLAKE_LEASE_STORE:
   * one that did not answer in time, or whose client failed, is TRANSIENT (acquire tries again).
   */
  #timed(promise) {
    const { kind } = this.#store
    const ms = Math.ceil(this.#config.ttl / 3)
    let timer
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => {
        const error = codedError(
          Error,
          'ERR_FLAKE_LEASE_STORE',
          `the lease store (${kind}) did not answer within ${ms} ms`,
        )
        TRANSIENT.add(error)
        reject(error)
      }, ms)
    })
    return Promise.race([promise, late])
      .catch((error) => {
        if (/^ERR_FLAKE_/.test(error?.code)) throw error
        const why = error?.message || error?.code || String(error)
        const failed = codedError(Error, 'ERR_FLAKE_LEASE_STORE', `the lease store (${kind}) failed: ${why}`, error)
        TRANSIENT.add(failed)
        throw failed
      })
      .finally(() => clearTimeout(timer))
  }

  /**
   * A store call, timed, whose answer carries the store's time: with it, the skew of the
   * holder's clock, refused past maxClockSkewMs (beyond the round trip's margin).
   */
  async #call(promise) {
    const before = performance.now()
    const local = this.#now()
    const answer = await this.#timed(promise)
    if (answer.now === undefined) return { answer }
    const roundTrip = performance.now() - before
    const skew = local + roundTrip / 2 - answer.now
    const { maxClockSkewMs } = this.#config
    if (Math.abs(skew) <= maxClockSkewMs + roundTrip / 2) return { answer }
    const error = codedError(
      Error,
      'ERR_FLAKE_CLOCK_SKEW',
      `the clock reads ${Math.round(Math.abs(skew))} ms ${skew > 0 ? 'ahead of' : 'behind'} the lease store's (${this.#store.kind}), more than maxClockSkewMs (${maxClockSkewMs})`,
    )
    return { answer, skewed: error }
  }

  /**
   * A lease: waits while the pool is exhausted, and tries again while the store fails or is
   * slow, up to `timeout` ms of real time.
   */
  async #acquire(signal, timeout) {
    const { namespace, ids, ttl, onWait } = this.#config
    const [first, last] = ids
    const deadline = performance.now() + timeout
    for (;;) {
      if (signal?.aborted) throw new AbortError(signal)
      if (this.#closed) throw codedError(Error, 'ERR_FLAKE_LEASE_CLOSED', 'the lease was closed while it acquired')
      let status
      let retryIn = Math.min(ttl / 3, 1000)
      try {
        const answer = await this.#attempt(deadline, signal)
        if (answer.status === 'acquired') return answer
        status = answer.status
        // Polled, not only at the earliest expiry: a holder that closes frees its id at once.
        if (status === 'exhausted') retryIn = Math.min((answer.retryAt ?? answer.now) - answer.now, ttl / 10, 1000)
      } catch (error) {
        if (!TRANSIENT.has(error)) throw error
        this.#lastError = error
        this.#reportExpired()
        status = 'store'
        // Spread out, so that holders that failed together do not come back together.
        retryIn = Math.min(ttl / 10, 1000) * (0.5 + Math.random() / 2)
      }
      const left = deadline - performance.now()
      if (left <= 0) {
        if (status === 'store') {
          throw codedError(
            Error,
            'ERR_FLAKE_LEASE_STORE',
            `the lease store (${this.#store.kind}) leased no generator id within acquireTimeout (${timeout} ms): ${this.#lastError.message}`,
            this.#lastError,
          )
        }
        const why = status === 'exhausted' ? 'free' : `acknowledged by ${this.#config.replicas} replicas`
        throw codedError(
          Error,
          'ERR_FLAKE_NO_FREE_ID',
          `no generator id of ${first}–${last} is ${why} in namespace ${describe(namespace)} after ${timeout} ms`,
        )
      }
      const ms = Math.min(Math.max(retryIn, 10), left)
      report(onWait, Math.ceil(ms), status)
      await sleep(ms, signal)
    }
  }

  /** One acquire, in its turn among this process's acquires on the same client (gate.js). */
  async #attempt(deadline, signal) {
    const end = await turn(this.#config.store, deadline - performance.now(), signal)
    if (end === null) {
      if (signal?.aborted) throw new AbortError(signal)
      const error = codedError(
        Error,
        'ERR_FLAKE_LEASE_STORE',
        `its turn never came: this process's leases acquire ${IN_FLIGHT} at a time on one client, and others held every turn all that time (more leases starting together on one client need a longer acquireTimeout)`,
      )
      TRANSIENT.add(error)
      throw error
    }
    try {
      return await this.#attemptOnce(deadline, signal)
    } finally {
      end()
    }
  }

  /**
   * One acquire, under an owner token of its own: its answer, with the token as `owner`. An
   * answer that is not ours to use (a clock the fences cannot trust, or replicas that did not
   * acknowledge) is handed back at once: nothing was issued under it. A call that timed out
   * may still take an id: it is handed back when its answer comes, and the turn is kept until
   * then (or a ttl, or the deadline), so a slow store is given no more work than it has.
   */
  async #attemptOnce(deadline, signal) {
    const store = this.#store
    const { namespace, ids, ttl, maxClockSkewMs } = this.#config
    const [first, last] = ids
    const owner = `${this.#host}:${randomUUID()}`
    const pending = store.acquire({
      namespace,
      first,
      last,
      owner,
      ttl,
      ahead: this.#ahead,
      meta: this.#meta,
      unknownMs: ttl + maxClockSkewMs,
    })
    let answer, skewed
    try {
      ;({ answer, skewed } = await this.#call(pending))
    } catch (error) {
      const givenBack = pending.then(
        (late) => this.#giveBack(late, owner),
        () => {},
      )
      await settled(givenBack, Math.min(deadline - performance.now(), ttl), signal)
      throw error
    }
    if (answer.status === 'mismatch') {
      throw codedError(
        Error,
        'ERR_FLAKE_LEASE_MISMATCH',
        `namespace ${describe(namespace)} is leased with other settings (${answer.meta}), not ${this.#meta}: they change once no lease of the old ones is live`,
      )
    }
    if (answer.status === 'acquired' && !(answer.id >= first && answer.id <= last)) {
      throw storeError(store.kind, `replied generator id ${answer.id} to acquire, not one of ${first}–${last}`)
    }
    const lease = { ...answer, owner }
    if (answer.status === 'acquired' || answer.status === 'unreplicated') {
      if (skewed === undefined && answer.status === 'acquired') return lease
      await this.#giveBack(lease, owner)
      if (skewed !== undefined) throw skewed
    }
    return lease
  }

  /** Hands back what an acquire answered, if it took an id: released at its floor. */
  #giveBack(answer, owner) {
    if (answer?.status !== 'acquired' && answer?.status !== 'unreplicated') return
    if (!Number.isInteger(answer.id) || typeof answer.floor !== 'number') return
    return this.#release({ id: answer.id, owner }, answer.floor).catch(() => {})
  }

  /** Resolves once the holder's clock is past `floor`. */
  async #untilPast(floor, signal) {
    const waiting = floor - this.#now() + 1
    if (waiting > 0) report(this.#config.onWait, waiting, 'floor')
    for (let now = this.#now(); now <= floor; now = this.#now()) {
      // A clock of the user's is read every millisecond: it need not follow real time.
      await sleep(this.#config.generator.clock === undefined ? Math.min(floor - now + 1, 1000) : 1, signal)
      if (this.#closed)
        throw codedError(Error, 'ERR_FLAKE_LEASE_CLOSED', 'the lease was closed while it waited for its floor')
    }
  }

  /**
   * Finds the state `lease`'s id issues from (as a plain generator of the id finds it): a state
   * directory that cannot be used fails here, before any wait, and the id goes back at once.
   */
  async #prepare(lease) {
    try {
      lease.state = native.leaseState(this.#config.generator, lease.id)
    } catch (error) {
      if (this.#next === lease) this.#next = undefined
      await this.#release(lease, lease.floor).catch(() => {})
      throw error
    }
  }

  /** Makes `lease` the one the generator issues under: its id, above its floor, to its ceiling. */
  #install(lease) {
    if (this.#closed) return
    native.installLease(this.#fields, lease.state, lease.floor, lease.ceiling)
    this.#held = lease
    if (this.#next === lease) this.#next = undefined
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
        const { answer, skewed } = await this.#call(
          store.renew({ namespace, id: lease.id, owner: lease.owner, ttl, ahead: this.#ahead, meta: this.#meta }),
        )
        if (this.#closed) return
        if (skewed !== undefined) {
          // Its ceiling is safe whatever the clock does, but the fences assume clocks within
          // maxClockSkewMs: the holder stops, hands the id back, and says so.
          this.#lose(lease, skewed, true)
        } else if (answer.status === 'renewed') {
          this.#lastError = undefined
          lease.ceiling = answer.ceiling
          lease.reported = false
          if (lease === this.#held) native.setCeiling(this.#fields, answer.ceiling)
        } else if (answer.status === 'unreplicated') {
          failed = true
          this.#lastError = codedError(
            Error,
            'ERR_FLAKE_LEASE_STORE',
            `the lease store (${store.kind}) had the renewal acknowledged by ${answer.acked} of ${this.#config.replicas} replicas`,
          )
        } else {
          // Taken over, or the store lost its data: keep issuing up to the ceiling we have (no
          // successor starts below it), and get another lease meanwhile.
          this.#lose(
            lease,
            codedError(
              Error,
              'ERR_FLAKE_LEASE_EXPIRED',
              `the lease on generator id ${lease.id} in namespace ${describe(namespace)} was lost: the store no longer holds it (taken over after an expiry, its data lost, or the namespace's settings changed)`,
            ),
            false,
          )
        }
      } catch (error) {
        failed = true
        this.#lastError = error
        this.#tellLasting(error)
      }
    }
    if (this.#closed) return
    this.#reportExpired()
    if (this.#started && (this.#held?.lost || this.#held === undefined) && this.#next === undefined) this.#reacquire()
    this.#schedule(failed ? ttl / 6 : ttl / 3)
  }

  /** `lease` is no longer ours: told to onLost once; `stop` fences it at the last id issued. */
  #lose(lease, error, stop) {
    lease.lost = true
    if (lease === this.#next) {
      this.#next = undefined
      if (stop) this.#release(lease, lease.floor).catch(() => {})
      return
    }
    if (stop) {
      const last = Math.max(lease.floor, native.lastIssuedAt(this.#fields) ?? lease.floor)
      native.setCeiling(this.#fields, Math.min(native.ceilingOf(this.#fields), last))
      this.#release(lease, last).catch(() => {})
    }
    if (!lease.reported) {
      lease.reported = true
      report(this.#config.onLost, error)
    }
  }

  /**
   * Tells onLost a renewal's or background acquire's failure that no wait mends (not TRANSIENT: a
   * ZooKeeper client closed for good, a record of the wrong shape), once per message: the loss
   * it causes is told at the ceiling with only the last failure as its cause.
   */
  #tellLasting(error) {
    if (TRANSIENT.has(error) || error.message === this.#toldFailure) return
    this.#toldFailure = error.message
    report(this.#config.onLost, error)
  }

  /** Tells onLost, once per loss, when the generator passed its ceiling with no renewal acknowledged. */
  #reportExpired() {
    const held = this.#held
    if (held === undefined || held.reported || this.#now() <= native.ceilingOf(this.#fields)) return
    if (!held.lost && this.#lastError === undefined) return
    held.reported = true
    const error = codedError(
      Error,
      'ERR_FLAKE_LEASE_EXPIRED',
      `the lease on generator id ${held.id} in namespace ${describe(this.#config.namespace)} expired: no renewal was acknowledged before its ceiling`,
      this.#lastError,
    )
    report(this.#config.onLost, error)
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
          await this.#prepare(lease)
          await this.#untilPast(lease.floor)
          if (this.#next === lease) this.#install(lease)
          return
        } catch (error) {
          this.#lastError = error
          if (this.#closed) return
          this.#reportExpired()
          this.#tellLasting(error)
          report(
            this.#config.onWait,
            Math.ceil(this.#config.ttl / 6),
            error.code === 'ERR_FLAKE_CLOCK_SKEW' ? 'skew' : 'store',
          )
          await sleep(this.#config.ttl / 6)
        }
      }
    } finally {
      this.#acquiring = false
    }
  }
}

module.exports = Lease

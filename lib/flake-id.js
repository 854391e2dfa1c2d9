'use strict'

const native = require('./native.js')
const Counts = require('./stats.js')
const Callbacks = require('./callbacks.js')
const batchAsync = require('./batch-async.js')
const leases = require('./lease/index.js')

const { fill, fillBy, takeId, takeBigInt, PRIVATE_SLOT } = native
const readOnly = (value) => ({ value, enumerable: true })
// Passed by FlakeId.lease() alone: the constructor makes a leased generator with it.
const LEASED = Symbol('leased')

class FlakeId {
  // What each call for this generator writes into the scratch (see native.js).
  #call
  #clock
  #counts = new Counts()
  // Made on the first next(cb): most instances never take a callback.
  #callbacks

  constructor(options, lease, leased) {
    const configured = native.configure(leased === LEASED ? { ...options, id: 0, scope: 'process' } : options)
    this.#call = configured.call
    this.#clock = configured.clock
    let id = readOnly(configured.id)
    if (leased === LEASED) {
      // A private state, whose id, floor and ceiling the lease sets (see lease/index.js).
      const { settings, epoch } = configured.call
      this.#call = new native.Call(PRIVATE_SLOT, settings, epoch)
      const driver = lease(this.#call, (leasedId) => native.configure({ ...options, id: leasedId, scope: 'process' }).settings)
      id = { get: () => driver.id, enumerable: true }
      Object.defineProperties(this, {
        close: { value: () => driver.close() },
        lease: { get: () => driver.fence },
      })
    }
    Object.defineProperties(this, {
      options: readOnly(options == null ? {} : options),
      id,
      datacenter: readOnly(configured.datacenter),
      worker: readOnly(configured.worker),
      epoch: readOnly(configured.epoch),
      seqMask: readOnly(configured.seqMask),
      allowedFutureMs: readOnly(configured.allowedFutureMs),
      scope: readOnly(configured.scope),
    })
  }

  /**
   * A generator whose id is leased from a Redis or PostgreSQL store, unique among the live
   * holders of its namespace, its timestamps fenced by the ceilings the store acknowledged.
   */
  static lease(options) {
    return leases.lease(options, (generatorOptions, lease) => new FlakeId(generatorOptions, lease, LEASED))
  }

  static decompose(id, options) {
    return native.decompose(id, options)
  }

  static fromTime(time, options) {
    return native.fromTime(time, options)
  }

  next(cb) {
    if (!cb) {
      this.#take()
      return takeId()
    }
    if (typeof cb !== 'function') {
      const error = new TypeError(`The "cb" argument must be a function, got ${typeof cb}`)
      error.code = 'ERR_INVALID_ARG_TYPE'
      throw error
    }
    ;(this.#callbacks ??= new Callbacks(this.#call, this.#clock, this.#counts)).push(cb)
  }

  nextBigInt() {
    this.#take()
    return takeBigInt()
  }

  nextString() {
    this.#take()
    return takeBigInt().toString()
  }

  nextAsync() {
    return new Promise((resolve, reject) => {
      // By arity, not by `error`: a clock may throw a falsy value.
      this.next(function settle(error, id) {
        if (arguments.length === 1) reject(error)
        else resolve(id)
      })
    })
  }

  nextBatch(count) {
    return this.#counted(native.batch(this.#call, count, this.#clock))
  }

  nextBatchAsync(count, options) {
    return batchAsync(this.#call, this.#clock, this.#counts, count, options)
  }

  stats() {
    return this.#counts.snapshot()
  }

  /** The ids of a batch, counted with what it met; or throws why it failed. */
  #counted(outcome) {
    this.#counts.add(outcome)
    if (outcome.ids === undefined) throw outcome.error
    this.#counts.ids += outcome.ids.length / 8
    return outcome.ids
  }

  /** One id into the scratch, counted. */
  #take() {
    const call = this.#call
    let report
    try {
      // One native function for every generator, told apart by what the call writes into the
      // scratch: the call site stays monomorphic however many generators it serves.
      report = call.slot !== PRIVATE_SLOT ? fill(call) : fillBy(call, this.#clock)
    } catch (error) {
      this.#counts.refused(error)
      throw error
    }
    this.#counts.ids++
    if (report !== undefined) this.#counts.met(report)
  }
}

module.exports = FlakeId
module.exports.FlakeId = FlakeId
module.exports.default = FlakeId

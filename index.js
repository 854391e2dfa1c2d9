'use strict'

// From the module, not the global: the global `Buffer` is an accessor.
const { Buffer } = require('node:buffer')
const native = require('./native.js')
const Counts = require('./counts.js')
const Callbacks = require('./callbacks.js')

const { fill, fillAt, takeId, takeBigInt } = native
const readOnly = (value) => ({ value, enumerable: true })

class FlakeId {
  // Holds the native generator's slot for as long as this instance lives (see native.js).
  #source
  #slot
  #clock
  #counts = new Counts()
  // Made on the first next(cb): most instances never take a callback.
  #callbacks

  constructor(options) {
    const configured = native.configure(options)
    this.#source = configured.source
    this.#slot = configured.slot
    this.#clock = configured.clock
    Object.defineProperties(this, {
      options: readOnly(options == null ? {} : options),
      id: readOnly(configured.id),
      datacenter: readOnly(configured.datacenter),
      worker: readOnly(configured.worker),
      epoch: readOnly(configured.epoch),
      seqMask: readOnly(configured.seqMask),
      allowedFutureMs: readOnly(configured.allowedFutureMs),
      scope: readOnly(configured.scope),
    })
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
    ;(this.#callbacks ??= new Callbacks(this.#source, this.#clock, this.#counts)).push(cb)
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
    return this.#counted(native.batch(this.#slot, count, this.#clock))
  }

  async nextBatchAsync(count) {
    if (this.#clock === undefined) return this.#counted(await native.batchAsync(this.#slot, count))
    // The user's clock can only be read on this thread: take the ids one by one, waiting
    // between milliseconds as nextAsync() does.
    const ids = Buffer.alloc(native.checkCount(count) * 8)
    for (let offset = 0; offset < ids.length; offset += 8) ids.set(await this.nextAsync(), offset)
    return ids
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
    const clock = this.#clock
    let report
    try {
      // One native function for every generator, told apart by slot: the call site stays
      // monomorphic however many generators it serves.
      report = clock === undefined ? fill(this.#slot) : fillAt(this.#slot, clock())
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

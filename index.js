'use strict'

// From the module, not the global: the global `Buffer` is an accessor, which costs a few ns on
// every next().
const { Buffer } = require('node:buffer')
const { createGenerator, scratch, decompose, fromTime } = require('./load.js')
const Queue = require('./queue.js')

// Each id function of this thread writes its id into this one Buffer; `next()` copies it out
// into a Buffer of its own (own 8-byte ArrayBuffer, as flake-idgen's are), so no id is shared.
const idBytes = scratch()
const idView = new DataView(idBytes.buffer, idBytes.byteOffset, 8)

// Where runs of ids for queued next(cb) calls are written: one millisecond's worth at most.
// Allocated off the V8 heap so it never moves and native code can fill it in place.
const runBytes = Buffer.allocUnsafeSlow(4096 * 8)

/** A Buffer of its own holding the id at `offset` of `bytes`. */
function copyId(bytes, offset) {
  const id = Buffer.alloc(8)
  for (let i = 0; i < 8; i++) id[i] = bytes[offset + i]
  return id
}

function takeId() {
  const id = Buffer.alloc(8)
  // Byte by byte: for 8 bytes the JIT's stores beat a call to the set() builtin by ~10 ns.
  id[0] = idBytes[0]
  id[1] = idBytes[1]
  id[2] = idBytes[2]
  id[3] = idBytes[3]
  id[4] = idBytes[4]
  id[5] = idBytes[5]
  id[6] = idBytes[6]
  id[7] = idBytes[7]
  return id
}

const readOnly = (value) => ({ value, enumerable: true })

/** Answers a next(cb) call: `cb(value)` if it failed, else `cb(null, value)`. */
function call(cb, failed, value) {
  if (failed) cb(value)
  else cb(null, value)
}

class FlakeId {
  #fill
  #tryFill
  #handle
  #clock
  // Callbacks of next(cb) waiting for an id, answered strictly in call order.
  #pending = new Queue()
  // True while #answer runs: a callback it calls may call next(cb), which then only queues.
  #answering = false
  // True while a timer to answer the queue is set.
  #scheduled = false
  #answerLater = () => {
    this.#scheduled = false
    this.#answer(true)
  }

  constructor(options) {
    const native = createGenerator(options)
    const clock = options == null ? undefined : options.clock
    this.#handle = native.handle
    if (clock == null) {
      this.#fill = native.fill
      this.#tryFill = native.tryFill
    } else {
      const { fill, tryFill } = native
      this.#clock = clock
      this.#fill = () => fill(clock())
      this.#tryFill = () => tryFill(clock())
    }
    Object.defineProperties(this, {
      options: readOnly(options == null ? {} : options),
      id: readOnly(native.id),
      datacenter: readOnly(native.datacenter),
      worker: readOnly(native.worker),
      epoch: readOnly(native.epoch),
      seqMask: readOnly(native.seqMask),
      allowedFutureMs: readOnly(native.allowedFutureMs),
    })
  }

  static decompose(id, options) {
    return decompose(id, options)
  }

  static fromTime(time, options) {
    return fromTime(time, options)
  }

  nextBigInt() {
    this.#fill()
    return idView.getBigUint64(0)
  }

  nextString() {
    this.#fill()
    return idView.getBigUint64(0).toString()
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
    return this.#handle.batch(count, this.#clock)
  }

  async nextBatchAsync(count) {
    if (this.#clock === undefined) {
      const ids = await this.#handle.batchAsync(count)
      if (!Buffer.isBuffer(ids)) throw ids
      return ids
    }
    // The user's clock can only be read on this thread: take the ids one by one, waiting
    // between milliseconds as nextAsync() does.
    const ids = Buffer.alloc(this.#handle.checkCount(count) * 8)
    for (let offset = 0; offset < ids.length; offset += 8) ids.set(await this.nextAsync(), offset)
    return ids
  }

  stats() {
    return this.#handle.stats()
  }

  next(cb) {
    if (!cb) {
      this.#fill()
      return takeId()
    }
    if (typeof cb !== 'function') {
      const error = new TypeError(`The "cb" argument must be a function, got ${typeof cb}`)
      error.code = 'ERR_INVALID_ARG_TYPE'
      throw error
    }
    const queued = this.#pending.push(cb)
    // Only a call that finds nobody waiting may be answered now; the others queue behind. In a
    // long synchronous burst the timer cannot fire, so every 256th call also answers what the
    // system clock allows by now: otherwise each millisecond of the burst would go unused. (A
    // user's clock is not read for it: a scripted one would lose readings to it.)
    const answerNow = queued === 1 || ((queued & 255) === 0 && this.#clock === undefined)
    if (answerNow && !this.#answering) this.#answer(false)
  }

  #answer(later) {
    const pending = this.#pending
    this.#answering = true
    try {
      while (pending.length > 0) {
        // On the system clock, several waiting calls take a run of ids in one native call.
        const run = pending.length > 1 && this.#clock === undefined
        let wait
        let ids = 1
        let failed = false
        let error
        try {
          if (run) {
            ids = this.#handle.tryFillRun(runBytes, pending.length)
            if (ids < 0) wait = -ids
          } else {
            wait = this.#tryFill()
          }
        } catch (thrown) {
          // A flag, not `if (error)`: a clock may throw a falsy value, and no id was issued.
          failed = true
          error = thrown
        }
        if (wait !== undefined) {
          this.#schedule(wait)
          return
        }
        // A call answered on a later turn than its own is asynchronous already: answer it
        // directly. Otherwise through the outbox, on the nextTick queue.
        const answer = later ? call : this.#post
        if (failed) answer(pending.shift(), true, error)
        else if (!run) answer(pending.shift(), false, takeId())
        else for (let offset = 0; offset < ids * 8; offset += 8) answer(pending.shift(), false, copyId(runBytes, offset))
      }
    } finally {
      this.#answering = false
      // A callback threw out of a direct answer: the rest are answered on a later turn.
      if (pending.length > 0) this.#schedule(1)
    }
  }

  // Answers for the nextTick queue, in call order: one tick delivers all that are ready, which
  // costs less than a tick each in a burst, and keeps the order should a callback throw.
  #outbox = new Queue()
  #delivering = false
  #post = (cb, failed, value) => {
    this.#outbox.push(cb)
    this.#outbox.push(failed)
    this.#outbox.push(value)
    if (!this.#delivering) {
      this.#delivering = true
      process.nextTick(this.#deliver)
    }
  }

  #deliver = () => {
    const outbox = this.#outbox
    try {
      while (outbox.length > 0) call(outbox.shift(), outbox.shift(), outbox.shift())
    } finally {
      // Should a callback throw, the rest are delivered on the next tick, still first.
      if (outbox.length > 0) process.nextTick(this.#deliver)
      else this.#delivering = false
    }
  }

  #schedule(wait) {
    if (this.#scheduled) return
    this.#scheduled = true
    // A clock of the user's may stand still (a fake one in tests): no busy polling on it.
    if (this.#clock !== undefined) setTimeout(this.#answerLater, wait)
    // Overflow clears within the millisecond: poll with setImmediate, not setTimeout(1), which
    // waits 1-2 ms and would cap a burst far below the 4,096 ids per ms available.
    else if (wait <= 1) setImmediate(this.#answerLater)
    else setTimeout(this.#answerLater, wait - 1)
  }
}

module.exports = FlakeId
module.exports.FlakeId = FlakeId
module.exports.default = FlakeId

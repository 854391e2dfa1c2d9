'use strict'

const { createGenerator, scratch, decompose, fromTime } = require('./binding.js')

// Each id function of this thread writes its id into this one Buffer; `next()` copies it out
// into a Buffer of its own (own 8-byte ArrayBuffer, as flake-idgen's are), so no id is shared.
const idBytes = scratch()
const idView = new DataView(idBytes.buffer, idBytes.byteOffset, 8)

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

class FlakeId {
  #fill
  #tryFill
  #handle
  #clock
  // Callbacks of next(cb) waiting for an id, answered strictly in call order from #head on.
  #pending = []
  #head = 0
  #answerLater = () => this.#answer()

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
    // Only a call that finds nobody waiting may be answered now; the others queue behind.
    if (this.#pending.push(cb) - this.#head === 1) this.#answer()
  }

  #answer() {
    const pending = this.#pending
    while (this.#head < pending.length) {
      let wait
      let failed = false
      let error
      try {
        wait = this.#tryFill()
      } catch (thrown) {
        // A flag, not `if (error)`: a clock may throw a falsy value, and no id was issued.
        failed = true
        error = thrown
      }
      if (wait !== undefined) {
        // Overflow clears within the millisecond: poll with setImmediate, not setTimeout(1),
        // which waits 1-2 ms and would cap a burst far below the 4,096 ids per ms available.
        if (wait <= 1) setImmediate(this.#answerLater)
        else setTimeout(this.#answerLater, wait - 1)
        return
      }
      const cb = pending[this.#head]
      pending[this.#head++] = undefined
      if (failed) process.nextTick(cb, error)
      else process.nextTick(cb, null, takeId())
    }
    pending.length = 0
    this.#head = 0
  }
}

module.exports = FlakeId
module.exports.FlakeId = FlakeId
module.exports.default = FlakeId

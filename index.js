'use strict'

const { createGenerator, scratch } = require('./load.js')

// Each id function of this thread writes its id into this one Buffer; `next()` copies it out
// into a Buffer of its own (own 8-byte ArrayBuffer, as flake-idgen's are), so no id is shared.
const idBytes = scratch()

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
  // Callbacks of next(cb) waiting for an id, answered strictly in call order from #head on.
  #pending = []
  #head = 0
  #answerLater = () => this.#answer()

  constructor(options) {
    const native = createGenerator(options)
    const clock = options == null ? undefined : options.clock
    if (clock == null) {
      this.#fill = native.fill
      this.#tryFill = native.tryFill
    } else {
      const { fill, tryFill } = native
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
    })
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

'use strict'

// From the module, not the global: the global `Buffer` is an accessor, which costs a few ns on
// every next().
const { Buffer } = require('node:buffer')
const { createGenerator, createSource, scratch, decompose, fromTime } = require('./load.js')
const Queue = require('./queue.js')

// The id functions of this thread write their ids into this one Buffer; `next()` copies each
// out into a Buffer of its own (own 8-byte ArrayBuffer, as flake-idgen's are), so no id is
// shared. A single id is also written in the platform's byte order at offset 8, where a
// BigUint64Array reads it as a bigint in half the time a DataView takes for big-endian.
const idBytes = scratch()
const idNumbers = new BigUint64Array(idBytes.buffer, idBytes.byteOffset, 2)

// What the id functions report besides the ids (src/js/report.rs): `count * 4 + met` when
// ids were issued, `-(waitMs * 4 + met)` when none was yet; `met` says what the call met.
const OVERFLOW = 1
const CLOCK_BEHIND = 2

// Instances of one configuration on the system clock share their id functions, so that an
// instance costs no native memory. Held weakly: a configuration no instance uses is let go.
const sources = new Map()
const forget = new FinalizationRegistry((key) => {
  if (sources.get(key)?.deref() === undefined) sources.delete(key)
})

function sourceOf(config) {
  // A clock of the instance's own comes with a state of its own.
  if (config.customClock) return createSource(config)
  const key = `${config.id} ${config.epoch} ${config.seqMask} ${config.allowedFutureMs}`
  let source = sources.get(key)?.deref()
  if (source === undefined) {
    source = createSource(config)
    sources.set(key, new WeakRef(source))
    forget.register(source, key)
  }
  return source
}

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
  #source
  #fill
  #tryFill
  #clock
  // This instance's counters (see stats()): the native side is shared, so it reports to these.
  #ids = 0
  #overflows = 0
  #clockBackwards = 0
  #waits = 0
  // The call at the head of the next(cb) queue waits, and is counted already.
  #waitCounted = false
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
    const source = sourceOf(native)
    this.#source = source
    if (clock == null) {
      this.#fill = source.fill
      this.#tryFill = source.tryFill
    } else {
      const { fill, tryFill } = source
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
    this.#take()
    return idNumbers[1]
  }

  nextString() {
    this.#take()
    return idNumbers[1].toString()
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
    return this.#counted(this.#source.batches.batch(count, this.#clock))
  }

  async nextBatchAsync(count) {
    if (this.#clock === undefined) return this.#counted(await this.#source.batches.batchAsync(count))
    // The user's clock can only be read on this thread: take the ids one by one, waiting
    // between milliseconds as nextAsync() does.
    const ids = Buffer.alloc(this.#source.batches.checkCount(count) * 8)
    for (let offset = 0; offset < ids.length; offset += 8) ids.set(await this.nextAsync(), offset)
    return ids
  }

  /** The ids of a batch, counted with what it met; or throws why it failed. */
  #counted({ ids, error, overflows, clockBackwards, waits }) {
    this.#overflows += overflows
    this.#clockBackwards += clockBackwards
    this.#waits += waits
    if (ids === undefined) throw error
    this.#ids += ids.length / 8
    return ids
  }

  stats() {
    return { ids: this.#ids, overflows: this.#overflows, clockBackwards: this.#clockBackwards, waits: this.#waits }
  }

  /** One id into idBytes, counted. */
  #take() {
    let report
    try {
      report = this.#fill()
    } catch (error) {
      const code = error == null ? undefined : error.code
      if (code === 'ERR_FLAKE_SEQUENCE_OVERFLOW') this.#overflows++
      else if (code === 'ERR_FLAKE_CLOCK_BACKWARDS') this.#clockBackwards++
      throw error
    }
    this.#ids++
    if (report !== undefined) this.#met(report & 3)
  }

  #met(met) {
    if (met === OVERFLOW) this.#overflows++
    else if (met === CLOCK_BEHIND) this.#clockBackwards++
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
        let report
        let failed = false
        let error
        try {
          report = run ? this.#source.fillRun(pending.length) : this.#tryFill()
        } catch (thrown) {
          // A flag, not `if (error)`: a clock may throw a falsy value, and no id was issued.
          failed = true
          error = thrown
        }
        if (report < 0) {
          const met = -report % 4
          // Counted once per waiting call, however often it polls.
          if (!this.#waitCounted) {
            this.#waitCounted = true
            this.#waits++
            this.#met(met)
          }
          this.#schedule((-report - met) / 4)
          return
        }
        this.#waitCounted = false
        // A call answered on a later turn than its own is asynchronous already: answer it
        // directly. Otherwise through the outbox, on the nextTick queue.
        const answer = later ? call : this.#post
        if (failed) {
          answer(pending.shift(), true, error)
          continue
        }
        if (report !== undefined) this.#met(report & 3)
        if (!run) {
          this.#ids++
          answer(pending.shift(), false, takeId())
          continue
        }
        const count = report >>> 2
        this.#ids += count
        // All out of the scratch before any callback runs: one may take ids of its own.
        const ids = new Array(count)
        for (let i = 0; i < count; i++) ids[i] = copyId(idBytes, i * 8)
        for (let i = 0; i < count; i++) answer(pending.shift(), false, ids[i])
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

'use strict'

const { Buffer } = require('node:buffer')
const binding = require('../binding/load-binding.js')
const native = require('../binding/native.js')
const { installIdMethods, TAKE_ID, TAKE_BIGINT, TAKE_TEXT, CALL_BACK } = require('../formats/id-methods.js')

// Loaded by the first call that needs them: most processes never take a callback, an async
// batch or a lease, and every process pays at its start for what it loads then.
let Callbacks
let batchAsync
let lease
let batchHandler
let client
let formats

// Each leased generator's lease: a member (batchHandler) refuses to serve when it is lost.
const leases = new WeakMap()

const {
  issue,
  issueBy,
  tryIssue,
  decode,
  takeId,
  takeBigInt,
  takeText,
  PRIVATE_SLOT,
  MET_OVERFLOW,
  MET_CLOCK_BEHIND,
  MET_WAITED,
} = native
const readOnly = (value) => ({ value, enumerable: true })

// Set once, by FlakeId's static block: a leased generator's constructor reaches FlakeId's
// private fields through it.
let setUp

// In this module, not one of its own: every process's first generator makes one, and each module
// a start loads costs it more than its code.
/**
 * One instance's counters, for stats(). Kept in JS: instances of one configuration share their
 * native generator, which reports what each call met (see native.js) for these to count.
 */
class Counts {
  ids = 0
  overflows = 0
  clockBackwards = 0
  waits = 0

  /** Counts what a call that issued ids met, from its report. */
  met(report) {
    const met = decode.met(report)
    if (met === MET_OVERFLOW) this.overflows++
    else if (met === MET_CLOCK_BEHIND) this.clockBackwards++
    else if (met === MET_WAITED) {
      // Other generators' ids used the millisecond up: next() waited for the next one.
      this.overflows++
      this.waits++
    }
  }

  /** Counts a call refused with `error`. */
  refused(error) {
    const code = error == null ? undefined : error.code
    if (code === 'ERR_FLAKE_SEQUENCE_OVERFLOW') this.overflows++
    else if (code === 'ERR_FLAKE_CLOCK_BACKWARDS') this.clockBackwards++
  }

  /** Adds what a batch met. */
  add({ overflows, clockBackwards, waits }) {
    this.overflows += overflows
    this.clockBackwards += clockBackwards
    this.waits += waits
  }

  snapshot() {
    return { ids: this.ids, overflows: this.overflows, clockBackwards: this.clockBackwards, waits: this.waits }
  }
}

class FlakeId {
  // What each call for this generator writes into the scratch (see native.js).
  #fields
  #clock
  #counts = new Counts()
  // Made on the first next(cb): most instances never take a callback.
  #callbacks
  // Made when asked for: most instances never are, and 200 k instances would hold 200 k of them.
  #layout

  constructor(options) {
    // A leased generator is set up by its own constructor, on the fields its lease drives.
    if (new.target === LeasedFlakeId) return
    const configured = native.configure(options)
    this.#fields = configured.fields
    this.#clock = configured.clock
    define(this, options, configured, readOnly(configured.id))
  }

  static {
    setUp = (generator, fields, clock) => {
      generator.#fields = fields
      generator.#clock = clock
    }
  }

  /**
   * A generator whose id is leased from a store (Redis, PostgreSQL or MariaDB/MySQL: see
   * lease/stores.js), unique among the live holders of its namespace, its timestamps fenced by
   * the ceilings the store acknowledged.
   */
  static lease(options) {
    lease ??= require('../lease/index.js').lease
    return lease(
      options,
      (generatorOptions, configured, fields, controller) =>
        new LeasedFlakeId(generatorOptions, configured, fields, controller),
    )
  }

  /**
   * A client of members (generator.batchHandler, `flake-idgen serve`): ids from prefetched
   * batches, for a process that holds no generator id. Pure JS, as `flake-idgen-rs/client` is.
   */
  static client(options) {
    client ??= require('../client/index.js')
    return client(options)
  }

  /**
   * The layout `layout` names or describes (a preset's name or a custom object), resolved: its
   * bits, epoch and limits.
   */
  static layout(layout) {
    return freeze(binding.resolveLayout(layout))
  }

  /** The generator's layout, resolved: its bits, epoch (the one in force) and limits. */
  get layout() {
    this.#layout ??= freeze(native.layoutOf(this.#fields))
    return this.#layout
  }

  /**
   * The parts of `id`; a string in `options.format` (a text row's name) is read as exactly that
   * form writes it, else as decimal or 0x-prefixed hex digits.
   */
  static decompose(id, options) {
    // Read once, as every option is; a value that is not an object has none (the binding says
    // why), and null is the default, as for every option.
    const format = options !== null && typeof options === 'object' ? options.format : undefined
    if (format == null) return binding.decompose(id, options)
    formats ??= require('../formats/formats.js')
    return binding.decompose(id, options, formats.checkFormat(format, formats.TEXT_NAMES, true))
  }

  /** The 8 bytes of the id that `string` writes in `format` (a text row's name; decimal by default). */
  static parse(string, format = 'decimal') {
    formats ??= require('../formats/formats.js')
    const id = Buffer.alloc(8)
    binding.idParse('flakeId', string, id, formats.checkFormat(format, formats.TEXT_NAMES))
    return id
  }

  static fromTime(time, options) {
    return binding.fromTime(time, options)
  }

  // next(), nextBigInt() and nextString(format) are the id methods (../formats/id-methods.js),
  // a client's too: they take the id by these.

  [TAKE_ID]() {
    this.#take()
    return takeId()
  }

  [TAKE_BIGINT]() {
    this.#take()
    return takeBigInt()
  }

  [TAKE_TEXT](write) {
    this.#take()
    return takeText(write)
  }

  [CALL_BACK](cb) {
    if (typeof cb !== 'function') throw require('../errors/errors.js').invalidArgument('cb', 'a function', cb)
    this.#callbacks ??= callbacksFor(this.#fields, this.#clock, this.#counts)
    this.#callbacks.push(cb)
  }

  nextAsync() {
    // An id ready now resolves the promise at once, with no tick or timer in between: fake
    // timers (Jest's default ones fake process.nextTick) would hold those. Behind next(cb)
    // calls still waiting, or when the clock must move on, it waits in line as they do.
    let waiting
    if (this.#callbacks === undefined || this.#callbacks.idle) {
      try {
        waiting = tryIssue(this.#fields, this.#clock)
      } catch (error) {
        return Promise.reject(error)
      }
      if (decode.waitMs(waiting) === 0) {
        this.#counts.ids++
        if (waiting !== undefined) this.#counts.met(waiting)
        return Promise.resolve(takeId())
      }
    }
    return new Promise((resolve, reject) => {
      this.#callbacks ??= callbacksFor(this.#fields, this.#clock, this.#counts)
      // By arity, not by `error`: a clock may throw a falsy value. Once only: a promise a
      // stalled clock rejected is answered again, in its turn, and drops that id.
      let settled = false
      const settle = (...answer) => {
        if (settled) return
        settled = true
        if (answer.length === 1) reject(answer[0])
        else resolve(answer[1])
      }
      if (waiting === undefined) this.#callbacks.pushAsync(settle)
      else this.#callbacks.pushWaiting(settle, waiting)
    })
  }

  nextBatch(count) {
    return this.#counted(native.batch(this.#fields, count, this.#clock))
  }

  nextBatchAsync(count, options) {
    batchAsync ??= require('./batch-async.js')
    return batchAsync(this.#fields, this.#clock, this.#counts, count, options)
  }

  stats() {
    return this.#counts.snapshot()
  }

  /**
   * A `(req, res)` listener for node:http that serves batches of this generator's ids to
   * clients (FlakeId.client), reserved as nextBatchAsync reserves them.
   */
  batchHandler(options) {
    batchHandler ??= require('../member/handler.js')
    batchAsync ??= require('./batch-async.js')
    // A member sends its batches as runs, so it takes them as runs: no id is written out.
    const takeRuns = (count, sliceOptions, add) =>
      batchAsync.runsAsync(this.#fields, this.#clock, this.#counts, count, sliceOptions, add)
    return batchHandler(this, options, leases.get(this), takeRuns)
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
    const fields = this.#fields
    let report
    try {
      // One native function for every generator, told apart by the fields a call writes into
      // the scratch: the call site stays monomorphic however many generators it serves.
      report = fields.slot !== PRIVATE_SLOT ? issue(fields) : issueBy(fields, this.#clock)
    } catch (error) {
      this.#counts.refused(error)
      throw error
    }
    this.#counts.ids++
    if (report !== undefined) this.#counts.met(report)
  }
}

installIdMethods(FlakeId)

/** A generator on a leased id (see lease/): FlakeId.lease() makes it once its lease is had. */
class LeasedFlakeId extends FlakeId {
  constructor(options, configured, fields, controller) {
    super()
    setUp(this, fields, configured.clock)
    // Its scope is its state's, which each lease finds again (a fall-back may differ).
    define(
      this,
      options,
      configured,
      { get: () => controller.id, enumerable: true },
      { get: () => native.scopeOf(fields), enumerable: true },
    )
    leases.set(this, controller)
    Object.defineProperties(this, {
      close: { value: () => controller.close() },
      lease: { get: () => controller.fence },
    })
  }
}

/** A generator's queue of callbacks, made on its first next(cb). */
function callbacksFor(fields, clock, counts) {
  Callbacks ??= require('./callbacks.js')
  return new Callbacks(fields, clock, counts)
}

/** A resolved layout, frozen, its parts too: what a generator shows cannot be changed under it. */
function freeze(layout) {
  Object.freeze(layout.parts)
  return Object.freeze(layout)
}

// The names of each preset's node id parts, by its index: made once per preset.
const partNames = []

/**
 * The read-only properties of a generator: what `options` configured, its `id`, and the parts
 * of its id by its layout's names (flake-idgen's `datacenter` and `worker`).
 */
function define(generator, options, configured, id, scope = readOnly(configured.scope)) {
  // No parts when `id` was given: flake-idgen's properties are then undefined.
  const { preset, parts } = configured
  partNames[preset] ??= binding.layoutOf(configured.shape, 0, preset).parts
  const [high, low] = partNames[preset]
  Object.defineProperties(generator, {
    options: readOnly(options == null ? {} : options),
    id,
    ...(high === undefined ? {} : { [high]: readOnly(parts?.[0]), [low]: readOnly(parts?.[1]) }),
    epoch: readOnly(configured.epoch),
    seqMask: readOnly(configured.seqMask),
    allowedFutureMs: readOnly(configured.allowedFutureMs),
    scope,
  })
}

module.exports = FlakeId

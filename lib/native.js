'use strict'

// The JS side of the protocol with the native id functions; src/js/protocol.rs is the other
// side, and says what the scratch holds and what a report means. Nothing else knows either.

const { Buffer } = require('node:buffer')
const binding = require('./load-binding.js')

const { REPORT_UNIT, MET_OVERFLOW, MET_CLOCK_BEHIND, SCRATCH_BYTES, PRIVATE_SLOT, SLOT_READS_FIELDS } = binding

// The thread's scratch. Shared memory, because a SharedArrayBuffer can never be detached: the
// native side writes into it, and a detachable buffer could be taken away under its feet.
const memory = new SharedArrayBuffer(SCRATCH_BYTES)
const scratch = new Uint8Array(memory)
// The id in the platform's byte order at 8; the call's fields at 16 and on.
const idNumbers = new BigUint64Array(memory, 0, 2)
const halves = new Uint32Array(memory)
const doubles = new Float64Array(memory)
const SLOT = 4
const SETTINGS = 5
const EPOCH = 3
const STATE_LOW = 8
const STATE_HIGH = 9
const CEILING = 5

// The id functions (see src/js/id_functions.rs). Call fields go through the scratch, not as
// arguments: reading an argument costs the native side a `napi_get_value_*` each, a store
// here costs nothing measurable.
const {
  fill: nativeFill,
  fillAt: nativeFillAt,
  tryFill: nativeTryFill,
  tryFillAt: nativeTryFillAt,
  fillRun: nativeFillRun,
} = binding.setup(scratch)

// A private state before its first id: all ones (see src/sequencer.rs).
const NOTHING_ISSUED = 0xffffffff

/**
 * What a call for one generator writes into the scratch, one per instance. Instances of one
 * configuration on the system clock get the same slot; a generator with a private state (its
 * own clock, or a lease) keeps that state here between calls: so the native side keeps nothing
 * per instance, and an instance, once dropped, is freed by the GC alone.
 */
class Call {
  constructor(slot, settings, epoch) {
    this.slot = slot
    // Most slots say the settings themselves; the others' calls write them too.
    this.readsFields = (slot & SLOT_READS_FIELDS) !== 0
    this.settings = settings
    this.epoch = epoch
    // A private state's word, as two 32-bit halves in the scratch's order, and its ceiling.
    this.stateLow = NOTHING_ISSUED
    this.stateHigh = NOTHING_ISSUED
    this.ceiling = Infinity
  }
}

// The call whose fields the scratch holds now. A shared call's fields never change, so calling
// the generator the scratch already describes writes nothing: next() in a loop stores no
// field at all. Every write of fields goes through here or fill(), which keep it true.
let current

function enter(call) {
  current = call
  halves[SLOT] = call.slot
  halves[SETTINGS] = call.settings
  doubles[EPOCH] = call.epoch
  if (call.slot === PRIVATE_SLOT) {
    halves[STATE_LOW] = call.stateLow
    halves[STATE_HIGH] = call.stateHigh
    doubles[CEILING] = call.ceiling
  }
}

/** After a call that may have issued ids: a private state keeps what it became. */
function leave(call) {
  if (call.slot === PRIVATE_SLOT) {
    call.stateLow = halves[STATE_LOW]
    call.stateHigh = halves[STATE_HIGH]
  }
}

/** One id into the scratch from a shared state by the system clock; returns the report, or throws. */
function fill(call) {
  if (call !== current) {
    current = call
    halves[SLOT] = call.slot
    if (call.readsFields) {
      halves[SETTINGS] = call.settings
      doubles[EPOCH] = call.epoch
    }
  }
  return nativeFill()
}

/**
 * One id into the scratch from any generator, by `clock` (the system's if undefined). The
 * clock is read before the call's fields are written: it may call other generators.
 */
function fillBy(call, clock) {
  const now = clock === undefined ? undefined : clock()
  enter(call)
  const report = clock === undefined ? nativeFill() : nativeFillAt(now)
  leave(call)
  return report
}

/** As fillBy(), but reports a wait instead of throwing when waiting would help. */
function tryFill(call, clock) {
  const now = clock === undefined ? undefined : clock()
  enter(call)
  const report = clock === undefined ? nativeTryFill() : nativeTryFillAt(now)
  leave(call)
  return report
}

/** Up to `max` ids of one millisecond by the system clock; reports their count or a wait. */
function fillRun(call, max) {
  enter(call)
  const report = nativeFillRun(max)
  leave(call)
  return report
}

/**
 * `count` ids in a Buffer of their own, synchronously (see src/js/batches.rs). Returns what the
 * batch met, with `ids`, or with `error` if it failed; throws what `clock` throws.
 */
function batch(call, count, clock) {
  const ids = Buffer.allocUnsafeSlow(binding.checkCount(count) * 8)
  enter(call)
  let outcome
  try {
    outcome = binding.fillBatch(ids, clock)
  } finally {
    // Ids may have been taken even if the batch failed: its state must not go back.
    leave(call)
  }
  if (outcome.error === undefined) outcome.ids = ids
  return outcome
}

/** Up to `max` ids into `ids` from the `start`-th on, that `clock` allows now; a report. */
function slice(call, ids, start, max, clock) {
  const now = clock === undefined ? undefined : clock()
  enter(call)
  const report = binding.fillSlice(ids, start, max, now)
  leave(call)
  return report
}

/** Starts a private state above `time` (ms since 1970): its ids are all in later milliseconds. */
function startAbove(call, time) {
  enter(call)
  binding.startAbove(time)
  leave(call)
}

/** The time (ms since 1970) of the last id a private state issued, or undefined. */
function lastIssuedAt(call) {
  enter(call)
  return binding.lastIssuedAt()
}

/** A Buffer of its own (own 8-byte ArrayBuffer, as flake-idgen's are) holding the id just issued. */
function takeId() {
  const id = Buffer.alloc(8)
  // Byte by byte: for 8 bytes the JIT's stores beat a call to the set() builtin by ~10 ns.
  id[0] = scratch[0]
  id[1] = scratch[1]
  id[2] = scratch[2]
  id[3] = scratch[3]
  id[4] = scratch[4]
  id[5] = scratch[5]
  id[6] = scratch[6]
  id[7] = scratch[7]
  return id
}

/** The id just issued, as a bigint. */
const takeBigInt = () => idNumbers[1]

/**
 * The ids of a run just issued, as two numbers until each is handed out: a burst of a million
 * next(cb) calls then waits with a few thousand of these, not a million Buffers that every
 * young-generation GC would have to copy.
 */
class Run {
  constructor(count) {
    // The high and low 32 bits of the first id; the k-th adds k to the low ones (no carry: one
    // millisecond's sequence numbers all fit in the low 12 bits).
    this.high = ((scratch[0] << 24) | (scratch[1] << 16) | (scratch[2] << 8) | scratch[3]) >>> 0
    this.low = ((scratch[4] << 24) | (scratch[5] << 16) | (scratch[6] << 8) | scratch[7]) >>> 0
    this.left = count
  }

  /** The next id of the run, in a Buffer of its own. */
  take() {
    const { high } = this
    const low = this.low++
    this.left--
    const id = Buffer.alloc(8)
    // A typed array keeps the low 8 bits of what is stored.
    id[0] = high >>> 24
    id[1] = high >>> 16
    id[2] = high >>> 8
    id[3] = high
    id[4] = low >>> 24
    id[5] = low >>> 16
    id[6] = low >>> 8
    id[7] = low
    return id
  }
}

// Reports (see src/js/protocol.rs): `undefined` for one id and nothing met, `count * UNIT + met`
// when ids were issued, `-(waitMs * UNIT + met)` when none was.
const decode = {
  /** What the call met: MET_NONE, MET_OVERFLOW or MET_CLOCK_BEHIND. */
  met: (report) => (report === undefined ? 0 : Math.abs(report) % REPORT_UNIT),
  /** How many ids the call issued (0 when it must wait). */
  count: (report) => (report === undefined ? 1 : report < 0 ? 0 : (report - (report % REPORT_UNIT)) / REPORT_UNIT),
  /** How many ms the clock must advance before an id can be issued (0 when ids were). */
  waitMs: (report) => (report === undefined || report >= 0 ? 0 : (-report - (-report % REPORT_UNIT)) / REPORT_UNIT),
}

/** Validates `options` (each read once) and returns what it configures, with its `call`. */
function configure(options) {
  const configured = binding.configure(options)
  // Set on the process's first fallback only: one warning per process.
  if (configured.warning !== undefined) {
    process.emitWarning(`flake-idgen-rs: host scope unavailable, ids are unique per process only: ${configured.warning}`, {
      code: 'FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE',
    })
  }
  configured.call = new Call(configured.slot, configured.settings, configured.epoch)
  return configured
}

module.exports = {
  Call,
  fill,
  fillBy,
  tryFill,
  fillRun,
  batch,
  slice,
  startAbove,
  lastIssuedAt,
  takeId,
  takeBigInt,
  Run,
  decode,
  MET_OVERFLOW,
  MET_CLOCK_BEHIND,
  PRIVATE_SLOT,
  configure,
  checkCount: binding.checkCount,
  decompose: binding.decompose,
  fromTime: binding.fromTime,
  defaultStateDir: binding.defaultStateDir,
  stateFiles: binding.stateFiles,
  resetState: binding.resetState,
}

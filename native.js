'use strict'

// The JS side of the protocol with the native id functions; src/js/protocol.rs is the other
// side, and says what the scratch holds and what a report means. Nothing else knows either.

const { Buffer } = require('node:buffer')
const binding = require('./load.js')

const { REPORT_UNIT, MET_OVERFLOW, MET_CLOCK_BEHIND } = binding

// The thread's scratch: the id big-endian at offset 0, in the platform's byte order at 8, and
// at 16 the slot of the generator that the next call is for.
const scratch = binding.scratch()
const idNumbers = new BigUint64Array(scratch.buffer, scratch.byteOffset, 2)
const calledSlot = new Uint32Array(scratch.buffer, scratch.byteOffset + 16, 1)

// The id functions, each for the generator in `slot` (see src/js/id_functions.rs). The slot
// goes through the scratch, not as an argument: reading an argument costs the native side a
// `napi_get_value_uint32` per call, a store here costs nothing measurable.
const { fill: nativeFill, fillAt: nativeFillAt, tryFill: nativeTryFill, tryFillAt: nativeTryFillAt, fillRun: nativeFillRun } = binding.idFunctions()

/** One id into the scratch by the system clock; returns the report, or throws. */
function fill(slot) {
  calledSlot[0] = slot
  return nativeFill()
}

/** As fill(), for what a generator's own clock read: `now`, whatever it is. */
function fillAt(slot, now) {
  calledSlot[0] = slot
  return nativeFillAt(now)
}

/** As fill(), but reports a wait instead of throwing when waiting would help. */
function tryFill(slot) {
  calledSlot[0] = slot
  return nativeTryFill()
}

/** As tryFill(), for what a generator's own clock read. */
function tryFillAt(slot, now) {
  calledSlot[0] = slot
  return nativeTryFillAt(now)
}

/** Up to `max` ids of one millisecond by the system clock; reports their count or a wait. */
function fillRun(slot, max) {
  calledSlot[0] = slot
  return nativeFillRun(max)
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

// A configured generator is held through a `source`, `{ slot }`, which instances of one
// configuration share (the native side gives them one slot). The slot is released once no
// instance holds its source any longer; held weakly here so that it can be let go.
const sources = []
const forget = new FinalizationRegistry(({ slot, ref }) => {
  // Not if the slot has a newer source: the native side handed the slot out again meanwhile.
  if (sources[slot] !== ref) return
  sources[slot] = undefined
  binding.release(slot)
})

/** Validates `options` (each read once) and returns what it configures, with its `source`. */
function configure(options) {
  const configured = binding.configure(options)
  // Set on the process's first fallback only: one warning per process.
  if (configured.warning !== undefined) {
    process.emitWarning(`flake-idgen-rs: host scope unavailable, ids are unique per process only: ${configured.warning}`, {
      code: 'FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE',
    })
  }
  const { slot } = configured
  let source = sources[slot]?.deref()
  if (source === undefined) {
    source = { slot }
    const ref = new WeakRef(source)
    sources[slot] = ref
    forget.register(source, { slot, ref })
  }
  configured.source = source
  return configured
}

module.exports = {
  fill,
  fillAt,
  tryFill,
  tryFillAt,
  fillRun,
  takeId,
  takeBigInt,
  Run,
  decode,
  MET_OVERFLOW,
  MET_CLOCK_BEHIND,
  configure,
  batch: binding.batch,
  batchAsync: binding.batchAsync,
  checkCount: binding.checkCount,
  decompose: binding.decompose,
  fromTime: binding.fromTime,
  defaultStateDir: binding.defaultStateDir,
  stateFiles: binding.stateFiles,
  resetState: binding.resetState,
}

'use strict'

// The JS side of the protocol with the native id functions; src/js/seam/protocol.rs is the other
// side, and says what the scratch holds and what a report means. This module, and
// native-rest.js through its seam, are the only ones on this side that read or write the
// scratch: the others hand them a generator's fields. This one holds what a process's first id
// needs, and every per-id path; native-rest.js the rest (runs, batches, leases), loaded when
// first read from this one's exports.

const { Buffer } = require('node:buffer')
const binding = require('./load-binding.js')

const {
  REPORT_UNIT,
  MET_OVERFLOW,
  MET_CLOCK_BEHIND,
  MET_WAITED,
  SCRATCH_BYTES,
  PRIVATE_SLOT,
  SLOT_READS_FIELDS,
  SLOT_FENCED,
} = binding

// The thread's setup (see src/js/generator/setup.rs): its id functions and its scratch. Shared memory,
// because a SharedArrayBuffer can never be detached: the native side writes into it, and a
// detachable buffer could be taken away under its feet. The first copy of this module in a
// thread sets it up with the scratch made here; every later copy (a test runner's fresh module
// registry, require.cache cleared, a vm context, the package under two names) gets the same
// setup back, and so issues through the same scratch from the same slots.
const thread = binding.setup(new Uint8Array(new SharedArrayBuffer(SCRATCH_BYTES)))
// Views of this copy's own realm, over the memory whichever copy made: the whole buffer made
// here, or in the WebAssembly build the block of the module's memory the native side gave back
// in its place (its runtime can only copy a buffer of JS's, see src/js/seam/protocol.rs).
const memory = thread.scratch.buffer
const base = thread.scratch.byteOffset
const scratch = new Uint8Array(memory, base, SCRATCH_BYTES)
const words = new BigUint64Array(memory, base, SCRATCH_BYTES / 8)
const halves = new Uint32Array(memory, base, SCRATCH_BYTES / 4)
const doubles = new Float64Array(memory, base, SCRATCH_BYTES / 8)
// Big-endian reads of a 128-bit id, for a bigint: off the fast paths.
const wideView = new DataView(memory, base, SCRATCH_BYTES)
// Each field's index in the view of its type, from the byte offsets the native side exports.
const ID_BE = binding.SCRATCH_ID_BE
const ID_NE = binding.SCRATCH_ID_NE / 8
const SLOT = binding.SCRATCH_SLOT / 4
const SETTINGS = binding.SCRATCH_SETTINGS / 4
const SHAPE = binding.SCRATCH_SHAPE / 4
const EPOCH = binding.SCRATCH_EPOCH / 8
const STATE_LOW = binding.SCRATCH_PRIVATE_STATE / 4
const STATE_HIGH = STATE_LOW + 1
const CEILING = binding.SCRATCH_CEILING / 8
const WIDE_ID = binding.SCRATCH_WIDE_ID
const INSTANCE = binding.SCRATCH_INSTANCE / 4
const WORKER = binding.SCRATCH_WORKER / 8

// The id functions (see src/js/seam/id_functions.rs). A generator's fields go through the scratch,
// not as arguments: reading an argument costs the native side a `napi_get_value_*` each, a
// store here costs nothing measurable. Taken out of their object once, so that a call loads no
// property on the per-id path.
const {
  issue: nativeIssue,
  issueAt: nativeIssueAt,
  tryIssue: nativeTryIssue,
  tryIssueAt: nativeTryIssueAt,
  issueWide: nativeIssueWide,
  issueWideText: nativeIssueWideText,
} = thread

// A private state before its first id: all ones (see src/sequencer.rs), in each half.
const NOTHING_ISSUED = 0xffffffff
// A lease's ceiling before it is installed, and after it is closed: nothing may be issued.
const CLOSED = 0

/**
 * A generator's fields: what a call for it writes into the scratch, one object per instance.
 * Instances of one configuration on the system clock get the same slot, and a leased one that
 * slot with SLOT_FENCED (its state is its id's, its ceiling its own); a generator with a
 * private state (its own clock) keeps that state here between calls: so the native side keeps
 * nothing per instance, and an instance, once dropped, is freed by the GC alone. Only this
 * module and native-rest.js read or write them.
 */
class GeneratorFields {
  constructor(slot, configured, worker = 0) {
    setSlot(this, slot)
    this.settings = configured.settings
    this.shape = configured.shape
    this.epoch = configured.epoch
    // How far apart the ids of a run are (see IdRun, in native-rest.js).
    this.step = configured.step
    this.preset = configured.preset
    // The scope of its state: a lease's changes with each lease (leaseState()).
    this.scope = configured.scope
    // A flake generator's worker id (see flake128.js); 0 for every other.
    this.worker = worker
    // A private state's word, as two 32-bit halves in the scratch's order; the ceiling of a
    // private or leased generator.
    this.stateLow = NOTHING_ISSUED
    this.stateHigh = NOTHING_ISSUED
    this.ceiling = Infinity
    // Its number in the thread, written with its fields: a slot keeps the tally of the instance
    // that last took ids through it (src/js/seam/instance_tally.rs), so a sync call throws the
    // overflow only for a unit the instance used up itself, not one its neighbours (threads,
    // processes) did, as flake-idgen's instance counter does (see src/sync_take.rs).
    this.instance = configured.instance
  }
}

/** Gives `fields` the slot `slot`, and says what its calls write besides. */
function setSlot(fields, slot) {
  fields.slot = slot
  // A fenced slot's calls write its ceiling (PRIVATE_SLOT has every bit: it is one).
  fields.fenced = (slot & SLOT_FENCED) !== 0
  // Most slots say the settings themselves; the others' calls write them too, and a fenced
  // one's its ceiling with them: a plain generator's switch writes nothing more for leases.
  fields.readsFields = (slot & (SLOT_READS_FIELDS | SLOT_FENCED)) !== 0
}

// The generator whose fields the scratch holds now, or undefined when another copy of this
// module may have written them since. A shared state's fields never change, so calling the
// generator the scratch already describes writes nothing: next() in a loop stores no field at
// all. Every write of fields goes through enter() or issue(), which keep it true.
let current

// Only the copy that wrote the fields last has a `current`: a copy about to write with none
// tells the last writer (its `forget`, kept on the thread's shared setup) to drop its own. So a
// switch between copies costs a call, and a call that switches nothing checks nothing more.
function forget() {
  current = undefined
}

function claim() {
  const last = thread.forget
  thread.forget = forget
  if (last !== undefined && last !== forget) last()
}

/** Makes `fields` (not `current`) the current instance. */
function become(fields) {
  if (current === undefined) claim()
  current = fields
  halves[INSTANCE] = fields.instance
}

function enter(fields) {
  if (fields !== current) become(fields)
  halves[SLOT] = fields.slot
  halves[SETTINGS] = fields.settings
  halves[SHAPE] = fields.shape
  doubles[EPOCH] = fields.epoch
  doubles[WORKER] = fields.worker
  if (fields.fenced) {
    doubles[CEILING] = fields.ceiling
    if (fields.slot === PRIVATE_SLOT) {
      halves[STATE_LOW] = fields.stateLow
      halves[STATE_HIGH] = fields.stateHigh
    }
  }
}

/** After a call that may have issued ids: a private state keeps what it became. */
function leave(fields) {
  if (fields.slot === PRIVATE_SLOT) {
    fields.stateLow = halves[STATE_LOW]
    fields.stateHigh = halves[STATE_HIGH]
  }
}

/** Makes `fields` (not `current`) those of the next call by the system clock, from a shared state. */
function select(fields) {
  become(fields)
  halves[SLOT] = fields.slot
  doubles[WORKER] = fields.worker
  if (fields.readsFields) {
    halves[SETTINGS] = fields.settings
    halves[SHAPE] = fields.shape
    doubles[EPOCH] = fields.epoch
    doubles[CEILING] = fields.ceiling
  }
}

/** One id into the scratch from a shared state by the system clock; returns the report, or throws. */
function issueNative(fields) {
  if (fields !== current) select(fields)
  return nativeIssue()
}

// The WebAssembly build's `issue()` as a plain export of its module (src/js/wasm_exports.rs):
// one call of a wasm function, where the id function's call through emulated N-API crosses
// between JS and the module many times. It answers PLAIN_ISSUED_ONE for the id function's
// `undefined`, and PLAIN_REFUSED when it issued nothing, and the thread's refusal() then throws
// why. Undefined natively, and should the WebAssembly build's instance not have been caught
// (see wasm-instance.js): the id function serves then.
// It takes the reading of the system clock from JS, which reads it faster.
const wasmBuild = binding.__napiBindingTarget?.startsWith('wasm32') === true
// Loaded with that build only: a native process does not pay for it at its start.
const plain = wasmBuild ? require('./wasm-instance.js').plain() : undefined
const plainIssue = plain?.exports.flake_idgen_rs_issue
const systemNow = plain?.now
const { PLAIN_ISSUED_ONE, PLAIN_REFUSED } = binding
const { refusal } = thread

/** As issueNative(), by the plain export. */
function issuePlain(fields) {
  if (fields !== current) select(fields)
  const report = plainIssue(systemNow())
  if (report === PLAIN_ISSUED_ONE) return undefined
  if (report !== PLAIN_REFUSED) return report
  // Throws: a refusal is never an answer, which would hand out the id in the scratch again.
  return refusal()
}

// Chosen once: the call site in flake-id.js sees one function, whichever build loaded.
const issue = typeof plainIssue === 'function' ? issuePlain : issueNative

// 128-bit ids from a shared state by the system clock (see src/js/seam/wide_functions.rs), of the
// kind the generator's fields say: into the scratch, for takeWide(), or as text; or throws.

const issueWide = (fields) => {
  if (fields !== current) select(fields)
  nativeIssueWide()
}

const issueWideText = (fields) => {
  if (fields !== current) select(fields)
  return nativeIssueWideText()
}

/**
 * One id into the scratch from any generator, by `clock` (the system's if undefined). The
 * clock is read before the fields are written: it may call other generators.
 */
function issueBy(fields, clock) {
  const now = clock === undefined ? undefined : clock()
  enter(fields)
  const report = clock === undefined ? nativeIssue() : nativeIssueAt(now)
  leave(fields)
  return report
}

/** As issueBy(), but reports a wait instead of throwing when waiting would help. */
function tryIssue(fields, clock) {
  const now = clock === undefined ? undefined : clock()
  enter(fields)
  const report = clock === undefined ? nativeTryIssue() : nativeTryIssueAt(now)
  leave(fields)
  return report
}

/** A Buffer of its own (own 8-byte ArrayBuffer, as flake-idgen's are) holding the id just issued. */
function takeId() {
  const id = Buffer.alloc(8)
  // Byte by byte: for 8 bytes the JIT's stores beat a call to the set() builtin by ~10 ns.
  id[0] = scratch[ID_BE]
  id[1] = scratch[ID_BE + 1]
  id[2] = scratch[ID_BE + 2]
  id[3] = scratch[ID_BE + 3]
  id[4] = scratch[ID_BE + 4]
  id[5] = scratch[ID_BE + 5]
  id[6] = scratch[ID_BE + 6]
  id[7] = scratch[ID_BE + 7]
  return id
}

/** The id just issued, as a bigint. */
const takeBigInt = () => words[ID_NE]

/** The id just issued as `write(bytes, at)` makes it (a text form) from its 8 bytes here: no Buffer of its own. */
const takeText = (write) => write(scratch, ID_BE)

/** Copies the 128-bit id just issued into `target` (a Uint8Array) at `offset`, in bounds. */
function takeWide(target, offset) {
  // Byte by byte, as takeId() copies: the JIT's stores beat a call to set() for 16 bytes too.
  target[offset] = scratch[WIDE_ID]
  target[offset + 1] = scratch[WIDE_ID + 1]
  target[offset + 2] = scratch[WIDE_ID + 2]
  target[offset + 3] = scratch[WIDE_ID + 3]
  target[offset + 4] = scratch[WIDE_ID + 4]
  target[offset + 5] = scratch[WIDE_ID + 5]
  target[offset + 6] = scratch[WIDE_ID + 6]
  target[offset + 7] = scratch[WIDE_ID + 7]
  target[offset + 8] = scratch[WIDE_ID + 8]
  target[offset + 9] = scratch[WIDE_ID + 9]
  target[offset + 10] = scratch[WIDE_ID + 10]
  target[offset + 11] = scratch[WIDE_ID + 11]
  target[offset + 12] = scratch[WIDE_ID + 12]
  target[offset + 13] = scratch[WIDE_ID + 13]
  target[offset + 14] = scratch[WIDE_ID + 14]
  target[offset + 15] = scratch[WIDE_ID + 15]
  return target
}

/** The 128-bit id just issued, as a bigint. */
const takeWideBigInt = () => (wideView.getBigUint64(WIDE_ID) << 64n) | wideView.getBigUint64(WIDE_ID + 8)

// Reports (see src/js/seam/protocol.rs): `undefined` for one id and nothing met, `count * UNIT + met`
// when ids were issued, `-(waitMs * UNIT + met)` when none was.
const decode = {
  /** What the call met: MET_NONE, MET_OVERFLOW, MET_CLOCK_BEHIND or MET_WAITED. */
  met: (report) => (report === undefined ? 0 : Math.abs(report) % REPORT_UNIT),
  /** How many ids the call issued (0 when it must wait). */
  count: (report) => (report === undefined ? 1 : report < 0 ? 0 : (report - (report % REPORT_UNIT)) / REPORT_UNIT),
  /** How many ms the clock must advance before an id can be issued (0 when ids were). */
  waitMs: (report) => (report === undefined || report >= 0 ? 0 : (-report - (-report % REPORT_UNIT)) / REPORT_UNIT),
}

/**
 * Validates the `options` of a generator of `kind` (each read once) and returns what they
 * configure (see the native `configure`), with the generator's `fields` (`worker`: a flake
 * generator's worker id). Says so when host scope fell back (once per process per reason),
 * and of each option a FlakeId does not take (once per process per name).
 */
function configure(options, kind = 'flakeId', worker = 0) {
  const configured = binding.configure(kind, options)
  if (configured.slot !== PRIVATE_SLOT && separateModule) refuseSharedState()
  // Loaded when first needed: most processes never fall back, nor misspell an option.
  if (configured.warning !== undefined) require('./warn.js').warnHostScope(configured.warning)
  if (configured.unknownOptions !== undefined) configured.unknownOptions.forEach(require('./warn.js').warnUnknownOption)
  configured.fields = new GeneratorFields(configured.slot, configured, worker)
  return configured
}

// The WebAssembly build in a worker thread: the thread loaded a module of its own, whose memory
// (and so whose process-scope states) no other thread sees. Two threads issuing for one id from
// states of their own would repeat ids, so a worker issues only from a private state there.
const separateModule = wasmBuild && !require('node:worker_threads').isMainThread

function refuseSharedState() {
  throw require('../errors/coded-error.js')(
    Error,
    'ERR_FLAKE_WASM_THREAD',
    'flake-idgen-rs: the WebAssembly build issues from a shared state on the main thread only: each worker thread has a module of its own, whose states other threads do not see, so two threads would repeat ids; issue on the main thread, or give the generator a `clock` (a private state)',
  )
}

/** Lets a leased generator issue up to `ceiling` (ms since 1970); CLOSED: nothing more. */
function setCeiling(fields, ceiling) {
  fields.ceiling = ceiling
  // The scratch holds the current instance's ceiling: its next call writes none.
  if (fields === current) doubles[CEILING] = ceiling
}

module.exports = {
  issue,
  issueBy,
  tryIssue,
  takeId,
  takeBigInt,
  takeText,
  issueWide,
  issueWideText,
  takeWide,
  takeWideBigInt,
  GeneratorFields,
  decode,
  MET_OVERFLOW,
  MET_CLOCK_BEHIND,
  MET_WAITED,
  PRIVATE_SLOT,
  CLOSED,
  configure,
  setCeiling,
  // For native-rest.js alone.
  seam: { thread, scratch, enter, leave, setSlot },
}

// native-rest.js's exports, as this module's own: each loads it when first read, and is then
// the data property a plain assignment makes, as it always was.
const REST = [
  'issueRun',
  'batch',
  'slice',
  'runSlice',
  'issueWideBy',
  'wideBatch',
  'IdRun',
  'leasedFields',
  'leaseState',
  'installLease',
  'scopeOf',
  'queueOf',
  'ceilingOf',
  'lastIssuedAt',
  'layoutOf',
]

/** Makes `name` of the exports `value`, a plain data property. */
function setExport(name, value) {
  Object.defineProperty(module.exports, name, { value, writable: true, enumerable: true, configurable: true })
}

for (const name of REST) {
  Object.defineProperty(module.exports, name, {
    get() {
      const rest = require('./native-rest.js')
      for (const each of REST)
        if (Object.getOwnPropertyDescriptor(module.exports, each).get) setExport(each, rest[each])
      return module.exports[name]
    },
    set: (value) => setExport(name, value),
    enumerable: true,
    configurable: true,
  })
}

'use strict'

// The rest of native.js, the JS side of the protocol with the native id functions: runs and
// batches of ids, 128-bit ids by a clock of the generator's own, leased generators' fields, and
// what a generator's fields say. Loaded by native.js when one of these is first read: a process's
// first id needs none of them, and a fresh process pays for each line of JS it loads. It reads
// and writes the scratch through native.js's seam (enter() and leave(), the scratch's bytes),
// so that the generator native.js takes for the current one stays the one the scratch holds.

const { Buffer } = require('node:buffer')
const binding = require('./load-binding.js')
const native = require('./native.js')

const { PRIVATE_SLOT, SLOT_FENCED } = binding
const { GeneratorFields, CLOSED, configure } = native
const { thread, scratch, enter, leave, setSlot } = native.seam
const ID_BE = binding.SCRATCH_ID_BE
const { issueRun: nativeIssueRun, issueWideAt: nativeIssueWideAt, issueWideTextAt: nativeIssueWideTextAt } = thread

/** Up to `max` ids of one millisecond by the system clock; reports their count or a wait. */
function issueRun(fields, max) {
  enter(fields)
  const report = nativeIssueRun(max)
  leave(fields)
  return report
}

/**
 * `count` ids in a Buffer of their own, synchronously (see src/js/generator/batches.rs). Returns what the
 * batch met, with `ids`, or with `error` if it failed; throws what `clock` throws.
 */
function batch(fields, count, clock) {
  const { outcome, batchIds } = filled(fields, count, 8, binding.issueBatch, clock)
  if (outcome.error === undefined) outcome.ids = batchIds
  return outcome
}

/** `count` ids of `idBytes` each, written by `issue(batchIds, clock)` for `fields`: its outcome, and the ids. */
function filled(fields, count, idBytes, issue, clock) {
  const batchIds = Buffer.allocUnsafeSlow(binding.checkCount(count) * idBytes)
  enter(fields)
  try {
    return { outcome: issue(batchIds, clock), batchIds }
  } finally {
    // Ids may have been taken even if the batch failed: its state must not go back.
    leave(fields)
  }
}

/** Up to `max` ids into `batchIds` from the `start`-th on, that `clock` allows now; a report. */
function slice(fields, batchIds, start, max, clock) {
  const now = clock === undefined ? undefined : clock()
  enter(fields)
  const report = binding.issueSlice(batchIds, start, max, now)
  leave(fields)
  return report
}

/**
 * Up to `max` ids that `clock` allows now, as their runs into `runs` (a member's: see issueRuns
 * in src/js/generator/batches.rs); a report.
 */
function runSlice(fields, runs, max, clock) {
  const now = clock === undefined ? undefined : clock()
  enter(fields)
  const report = binding.issueRuns(runs, max, now)
  leave(fields)
  return report
}

/**
 * `count` 128-bit ids of the generator's kind in a Buffer of their own, synchronously (see
 * issueWideBatch in src/js/generator/batches.rs); throws why it failed, and what `clock` throws.
 */
function wideBatch(fields, count, clock) {
  const { outcome, batchIds } = filled(fields, count, 16, binding.issueWideBatch, clock)
  if (outcome.error !== undefined) throw outcome.error
  return batchIds
}

/**
 * A 128-bit id by a clock of the generator's own, into the scratch or, if `text`, as text: the
 * clock is read once per id, before the fields are written (it may call other generators).
 */
function issueWideBy(fields, clock, text) {
  const now = clock()
  enter(fields)
  const issued = text ? nativeIssueWideTextAt(now) : nativeIssueWideAt(now)
  leave(fields)
  return issued
}

/**
 * The ids of a run just issued, as two numbers until each is handed out: a burst of a million
 * next(cb) calls then waits with a few thousand of these, not a million Buffers that every
 * young-generation GC would have to copy.
 */
class IdRun {
  constructor(count, step) {
    // The high and low 32 bits of the first id; the k-th adds k * step to the low ones (no
    // carry: one time unit's sequence numbers all lie in the low 32 bits, see Shape::step).
    const at = ID_BE
    this.high = ((scratch[at] << 24) | (scratch[at + 1] << 16) | (scratch[at + 2] << 8) | scratch[at + 3]) >>> 0
    this.low = ((scratch[at + 4] << 24) | (scratch[at + 5] << 16) | (scratch[at + 6] << 8) | scratch[at + 7]) >>> 0
    this.step = step
    this.left = count
  }

  /** The next id of the run, in a Buffer of its own. */
  take() {
    const { high } = this
    const low = this.low
    this.low += this.step
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

/**
 * What `options` (a lease's generator options, without an id) configure, checked but on no
 * state yet (none is found, no state file mapped: the id is not known), with fields that issue
 * nothing until installLease() gives them a lease.
 */
function leasedFields(options) {
  const configured = binding.configure('flakeId', { ...options, id: 0 }, true)
  const fields = new GeneratorFields(PRIVATE_SLOT, configured)
  fields.ceiling = CLOSED
  return { configured, fields }
}

/**
 * What `options` (a lease's generator options) configure for generator `id`: the state it
 * issues from, found as a plain generator's is (the host's state of the id by default, the
 * process's with `scope: 'process'`, falling back, warning and failing alike), so that every
 * generator of the id on the host shares it, however it had the id. A `clock` keeps a private
 * state, as a plain generator's does. Throws what a plain generator's configure throws.
 */
const leaseState = (options, id) => configure({ ...options, id })

/**
 * Makes the fields leasedFields() made issue as `configured` (leaseState()'s) says: every id
 * above `floor` (ms since 1970), none past `ceiling`. A shared state is raised above the floor
 * (its other generators just issue later); a private one starts there.
 */
function installLease(fields, configured, floor, ceiling) {
  const { slot } = configured
  setSlot(fields, slot === PRIVATE_SLOT ? PRIVATE_SLOT : slot | SLOT_FENCED)
  fields.settings = configured.settings
  fields.shape = configured.shape
  fields.scope = configured.scope
  fields.ceiling = ceiling
  enter(fields)
  // Its ids under this lease are counted from none: lastIssuedAt() says the last of them.
  binding.startAbove(floor)
  leave(fields)
}

/** The scope a generator's fields issue in: 'host' or 'process'. */
const scopeOf = (fields) => fields.scope

/**
 * Who waits for whose async batches: those of one shared state one after the other, a private
 * or leased generator's on its own (a lease waits for its renewals, not for its neighbours').
 */
const queueOf = (fields) => (fields.fenced ? fields : fields.slot)

/** The ceiling a leased generator issues up to. */
const ceilingOf = (fields) => fields.ceiling

/** The resolved layout a generator's fields issue by (see FlakeId's `layout`). */
const layoutOf = (fields) => binding.layoutOf(fields.shape, fields.epoch, fields.preset)

/**
 * The time (ms since 1970) of the last id a leased generator issued, or undefined: its own,
 * counted by the instance (not a neighbour's on its shared state), so a ceiling written from it
 * is above every id it issued, and no higher; the state's last if another leased generator of
 * its configuration in the thread took ids since (see src/js/seam/instance_tally.rs), higher but
 * still above every id it issued.
 */
function lastIssuedAt(fields) {
  enter(fields)
  return binding.lastIssuedAt()
}

module.exports = {
  issueRun,
  batch,
  slice,
  runSlice,
  issueWideBy,
  wideBatch,
  IdRun,
  leasedFields,
  leaseState,
  installLease,
  scopeOf,
  queueOf,
  ceilingOf,
  lastIssuedAt,
  layoutOf,
}

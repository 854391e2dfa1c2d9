'use strict'
// The protocol between native.js and the id functions (src/js/seam/protocol.rs says it): the
// reports as native.js decodes them, and the ids of a run as it rebuilds them.

const test = require('node:test')
const assert = require('node:assert/strict')
const binding = require('../../lib/binding/load-binding.js')
const native = require('../../lib/binding/native.js')
const { decode } = require('../support/helpers')
const FlakeId = require('../..')

const { REPORT_UNIT: UNIT, MET_NONE, MET_OVERFLOW, MET_CLOCK_BEHIND } = binding

test('the constants are the native side’s, and tell the three cases apart', () => {
  assert.deepEqual([UNIT, MET_NONE, MET_OVERFLOW, MET_CLOCK_BEHIND], [4, 0, 1, 2])
  assert.equal(native.MET_OVERFLOW, MET_OVERFLOW)
  assert.equal(native.MET_CLOCK_BEHIND, MET_CLOCK_BEHIND)
})

test('reports decode into count, met and wait', () => {
  const cases = [
    // [report, count, met, waitMs]
    [undefined, 1, MET_NONE, 0],
    [1 * UNIT + MET_NONE, 1, MET_NONE, 0],
    [1 * UNIT + MET_OVERFLOW, 1, MET_OVERFLOW, 0],
    [4096 * UNIT + MET_CLOCK_BEHIND, 4096, MET_CLOCK_BEHIND, 0],
    [-(1 * UNIT + MET_OVERFLOW), 0, MET_OVERFLOW, 1],
    [-(300 * UNIT + MET_CLOCK_BEHIND), 0, MET_CLOCK_BEHIND, 300],
    [-(2 ** 50 * UNIT + MET_NONE), 0, MET_NONE, 2 ** 50],
  ]
  for (const [report, count, met, waitMs] of cases) {
    assert.deepEqual(
      [native.decode.count(report), native.decode.met(report), native.decode.waitMs(report)],
      [count, met, waitMs],
      `report ${report}`,
    )
  }
})

test('the id functions report as native.js decodes: a full millisecond, then a wait', () => {
  const { fields } = native.configure({ id: 1000, seqMask: 3 })
  // At most 4 ids a millisecond: a run asked for 10 stops at what is left of it.
  let taken = 0
  let report
  for (;;) {
    report = native.issueRun(fields, 10)
    if (native.decode.waitMs(report) > 0) break
    taken += native.decode.count(report)
    assert.ok(taken <= 8, 'never more than a millisecond or two of ids')
  }
  assert.equal(native.decode.met(report), MET_OVERFLOW)
  assert.equal(native.decode.waitMs(report), 1)
  assert.equal(native.decode.count(report), 0)
})

test('a run is rebuilt from its first id: consecutive, one generator, one millisecond', () => {
  const { fields } = native.configure({ id: 1001 })
  const report = native.issueRun(fields, 300)
  const count = native.decode.count(report)
  assert.ok(count >= 1 && count <= 300)
  const first = native.takeBigInt()
  const run = new native.IdRun(count, fields.step)
  const ids = Array.from({ length: count }, () => run.take())
  assert.equal(run.left, 0)
  ids.forEach((id, k) => {
    assert.equal(id.length, 8)
    assert.equal(id.byteOffset, 0)
    assert.equal(id.buffer.byteLength, 8)
    assert.equal(id.readBigUInt64BE(0), first + BigInt(k))
    assert.equal(decode(id).id, 1001)
    assert.equal(decode(id).time, decode(ids[0]).time)
  })
})

test('a run of a layout whose sequence comes before the node id steps by 2^nodeBits', () => {
  const layout = FlakeId.layout('hazelcast')
  const { fields } = native.configure({ layout: 'hazelcast', id: 65535, scope: 'process' })
  assert.equal(fields.step, 2 ** layout.nodeBits)
  const count = native.decode.count(native.issueRun(fields, 100))
  assert.ok(count >= 1 && count <= layout.idsPerUnit)
  const first = native.takeBigInt()
  const run = new native.IdRun(count, fields.step)
  const ids = Array.from({ length: count }, () => run.take().readBigUInt64BE(0))
  ids.forEach((id, k) => {
    assert.equal(id, first + BigInt(k) * 65536n)
    const parts = FlakeId.decompose(id, { layout })
    assert.equal(parts.id, 65535)
    assert.equal(parts.sequence, FlakeId.decompose(first, { layout }).sequence + k)
  })
})

test('one id is in the scratch both ways: takeId() and takeBigInt() agree', () => {
  const { fields } = native.configure({ id: 1002 })
  assert.equal(native.issue(fields), undefined)
  assert.equal(native.takeId().readBigUInt64BE(0), native.takeBigInt())
  assert.equal(decode(native.takeId()).id, 1002)
})

test('the scratch layout: each field JS writes is the field the native side reads', () => {
  // A private generator's fields, each set to a value of its own, written by native.js as a
  // call writes them; then read back through the accessors the id functions use.
  const { fields } = native.configure({ id: 1006, epoch: 1_234_567, seqMask: 1023, clock: Date.now })
  fields.stateLow = 0x89abcdef
  fields.stateHigh = 0x01234567
  fields.ceiling = 1_700_000_000_123
  fields.worker = 0x02fc_0000_0001
  native.lastIssuedAt(fields)
  // A private state keeps no tally: no other instance takes from it.
  assert.deepEqual(binding.readScratch(), {
    slot: native.PRIVATE_SLOT,
    settings: fields.settings,
    shape: fields.shape,
    epoch: 1_234_567,
    privateState: 0x01234567_89abcdefn,
    ceiling: 1_700_000_000_123,
    instance: fields.instance,
    worker: 0x02fc_0000_0001,
  })
  // A shared generator's slot and instance, the id the native side wrote, read as both forms,
  // and the tally its slot keeps for it: one id of the id's millisecond (units since 1970, as
  // its state counts them).
  const shared = native.configure({ id: 1007 }).fields
  native.issue(shared)
  assert.equal(binding.readScratch().slot, shared.slot)
  assert.equal(binding.readScratch().instance, shared.instance)
  assert.equal(native.takeId().readBigUInt64BE(0), native.takeBigInt())
  assert.equal(decode(native.takeId()).id, 1007)
  assert.equal(binding.readScratch().tally, (BigInt(decode(native.takeId()).time) << 20n) | 1n)
  // Kept by its slot while another slot's instance takes ids.
  native.issue(native.configure({ id: 1008 }).fields)
  native.issue(shared)
  assert.equal(binding.readScratch().tally & 0xfffffn, decode(native.takeId()).sequence === 0 ? 1n : 2n)
  // Another instance of its configuration (its slot) takes ids: its tally is that one's, and
  // its own counts afresh from its next id. Each instance has a number of its own, never 0.
  const twin = native.configure({ id: 1007 }).fields
  assert.equal(twin.slot, shared.slot)
  assert.ok(twin.instance !== shared.instance && twin.instance > 0 && shared.instance > 0)
  native.issue(twin)
  assert.equal(binding.readScratch().tally & 0xfffffn, 1n)
  native.issue(shared)
  assert.equal(binding.readScratch().instance, shared.instance)
  assert.equal(binding.readScratch().tally, (BigInt(decode(native.takeId()).time) << 20n) | 1n)
  // Every offset in bounds and aligned to its type, as the typed arrays over it need.
  const sizes = {
    SCRATCH_ID_BE: 8,
    SCRATCH_ID_NE: 8,
    SCRATCH_SLOT: 4,
    SCRATCH_SETTINGS: 4,
    SCRATCH_EPOCH: 8,
    SCRATCH_PRIVATE_STATE: 8,
    SCRATCH_CEILING: 8,
    SCRATCH_SHAPE: 4,
    SCRATCH_INSTANCE: 4,
    SCRATCH_WORKER: 8,
    SCRATCH_WIDE_ID: 16,
  }
  for (const [name, size] of Object.entries(sizes)) {
    const offset = binding[name]
    assert.ok(
      Number.isInteger(offset) && offset % size === 0 && offset + size <= binding.SCRATCH_BYTES,
      `${name} = ${offset}`,
    )
  }
})

test('call fields no configuration makes are refused, never read as an id', () => {
  const { fields } = native.configure({ id: 1003 })
  // A slot that names nothing, ...
  for (const slot of [12345, 2 ** 31, binding.SLOT_READS_FIELDS | 5000]) {
    const wrong = new native.GeneratorFields(slot, fields)
    assert.throws(() => native.issue(wrong), /unusable call/, String(slot))
    assert.throws(() => native.issueRun(wrong, 5), /unusable call/, String(slot))
  }
  // ... and settings no configuration makes, where a call writes its settings (a private state).
  const { fields: own } = native.configure({ id: 1003, clock: Date.now })
  const seqBits = (bits) => ((own.shape & ~(0x1f << 22)) | (bits << 22)) >>> 0
  const bad = [
    // seqBits 0 and 13 (of 12), node id 1024 (of 10 bits), allowedFutureMs 1001, node bits 17,
    // a time unit of 1,001 ms, a fractional, negative and unsafe epoch
    { shape: seqBits(0) },
    { shape: seqBits(13) },
    { settings: 1024 },
    { settings: 1003 | (1001 << 16) },
    { shape: (own.shape & ~(0x1f << 10)) | (17 << 10) },
    { shape: own.shape | 1000 },
    { epoch: 0.5 },
    { epoch: -1 },
    { epoch: 2 ** 60 },
  ]
  for (const changed of bad) {
    const wrong = Object.assign(new native.GeneratorFields(own.slot, own), changed)
    assert.throws(() => native.issueBy(wrong, Date.now), /unusable call/, JSON.stringify(changed))
    assert.throws(() => native.tryIssue(wrong, Date.now), /unusable call/, JSON.stringify(changed))
    assert.throws(() => native.issueRun(wrong, 5), /unusable call/, JSON.stringify(changed))
  }
  assert.throws(() => native.issueRun(fields, 0), /unusable call/)
  assert.throws(() => native.issueRun(fields), /unusable call/)
})

test('the id functions write only into memory that cannot be detached', () => {
  const binding = require('../../lib/binding/load-binding.js')
  // The issue's attack transferred the scratch's buffer away and left the native side writing
  // into freed memory. A scratch over a plain ArrayBuffer (or part of one) is refused, ...
  const bytes = binding.SCRATCH_BYTES
  for (const scratch of [
    new Uint8Array(bytes),
    new Uint8Array(new ArrayBuffer(bytes + 8), 8),
    new Uint8Array(new SharedArrayBuffer(8)),
    new Uint8Array(new SharedArrayBuffer(bytes + 8), 8),
    new Uint32Array(new SharedArrayBuffer(bytes)),
  ]) {
    assert.throws(() => binding.setup(scratch), /SharedArrayBuffer/)
  }
  // ... a thread is set up once: a later setup (another copy of native.js) gets the first
  // one's scratch and id functions, and the scratch it brought is left alone, ...
  const unused = new Uint8Array(new SharedArrayBuffer(bytes))
  const again = binding.setup(unused)
  assert.equal(binding.setup(new Uint8Array(new SharedArrayBuffer(bytes))), again)
  assert.notEqual(again.scratch.buffer, unused.buffer)
  assert.equal(again.scratch.byteLength, bytes)
  // ... and the shared memory it takes cannot be transferred away.
  const shared = new SharedArrayBuffer(bytes)
  // (Node 20 throws a TypeError, Node 22 on a DOMException named DataCloneError.)
  assert.throws(() => structuredClone(shared, { transfer: [shared] }), /Found invalid (object|value) in transferList/)
  assert.equal(shared.byteLength, bytes)
  const { fields } = native.configure({ id: 1004 })
  assert.equal(native.issue(fields), undefined)
  assert.equal(decode(native.takeId()).id, 1004)
  assert.equal(native.takeId().readBigUInt64BE(0), native.takeBigInt())
})

test('past the configurations a thread keeps a slot for, calls carry their settings and stay right', () => {
  const generators = Array.from(
    { length: 4200 },
    (_, k) => new FlakeId({ id: 1005, epoch: 1_000_000 + k, seqMask: k % 2 ? 4095 : 1023 }),
  )
  const last = generators[generators.length - 1]
  const first = generators[0]
  for (const generator of [last, first, last]) {
    const before = Date.now()
    const parts = FlakeId.decompose(generator.next(), generator)
    assert.equal(parts.id, 1005)
    assert.ok(parts.timestamp >= before && parts.timestamp <= Date.now() + 1)
  }
})

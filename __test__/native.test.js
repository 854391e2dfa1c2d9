'use strict'
// The protocol between native.js and the id functions (src/js/protocol.rs says it): the
// reports as native.js decodes them, and the ids of a run as it rebuilds them.

const test = require('node:test')
const assert = require('node:assert/strict')
const binding = require('../load.js')
const native = require('../native.js')
const { decode } = require('./helpers')

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
  const { slot } = native.configure({ id: 1000, seqMask: 3 })
  // At most 4 ids a millisecond: a run asked for 10 stops at what is left of it.
  let taken = 0
  let report
  for (;;) {
    report = native.fillRun(slot, 10)
    if (native.decode.waitMs(report) > 0) break
    taken += native.decode.count(report)
    assert.ok(taken <= 8, 'never more than a millisecond or two of ids')
  }
  assert.equal(native.decode.met(report), MET_OVERFLOW)
  assert.equal(native.decode.waitMs(report), 1)
  assert.equal(native.decode.count(report), 0)
})

test('a run is rebuilt from its first id: consecutive, one generator, one millisecond', () => {
  const { slot } = native.configure({ id: 1001 })
  const report = native.fillRun(slot, 300)
  const count = native.decode.count(report)
  assert.ok(count >= 1 && count <= 300)
  const first = native.takeBigInt()
  const run = new native.Run(count)
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

test('one id is in the scratch both ways: takeId() and takeBigInt() agree', () => {
  const { slot } = native.configure({ id: 1002 })
  assert.equal(native.fill(slot), undefined)
  assert.equal(native.takeId().readBigUInt64BE(0), native.takeBigInt())
  assert.equal(decode(native.takeId()).id, 1002)
})

test('a slot no generator holds is refused, never read as an id', () => {
  for (const slot of [2 ** 31, 2 ** 32 - 1, 12345]) {
    assert.throws(() => native.fill(slot), /no id issued/)
    assert.throws(() => native.tryFillAt(slot, Date.now()), /no id issued/)
    assert.throws(() => native.fillRun(slot, 5), /no id issued/)
  }
  const { slot } = native.configure({ id: 1003 })
  assert.throws(() => native.fillRun(slot, 0), /no id issued/)
  assert.throws(() => native.fillRun(slot), /no id issued/)
})

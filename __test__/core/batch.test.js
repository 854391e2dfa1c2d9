'use strict'
// nextBatch(count) and nextBatchAsync(count): count ascending ids in one Buffer.

const test = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('../..')
const { decode } = require('../support/helpers')

/** The ids of a batch, asserting they strictly ascend. */
function ascending(batch) {
  const ids = []
  for (let offset = 0; offset < batch.length; offset += 8) ids.push(batch.readBigUInt64BE(offset))
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `id ${i} does not ascend`)
  return ids
}

test('fills past the counter by waiting for the next milliseconds', () => {
  const batch = new FlakeId({ id: 601 }).nextBatch(10_000)
  assert.ok(Buffer.isBuffer(batch))
  assert.equal(batch.length, 80_000)
  const ids = ascending(batch)
  const times = new Set(ids.map((id) => id >> 22n))
  assert.ok(times.size >= 3, '10,000 ids need 3 milliseconds at least')
  for (let offset = 0; offset < batch.length; offset += 8) assert.equal(decode(batch.subarray(offset)).id, 601)
})

test('batches and single ids of one state never overlap', () => {
  const generator = new FlakeId({ id: 602 })
  const other = new FlakeId({ id: 602 })
  const before = generator.next().readBigUInt64BE()
  const ids = ascending(other.nextBatch(5000))
  const after = generator.nextBigInt()
  assert.ok(before < ids[0] && ids.at(-1) < after)
})

test('with a clock option: follows it, one millisecond per run of seqMask + 1 ids', () => {
  let now = 10_000
  const generator = new FlakeId({ seqMask: 3, epoch: 10_000, clock: () => now++ })
  const ids = ascending(generator.nextBatch(10)).map((id) => ({
    time: Number(id >> 22n),
    sequence: Number(id & 0xfffn),
  }))
  assert.deepEqual(
    ids.map((id) => id.sequence),
    [0, 1, 2, 3, 0, 1, 2, 3, 0, 1],
  )
  assert.ok(ids.every((id, i) => i === 0 || id.time >= ids[i - 1].time))
})

test('a clock that stands still is not waited for forever', () => {
  const generator = new FlakeId({ seqMask: 1, clock: () => 5000 })
  assert.throws(() => generator.nextBatch(3), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
})

test('what the clock option throws or returns wrong ends the batch with that error', () => {
  const thrown = new Error('clock is broken')
  const throwing = new FlakeId({
    clock: () => {
      throw thrown
    },
  })
  assert.throws(
    () => throwing.nextBatch(2),
    (error) => error === thrown,
  )
  assert.throws(() => new FlakeId({ clock: () => NaN }).nextBatch(2), {
    name: 'RangeError',
    code: 'ERR_FLAKE_INVALID_CLOCK',
  })
  assert.throws(() => new FlakeId({ clock: () => '5' }).nextBatch(2), {
    name: 'TypeError',
    code: 'ERR_FLAKE_INVALID_CLOCK',
  })
})

test('a clock step back throws, as next() does', () => {
  const readings = [5000, 4000]
  const generator = new FlakeId({ clock: () => readings.shift() ?? 4000 })
  generator.next()
  assert.throws(() => generator.nextBatch(2), {
    code: 'ERR_FLAKE_CLOCK_BACKWARDS',
    message: 'Clock moved backwards. Refusing to generate id for 1000 milliseconds',
  })
})

const badCounts = [
  [0, RangeError, 'ERR_OUT_OF_RANGE', 'got 0'],
  [-1, RangeError, 'ERR_OUT_OF_RANGE', 'got -1'],
  [1.5, RangeError, 'ERR_OUT_OF_RANGE', 'got 1.5'],
  [NaN, RangeError, 'ERR_OUT_OF_RANGE', 'got NaN'],
  [2 ** 24 + 1, RangeError, 'ERR_OUT_OF_RANGE', 'got 16777217'],
  ['10', TypeError, 'ERR_INVALID_ARG_TYPE', 'got "10"'],
  [10n, TypeError, 'ERR_INVALID_ARG_TYPE', 'got 10n'],
  [undefined, TypeError, 'ERR_INVALID_ARG_TYPE', 'got undefined'],
]

test('a count that is not an integer from 1 to 2^24 is refused, naming it', async () => {
  const generator = new FlakeId()
  const clocked = new FlakeId({ clock: () => 5000 })
  for (const [count, type, code, got] of badCounts) {
    const expected = (error) => {
      assert.ok(error instanceof type, `${String(count)}: ${error}`)
      assert.equal(error.code, code)
      assert.equal(error.message, `The "count" argument must be an integer from 1 to 16777216, ${got}`)
      return true
    }
    assert.throws(() => generator.nextBatch(count), expected)
    // A promise-returning method rejects rather than throws.
    await assert.rejects(generator.nextBatchAsync(count), expected)
    await assert.rejects(clocked.nextBatchAsync(count), expected)
  }
})

test('nextBatchAsync: the same ids, made between turns of the event loop', async () => {
  const generator = new FlakeId({ id: 603 })
  let turns = 0
  const turning = setInterval(() => turns++, 0)
  const batch = await generator.nextBatchAsync(200_000)
  clearInterval(turning)
  assert.equal(batch.length, 1_600_000)
  const ids = ascending(batch)
  assert.ok(ids.every((id) => Number((id >> 12n) & 0x3ffn) === 603))
  // 200,000 ids take 49 ms or more: the event loop ran timers meanwhile.
  assert.ok(turns > 0)
  assert.equal(generator.stats().ids, 200_000)
})

test('nextBatchAsync with a clock option waits for it', async () => {
  let reads = 0
  const generator = new FlakeId({ seqMask: 1, clock: () => 5000 + Math.floor(reads++ / 4) })
  const ids = ascending(await generator.nextBatchAsync(6))
  assert.equal(ids.length, 6)
  assert.ok(Number(ids[5] >> 22n) - Number(ids[0] >> 22n) >= 2)
})

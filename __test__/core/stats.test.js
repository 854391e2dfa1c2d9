'use strict'
// stats(): counters of one instance.

const test = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('../..')

test('counts ids, overflows and clock step backs, per instance', () => {
  let now = 5000
  const generator = new FlakeId({ seqMask: 1, clock: () => now })
  assert.deepEqual(generator.stats(), { ids: 0, overflows: 0, clockBackwards: 0, waits: 0 })
  generator.next()
  generator.nextBigInt()
  assert.throws(() => generator.nextString(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
  now = 4999
  assert.throws(() => generator.next(), { code: 'ERR_FLAKE_CLOCK_BACKWARDS' })
  now = 5001
  generator.nextBatch(2)
  assert.deepEqual(generator.stats(), { ids: 4, overflows: 1, clockBackwards: 1, waits: 0 })
  assert.deepEqual(new FlakeId({ seqMask: 1, clock: () => now }).stats().ids, 0)
})

test('instances sharing a state keep their own counters', () => {
  const a = new FlakeId({ id: 700 })
  const b = new FlakeId({ id: 700 })
  a.next()
  a.next()
  b.next()
  assert.deepEqual([a.stats().ids, b.stats().ids], [2, 1])
})

test('a waiting call counts one overflow and one wait, however often it polls', async () => {
  let now = 5000
  let reads = 0
  const generator = new FlakeId({
    seqMask: 1,
    clock: () => {
      reads++
      return now
    },
  })
  generator.next()
  generator.next()
  const answered = new Promise((resolve) => generator.next((error, id) => resolve([error, id])))
  const readsBefore = reads
  while (reads < readsBefore + 5) await new Promise(setImmediate)
  assert.deepEqual(generator.stats(), { ids: 2, overflows: 1, clockBackwards: 0, waits: 1 })
  now = 5001
  const [error] = await answered
  assert.equal(error, null)
  assert.deepEqual(generator.stats(), { ids: 3, overflows: 1, clockBackwards: 0, waits: 1 })
})

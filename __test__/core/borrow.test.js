'use strict'
// allowedFutureMs: borrowing the next milliseconds instead of throwing, never too far ahead.

const test = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const FlakeId = require('../..')
const { decode, fcSeed } = require('../support/helpers')

test('overflow borrows the next milliseconds, up to the allowance', () => {
  const generator = new FlakeId({ seqMask: 1, allowedFutureMs: 2, clock: () => 5000 })
  const ids = Array.from({ length: 6 }, () => decode(generator.next()))
  assert.deepEqual(
    ids.map((id) => [id.time, id.sequence]),
    [
      [5000, 0],
      [5000, 1],
      [5001, 0],
      [5001, 1],
      [5002, 0],
      [5002, 1],
    ],
  )
  assert.throws(() => generator.next(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
  assert.deepEqual(generator.stats(), { ids: 6, overflows: 5, clockBackwards: 0, waits: 0 })
})

test('a step back within the allowance continues; a larger one throws', () => {
  let now = 5000
  const generator = new FlakeId({ allowedFutureMs: 3, clock: () => now })
  generator.next()
  now = 4997
  assert.deepEqual(decode(generator.next()), { time: 5000, id: 0, sequence: 1 })
  now = 4996
  assert.throws(() => generator.next(), {
    code: 'ERR_FLAKE_CLOCK_BACKWARDS',
    message: 'Clock moved backwards. Refusing to generate id for 4 milliseconds',
  })
  assert.deepEqual(generator.stats(), { ids: 2, overflows: 0, clockBackwards: 2, waits: 0 })
})

test('default 0 is flake-idgen: throw at once', () => {
  const generator = new FlakeId({ seqMask: 1, clock: () => 5000 })
  assert.equal(generator.allowedFutureMs, 0)
  generator.next()
  generator.next()
  assert.throws(() => generator.next(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
})

test('out of range is refused', () => {
  for (const allowedFutureMs of [-1, 1001, 0.5, 'soon']) {
    assert.throws(() => new FlakeId({ allowedFutureMs }), {
      code: 'ERR_FLAKE_INVALID_OPTION',
      message: /^option `allowedFutureMs` must be an integer number of ms from 0 to 1000/,
    })
  }
})

test('never more than allowedFutureMs ahead of the clock; ids increase', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 20 }),
      fc.integer({ min: 0, max: 3 }),
      fc.array(fc.tuple(fc.integer({ min: -10, max: 3 }), fc.integer({ min: 1, max: 12 })), {
        minLength: 1,
        maxLength: 40,
      }),
      (allowed, maskBits, steps) => {
        let now = 1_000_000
        const generator = new FlakeId({ allowedFutureMs: allowed, seqMask: 2 ** (maskBits + 1) - 1, clock: () => now })
        let last = -1n
        for (const [move, calls] of steps) {
          now += move
          for (let i = 0; i < calls; i++) {
            try {
              const id = generator.nextBigInt()
              assert.ok(id > last)
              last = id
              assert.ok(Number(id >> 22n) <= now + allowed)
            } catch (error) {
              assert.ok(
                ['ERR_FLAKE_SEQUENCE_OVERFLOW', 'ERR_FLAKE_CLOCK_BACKWARDS'].includes(error.code),
                error.message,
              )
              // Refused only when the next free millisecond, the last one's or the one after,
              // is past the allowance.
              assert.ok(last >= 0n && Number(last >> 22n) >= now + allowed)
            }
          }
        }
      },
    ),
    { seed: fcSeed('allowedFutureMs bound') },
  )
})

test('next(cb) borrows too, instead of waiting', async () => {
  const generator = new FlakeId({ seqMask: 1, allowedFutureMs: 1, clock: () => 5000 })
  const ids = await Promise.all([1, 2, 3, 4].map(() => generator.nextAsync()))
  assert.deepEqual(
    ids.map((id) => decode(id).time),
    [5000, 5000, 5001, 5001],
  )
  assert.equal(generator.stats().waits, 0)
})

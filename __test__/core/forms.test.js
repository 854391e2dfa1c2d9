'use strict'
// nextBigInt() and nextString(): the same ids as next(), from the same state, as other types.

const test = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const FlakeIdgen = require('flake-idgen')
const FlakeId = require('../..')
const { scriptedClock, fcSeed } = require('../support/helpers')

test('next, nextBigInt and nextString draw from one sequence', () => {
  const generator = new FlakeId({ datacenter: 7, worker: 3, epoch: 1000, clock: () => 5000 })
  const expected = (sequence) => (4000n << 22n) | (227n << 12n) | BigInt(sequence)
  assert.equal(generator.next().readBigUInt64BE(), expected(0))
  assert.equal(generator.nextBigInt(), expected(1))
  assert.equal(generator.nextString(), expected(2).toString())
  assert.equal(generator.next().readBigUInt64BE(), expected(3))
})

test('as flake-idgen reads, under the same clock', () => {
  fc.assert(
    fc.property(
      // From 1: flake-idgen's first id at exactly the epoch gets counter 1.
      fc.integer({ min: 1, max: 2 ** 42 - 1 }),
      fc.integer({ min: 0, max: 31 }),
      fc.integer({ min: 0, max: 31 }),
      fc.integer({ min: 1, max: 5 }),
      (time, datacenter, worker, calls) => {
        const clock = scriptedClock(time)
        const theirs = new FlakeIdgen({ datacenter, worker })
        const ours = new FlakeId({ datacenter, worker, clock: clock.read })
        for (let i = 0; i < calls; i++) {
          const expected = clock.withDateNow(() => theirs.next()).readBigUInt64BE()
          if (i % 2) assert.equal(ours.nextBigInt(), expected)
          else assert.equal(ours.nextString(), expected.toString())
        }
      },
    ),
    { seed: fcSeed('bigint and string forms') },
  )
})

test('they throw as next() does', () => {
  let now = 5000
  const generator = new FlakeId({ seqMask: 1, clock: () => now })
  generator.nextBigInt()
  generator.nextString()
  for (const form of ['next', 'nextBigInt', 'nextString']) {
    assert.throws(() => generator[form](), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
  }
  now = 4990
  for (const form of ['next', 'nextBigInt', 'nextString']) {
    assert.throws(() => generator[form](), {
      code: 'ERR_FLAKE_CLOCK_BACKWARDS',
      message: 'Clock moved backwards. Refusing to generate id for 10 milliseconds',
    })
  }
})

test('a decimal string, and a bigint that fits 64 bits', () => {
  const generator = new FlakeId({ id: 1023 })
  const text = generator.nextString()
  assert.match(text, /^[1-9][0-9]*$/)
  const big = generator.nextBigInt()
  assert.ok(big > BigInt(text) && big < 2n ** 64n)
})

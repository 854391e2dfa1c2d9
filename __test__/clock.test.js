'use strict'
// The `clock` option: a function of ms since 1970, read once per id; bad readings are errors.

const test = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('..')
const { decode } = require('./helpers')

test('each id reads the clock once', () => {
  let reads = 0
  const generator = new FlakeId({ epoch: 1000, clock: () => 1000 + 10 * ++reads })
  assert.deepEqual([decode(generator.next()), decode(generator.next())], [
    { time: 10, id: 0, sequence: 0 },
    { time: 20, id: 0, sequence: 0 },
  ])
  assert.equal(reads, 2)
})

test('fractions of a millisecond are dropped', () => {
  const generator = new FlakeId({ clock: () => 1234.9 })
  assert.equal(decode(generator.next()).time, 1234)
})

test('readings that are not a number are a TypeError', () => {
  for (const reading of ['1234', undefined, null, {}, new Date(), 5n]) {
    const generator = new FlakeId({ clock: () => reading })
    assert.throws(() => generator.next(), (error) => {
      assert.ok(error instanceof TypeError, error.message)
      assert.equal(error.code, 'ERR_FLAKE_INVALID_CLOCK')
      assert.match(error.message, /^clock\(\) must return a number of milliseconds since 1970, got /)
      return true
    })
  }
})

test('NaN, negative and infinite readings are a RangeError', () => {
  for (const [reading, shown] of [[NaN, 'NaN'], [-1, '-1'], [Infinity, 'Infinity'], [2 ** 60, '']]) {
    const generator = new FlakeId({ clock: () => reading })
    assert.throws(() => generator.next(), (error) => {
      assert.ok(error instanceof RangeError, error.message)
      assert.equal(error.code, 'ERR_FLAKE_INVALID_CLOCK')
      assert.ok(error.message.includes(`got ${shown}`), error.message)
      return true
    })
  }
})

test('an exception thrown by the clock propagates unchanged', () => {
  const boom = new Error('boom')
  const generator = new FlakeId({
    clock: () => {
      throw boom
    },
  })
  assert.throws(() => generator.next(), (error) => error === boom)
})

test('a clock behind the epoch is refused', () => {
  const generator = new FlakeId({ epoch: 1000, clock: () => 990 })
  assert.throws(() => generator.next(), {
    name: 'Error',
    code: 'ERR_FLAKE_CLOCK_BEFORE_EPOCH',
    message: 'Clock reads 990 ms, before the epoch 1000. Refusing to generate id for 10 milliseconds',
  })
})

test('a timestamp past 42 bits is a RangeError, not a wrapped id', () => {
  const generator = new FlakeId({ epoch: 5, clock: () => 2 ** 42 + 5 })
  assert.throws(() => generator.next(), { name: 'RangeError', code: 'ERR_FLAKE_TIMESTAMP_OVERFLOW' })
  const edge = new FlakeId({ epoch: 5, clock: () => 2 ** 42 + 4 })
  assert.equal(decode(edge.next()).time, 2 ** 42 - 1)
})

test('an epoch after the system clock is allowed with a custom clock', () => {
  const epoch = Date.now() + 60_000
  const generator = new FlakeId({ epoch, clock: () => epoch + 1 })
  assert.equal(decode(generator.next()).time, 1)
})

test('instances with a custom clock keep private state', () => {
  const a = new FlakeId({ id: 3, clock: () => 5000 })
  const b = new FlakeId({ id: 3, clock: () => 5000 })
  assert.deepEqual(a.next(), b.next())
})

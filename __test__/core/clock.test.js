'use strict'
// The `clock` option: a function of ms since 1970, read once per id; bad readings are errors.

const test = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('../..')
const { decode } = require('../support/helpers')

test('each id reads the clock once', () => {
  let reads = 0
  const generator = new FlakeId({ epoch: 1000, clock: () => 1000 + 10 * ++reads })
  assert.deepEqual(
    [decode(generator.next()), decode(generator.next())],
    [
      { time: 10, id: 0, sequence: 0 },
      { time: 20, id: 0, sequence: 0 },
    ],
  )
  assert.equal(reads, 2)
})

test('fractions of a millisecond are dropped', () => {
  const generator = new FlakeId({ clock: () => 1234.9 })
  assert.equal(decode(generator.next()).time, 1234)
})

test('readings that are not a number are a TypeError', () => {
  for (const reading of ['1234', undefined, null, {}, new Date(), 5n]) {
    const generator = new FlakeId({ clock: () => reading })
    assert.throws(
      () => generator.next(),
      (error) => {
        assert.ok(error instanceof TypeError, error.message)
        assert.equal(error.code, 'ERR_FLAKE_INVALID_CLOCK')
        assert.match(error.message, /^clock\(\) must return a number of milliseconds since 1970, got /)
        return true
      },
    )
  }
})

test('NaN, negative and infinite readings are a RangeError', () => {
  for (const [reading, shown] of [
    [NaN, 'NaN'],
    [-1, '-1'],
    [Infinity, 'Infinity'],
    [2 ** 60, ''],
  ]) {
    const generator = new FlakeId({ clock: () => reading })
    assert.throws(
      () => generator.next(),
      (error) => {
        assert.ok(error instanceof RangeError, error.message)
        assert.equal(error.code, 'ERR_FLAKE_INVALID_CLOCK')
        assert.ok(error.message.includes(`got ${shown}`), error.message)
        return true
      },
    )
  }
})

test('an exception thrown by the clock propagates unchanged', () => {
  const boom = new Error('boom')
  const generator = new FlakeId({
    clock: () => {
      throw boom
    },
  })
  assert.throws(
    () => generator.next(),
    (error) => error === boom,
  )
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

test('without a `clock`, ids are by the system clock, not by a Date.now replaced (fake timers)', () => {
  const generator = new FlakeId({ id: 11, scope: 'process' })
  const realNow = Date.now
  const before = realNow()
  // A year ahead, as fake timers set to a date may be: an id of that time would be a year early.
  Date.now = () => realNow() + 365 * 24 * 3600 * 1000
  let id
  try {
    id = generator.next()
  } finally {
    Date.now = realNow
  }
  const { time } = decode(id)
  assert.ok(time >= before && time <= Date.now(), `an id of ${new Date(time).toISOString()}`)
})

test('instances with a custom clock keep private state', () => {
  const a = new FlakeId({ id: 3, clock: () => 5000 })
  const b = new FlakeId({ id: 3, clock: () => 5000 })
  assert.deepEqual(a.next(), b.next())
})

test('a callback waiting on a clock of the user’s is answered soon after that clock catches up', async () => {
  // The case: a fake clock stepped back a minute, then moved past it 20 ms later. The
  // wait used to sleep the minute in real time without reading the clock again.
  let now = Date.parse('2030-01-01')
  const generator = new FlakeId({ clock: () => now })
  generator.next()
  now -= 60_000
  const started = Date.now()
  const answered = new Promise((resolve) => generator.next((error, id) => resolve([error, id])))
  setTimeout(() => (now += 120_000), 20)
  const [error, id] = await answered
  assert.equal(error, null)
  assert.equal(decode(id).time, Date.parse('2030-01-01') + 60_000)
  assert.ok(Date.now() - started < 10_000, 'answered once the clock caught up, not a minute later')
})

test('a clock that jumps far back does not set timers past what Node allows', async () => {
  const warnings = []
  const onWarning = (warning) => warnings.push(warning.name)
  process.on('warning', onWarning)
  let now = 4e12
  const generator = new FlakeId({ clock: () => now })
  generator.next()
  now = 1000
  const answered = new Promise((resolve) => generator.next(resolve))
  await new Promise((resolve) => setTimeout(resolve, 100))
  now = 4e12 + 1
  assert.equal(await answered, null)
  // The system clock's waits are clamped too: a generator borrowed far ahead waits in steps.
  const ahead = new FlakeId({ id: 646, allowedFutureMs: 1000, scope: 'process' })
  for (let i = 0; i < 4096 * 1001; i++) ahead.next()
  const waited = new Promise((resolve) => ahead.next(resolve))
  assert.equal(await waited, null)
  process.off('warning', onWarning)
  assert.deepEqual(
    warnings.filter((name) => name === 'TimeoutOverflowWarning'),
    [],
  )
})

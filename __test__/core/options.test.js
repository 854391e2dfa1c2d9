'use strict'
// Every option flake-idgen would silently mask is refused, naming the option and the value.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const FlakeId = require('../..')

const refusals = [
  // [options, error class, message fragment naming option and value]
  [{ worker: 32 }, RangeError, 'option `worker` must be an integer from 0 to 31, got 32'],
  [{ worker: -1 }, RangeError, 'option `worker` must be an integer from 0 to 31, got -1'],
  [{ datacenter: 1.5 }, RangeError, 'option `datacenter` must be an integer from 0 to 31, got 1.5'],
  [{ datacenter: NaN }, RangeError, 'got NaN'],
  [{ id: 1024 }, RangeError, 'option `id` must be an integer from 0 to 1023, got 1024'],
  [{ id: '2000' }, RangeError, 'option `id` must be an integer from 0 to 1023, got "2000"'],
  [{ worker: 'abc' }, TypeError, 'option `worker` must be an integer from 0 to 31, got "abc"'],
  [{ worker: '' }, TypeError, 'option `worker` must be an integer from 0 to 31, got ""'],
  [{ worker: true }, TypeError, 'got true'],
  [{ worker: 3n }, TypeError, 'got 3n'],
  [{ worker: [3] }, TypeError, 'got an array'],
  [{ worker: {} }, TypeError, 'got an object'],
  [{ worker: Symbol('w') }, TypeError, 'got a symbol'],
  [{ seqMask: '0' }, RangeError, 'option `seqMask` must be 2^k - 1 for k from 1 to 12 (1, 3, 7, ..., 4095), got "0"'],
  [{ seqMask: 5 }, RangeError, 'option `seqMask`'],
  [{ seqMask: 8191 }, RangeError, 'got 8191'],
  [{ epoch: Date.now() + 60_000 }, RangeError, 'option `epoch` must be not in the future'],
  [{ epoch: new Date(NaN) }, RangeError, 'got Invalid Date'],
  [{ epoch: -1 }, RangeError, 'option `epoch`'],
  [
    { epoch: '2020-01-01' },
    TypeError,
    'option `epoch` must be a non-negative integer number (or bigint) of ms since 1970, a Date or a numeric string, got "2020-01-01"',
  ],
  [{ clock: 5 }, TypeError, 'option `clock` must be a function returning milliseconds since 1970, got 5'],
]

for (const [options, ErrorClass, message] of refusals) {
  test(`refuses ${require('node:util').inspect(options)}`, () => {
    assert.throws(
      () => new FlakeId(options),
      (error) => {
        assert.ok(error instanceof ErrorClass, `${error.name}: ${error.message}`)
        assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
        assert.ok(error.message.includes(message), error.message)
        return true
      },
    )
  })
}

test('options that are not an object are a TypeError', () => {
  for (const options of [5, 'id', true, [], () => {}]) {
    assert.throws(() => new FlakeId(options), {
      name: 'TypeError',
      code: 'ERR_FLAKE_INVALID_OPTION',
      message: /^options must be an object/,
    })
  }
})

test('no options, undefined and null all mean the defaults', () => {
  for (const generator of [new FlakeId(), new FlakeId(undefined), new FlakeId(null), new FlakeId({})]) {
    assert.deepEqual(
      [generator.id, generator.datacenter, generator.worker, generator.epoch, generator.seqMask],
      [0, 0, 0, 0, 4095],
    )
  }
})

test('every valid seqMask is accepted', () => {
  for (let k = 1; k <= 12; k++) assert.equal(new FlakeId({ seqMask: 2 ** k - 1 }).seqMask, 2 ** k - 1)
})

test('the edges of each range are accepted', () => {
  assert.equal(new FlakeId({ datacenter: 31, worker: 31 }).id, 1023)
  assert.equal(new FlakeId({ id: 1023 }).id, 1023)
  assert.equal(new FlakeId({ id: '0' }).id, 0)
  const now = Date.now()
  assert.equal(new FlakeId({ epoch: now }).epoch, now)
})

test('datacenter and worker are ignored, not checked, when id is given (as in flake-idgen)', () => {
  const generator = new FlakeId({ id: 7, datacenter: 99, worker: 'x' })
  assert.deepEqual([generator.id, generator.datacenter, generator.worker], [7, undefined, undefined])
})

test('an exception thrown by an option getter propagates unchanged', () => {
  const boom = new Error('boom')
  const options = {
    get worker() {
      throw boom
    },
  }
  assert.throws(
    () => new FlakeId(options),
    (error) => error === boom,
  )
})

test('properties are read-only', () => {
  const generator = new FlakeId({ id: 5 })
  assert.throws(() => {
    generator.id = 6
  }, TypeError)
  assert.equal(generator.id, 5)
})

/** Options whose every property is a getter answering `answers[name][n]` on its n-th read. */
function counted(answers) {
  const reads = {}
  const options = {}
  for (const [name, values] of Object.entries(answers)) {
    reads[name] = 0
    Object.defineProperty(options, name, {
      enumerable: true,
      get: () => values[Math.min(reads[name]++, values.length - 1)],
    })
  }
  return { options, reads }
}

test('each option is read exactly once, and the value used is the first one read', () => {
  const first = () => 1_700_000_000_000
  const later = () => 1_700_000_000_000 + 3_600_000
  // Either set of options alone configures a generator: a second read of any of them would
  // change what the instance reports, or make it refuse.
  const byId = counted({
    id: [9, 10],
    datacenter: [1, 2],
    worker: [3, 4],
    epoch: [1000, 2000],
    seqMask: [255, 4095],
    clock: [first, later],
    allowedFutureMs: [5, 7],
    scope: [undefined, 'host'],
    stateDir: [undefined, '/tmp'],
  })
  const generator = new FlakeId(byId.options)
  assert.deepEqual(byId.reads, {
    id: 1,
    datacenter: 1,
    worker: 1,
    epoch: 1,
    seqMask: 1,
    clock: 1,
    allowedFutureMs: 1,
    scope: 1,
    stateDir: 1,
  })
  assert.deepEqual(
    [
      generator.id,
      generator.datacenter,
      generator.worker,
      generator.epoch,
      generator.seqMask,
      generator.allowedFutureMs,
      generator.scope,
    ],
    [9, undefined, undefined, 1000, 255, 5, 'process'],
  )
  assert.equal(FlakeId.decompose(generator.next(), generator).timestamp, first())

  const byParts = counted({
    id: [undefined, 7],
    datacenter: [2, 'x'],
    worker: [3, 99],
    epoch: [undefined, Date.now() + 60_000],
    seqMask: [undefined, 5],
    clock: [undefined, 5],
    allowedFutureMs: [undefined, -1],
    scope: ['process', 'bogus'],
    stateDir: [undefined, 'relative'],
  })
  const plain = new FlakeId(byParts.options)
  assert.deepEqual(Object.values(byParts.reads), Array(9).fill(1))
  assert.deepEqual(
    [plain.id, plain.datacenter, plain.worker, plain.epoch, plain.seqMask, plain.scope],
    [(2 << 5) | 3, 2, 3, 0, 4095, 'process'],
  )
})

test('a clock getter that answers later cannot disturb other generators of its id', () => {
  let reads = 0
  const sneaky = new FlakeId({
    worker: 21,
    get clock() {
      return reads++ ? () => Date.now() + 3_600_000 : undefined
    },
  })
  sneaky.next()
  sneaky.nextBatch(10)
  assert.equal(reads, 1)
  // On the system clock, as read: the next generator of worker 21 is not an hour behind.
  for (let i = 0; i < 3; i++) new FlakeId({ worker: 21 }).next()
  assert.ok(Math.abs(FlakeId.decompose(new FlakeId({ worker: 21 }).next()).timestamp - Date.now()) < 1000)
})

test('messages never echo a whole value', () => {
  const long = '9'.repeat(1e6)
  for (const [options, got] of [
    [{ worker: long }, `got "${'9'.repeat(40)}…"`],
    [{ epoch: `x${long}` }, `got "x${'9'.repeat(39)}…"`],
    [{ seqMask: 10n ** 100n }, `got 1${'0'.repeat(39)}…n`],
    [{ worker: 1e300 }, 'got 1e+300'],
    [{ datacenter: 1.5e-7 }, 'got 1.5e-7'],
    [{ id: -Infinity }, 'got -Infinity'],
    [{ clock: 2 ** 70 }, 'got 1.1805916207174113e+21'],
  ]) {
    assert.throws(
      () => new FlakeId(options),
      (error) => {
        assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
        assert.ok(error.message.endsWith(got), error.message.slice(0, 200))
        return true
      },
    )
  }
  // A path is shown whole up to 120 characters, else cut in the middle, keeping its end; escaped
  // as a JSON string is (C:\\ on Windows).
  const longDir = `${path.parse(process.cwd()).root}${'a'.repeat(1e6)}`
  assert.throws(
    () => new FlakeId({ stateDir: longDir }),
    (error) => {
      assert.equal(error.code, 'ERR_FLAKE_STATE_DIR')
      assert.ok(
        error.message.startsWith(
          `state directory ${JSON.stringify(longDir.slice(0, 40)).slice(0, -1)}…${'a'.repeat(40)}" cannot be used: `,
        ),
        error.message.slice(0, 200),
      )
      assert.ok(error.message.length < 300, `${error.message.length} characters`)
      return true
    },
  )
})

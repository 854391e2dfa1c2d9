'use strict'
// Every option flake-idgen would silently mask is refused, naming the option and the value.

const test = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('..')

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
  [{ epoch: '2020-01-01' }, TypeError, 'option `epoch` must be a non-negative integer number of ms since 1970, a Date or a numeric string, got "2020-01-01"'],
  [{ clock: 5 }, TypeError, 'option `clock` must be a function returning milliseconds since 1970, got 5'],
]

for (const [options, ErrorClass, message] of refusals) {
  test(`refuses ${require('node:util').inspect(options)}`, () => {
    assert.throws(() => new FlakeId(options), (error) => {
      assert.ok(error instanceof ErrorClass, `${error.name}: ${error.message}`)
      assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
      assert.ok(error.message.includes(message), error.message)
      return true
    })
  })
}

test('options that are not an object are a TypeError', () => {
  for (const options of [5, 'id', true, [], () => {}]) {
    assert.throws(() => new FlakeId(options), { name: 'TypeError', code: 'ERR_FLAKE_INVALID_OPTION', message: /^options must be an object/ })
  }
})

test('no options, undefined and null all mean the defaults', () => {
  for (const generator of [new FlakeId(), new FlakeId(undefined), new FlakeId(null), new FlakeId({})]) {
    assert.deepEqual([generator.id, generator.datacenter, generator.worker, generator.epoch, generator.seqMask], [0, 0, 0, 0, 4095])
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
  assert.throws(() => new FlakeId(options), (error) => error === boom)
})

test('properties are read-only', () => {
  const generator = new FlakeId({ id: 5 })
  assert.throws(() => {
    generator.id = 6
  }, TypeError)
  assert.equal(generator.id, 5)
})

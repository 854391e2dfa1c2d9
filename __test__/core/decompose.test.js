'use strict'
// FlakeId.decompose(id, { epoch }) and FlakeId.fromTime(time, { epoch }).

const test = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const FlakeId = require('../..')
const { fcSeed } = require('../support/helpers')

test('the README example, in every accepted form', () => {
  const n = 5828128208445124608n
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64BE(n)
  const forms = [
    n,
    n.toString(),
    `0x${n.toString(16)}`,
    `0X${n.toString(16).toUpperCase()}`,
    bytes,
    new Uint8Array(bytes),
  ]
  const timestamp = Number(n >> 22n)
  for (const form of forms) {
    assert.deepEqual(FlakeId.decompose(form), {
      timestamp,
      date: new Date(timestamp),
      datacenter: 7,
      worker: 3,
      id: 227,
      sequence: 0,
    })
  }
})

test('gives back what made the id', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1_700_000_000_000 }),
      fc.integer({ min: 0, max: 2 ** 41 }),
      fc.integer({ min: 0, max: 31 }),
      fc.integer({ min: 0, max: 31 }),
      fc.integer({ min: 1, max: 50 }),
      (epoch, since, datacenter, worker, count) => {
        const time = epoch + since
        const generator = new FlakeId({ datacenter, worker, epoch, clock: () => time })
        const batch = generator.nextBatch(count)
        const last = FlakeId.decompose(batch.subarray(-8), generator)
        assert.deepEqual(last, {
          timestamp: time,
          date: new Date(time),
          datacenter,
          worker,
          id: (datacenter << 5) | worker,
          sequence: count - 1,
        })
        assert.equal(FlakeId.decompose(generator.nextString(), { epoch: new Date(epoch) }).sequence, count)
      },
    ),
    { seed: fcSeed('decompose round trip') },
  )
})

test('anything but an id of 64 bits is refused, naming it', () => {
  const cases = [
    [42, TypeError, 'ERR_INVALID_ARG_TYPE', 'got 42'],
    [null, TypeError, 'ERR_INVALID_ARG_TYPE', 'got null'],
    [new Uint16Array(4), TypeError, 'ERR_INVALID_ARG_TYPE', 'got a typed array other than Uint8Array'],
    ['abc', TypeError, 'ERR_INVALID_ARG_VALUE', 'got "abc"'],
    ['', TypeError, 'ERR_INVALID_ARG_VALUE', 'got ""'],
    ['-1', TypeError, 'ERR_INVALID_ARG_VALUE', 'got "-1"'],
    ['0x', TypeError, 'ERR_INVALID_ARG_VALUE', 'got "0x"'],
    ['0xfg', TypeError, 'ERR_INVALID_ARG_VALUE', 'got "0xfg"'],
    ['18446744073709551616', RangeError, 'ERR_OUT_OF_RANGE', 'got "18446744073709551616"'],
    ['0x1ffffffffffffffff', RangeError, 'ERR_OUT_OF_RANGE', 'got "0x1ffffffffffffffff"'],
    [2n ** 64n, RangeError, 'ERR_OUT_OF_RANGE', 'got 18446744073709551616n'],
    [-1n, RangeError, 'ERR_OUT_OF_RANGE', 'got -1n'],
    [Buffer.alloc(7), RangeError, 'ERR_OUT_OF_RANGE', 'got a Buffer of 7 bytes'],
  ]
  for (const [id, type, code, got] of cases) {
    assert.throws(
      () => FlakeId.decompose(id),
      (error) => {
        assert.ok(error instanceof type, `${String(id)}: ${error}`)
        assert.equal(error.code, code)
        assert.match(
          error.message,
          /^The "id" argument must be a Buffer of 8 bytes, a bigint, a decimal string or a 0x-prefixed hex string/,
        )
        assert.ok(error.message.endsWith(got), error.message)
        return true
      },
    )
  }
  // Never the whole value: a string is cut to 40 characters and "…", a number printed as JS does.
  assert.throws(
    () => FlakeId.decompose('9'.repeat(1e6)),
    (error) => {
      assert.equal(error.code, 'ERR_OUT_OF_RANGE')
      assert.ok(error.message.endsWith(`got "${'9'.repeat(40)}…"`), error.message.slice(0, 300))
      assert.ok(error.message.length < 200, `${error.message.length} characters`)
      return true
    },
  )
  assert.throws(() => FlakeId.decompose(`x${'9'.repeat(1e6)}`), {
    code: 'ERR_INVALID_ARG_VALUE',
    message: /got "x9{39}…"$/,
  })
  assert.throws(() => FlakeId.decompose(10n ** 1000n), { code: 'ERR_OUT_OF_RANGE', message: /got 10{39}…n$/ })
  for (const [id, got] of [
    [1e300, '1e+300'],
    [1.5e-7, '1.5e-7'],
    [-0, '0'],
    [NaN, 'NaN'],
    [-Infinity, '-Infinity'],
  ]) {
    assert.throws(
      () => FlakeId.decompose(id),
      (error) => error.code === 'ERR_INVALID_ARG_TYPE' && error.message.endsWith(`, got ${got}`),
    )
  }
  assert.throws(() => FlakeId.fromTime(1e300), { code: 'ERR_OUT_OF_RANGE', message: /, got 1e\+300$/ })
  assert.equal(FlakeId.decompose('0xffffffffffffffff').sequence, 4095)
  assert.equal(FlakeId.decompose(' 42\n').sequence, 42)
})

test('an options argument that is not an object is a bad argument', () => {
  for (const [options, got] of [
    [5, '5'],
    ['x', '"x"'],
    [true, 'true'],
    [[], 'an array'],
    [() => {}, 'a function'],
    [1e300, '1e+300'],
  ]) {
    for (const call of [() => FlakeId.decompose(1n, options), () => FlakeId.fromTime(0, options)]) {
      assert.throws(call, {
        name: 'TypeError',
        code: 'ERR_INVALID_ARG_TYPE',
        message: `The "options" argument must be an object such as { layout, epoch } (a FlakeId instance will do), got ${got}`,
      })
    }
  }
  // undefined and null are no options; an instance is options.
  assert.equal(FlakeId.decompose(1n, null).sequence, 1)
  assert.equal(FlakeId.fromTime(5, undefined), 5n << 22n)
  assert.equal(FlakeId.fromTime(5000, new FlakeId({ epoch: 1000 })), 4000n << 22n)
})

test('an epoch past what a Date holds blames the epoch, not the id or the time', () => {
  const message = /^option `epoch` must be a time a Date holds, at most 8640000000000000 ms since 1970, got /
  for (const epoch of [8.64e15 + 1, Number.MAX_SAFE_INTEGER, String(Number.MAX_SAFE_INTEGER)]) {
    for (const call of [
      () => FlakeId.decompose(0n, { epoch }),
      () => FlakeId.decompose('1', { epoch }),
      () => FlakeId.fromTime(0, { epoch }),
    ]) {
      assert.throws(call, { name: 'RangeError', code: 'ERR_FLAKE_INVALID_OPTION', message })
    }
  }
  assert.equal(FlakeId.decompose(0n, { epoch: 8.64e15 }).timestamp, 8.64e15)
  // A valid epoch: an id whose time would be past a Date is the id's fault.
  assert.throws(() => FlakeId.decompose(1n << 22n, { epoch: 8.64e15 }), {
    name: 'RangeError',
    code: 'ERR_OUT_OF_RANGE',
    message: /^The "id" argument/,
  })
})

test('a bad epoch option is refused as the constructor refuses it', () => {
  assert.throws(() => FlakeId.decompose(1n, { epoch: 'soon' }), { name: 'TypeError', code: 'ERR_FLAKE_INVALID_OPTION' })
  assert.throws(() => FlakeId.decompose(1n, { epoch: -1 }), { name: 'RangeError', code: 'ERR_FLAKE_INVALID_OPTION' })
})

test('fromTime: the smallest id of a millisecond', () => {
  const epoch = 1_600_000_000_000
  const time = 1_795_300_000_123
  const smallest = FlakeId.fromTime(time, { epoch })
  assert.equal(smallest, BigInt(time - epoch) << 22n)
  assert.equal(FlakeId.fromTime(new Date(time + 0.9), { epoch }), smallest)
  for (const id of [1023, 0]) {
    const made = new FlakeId({ id, epoch, clock: () => time }).nextBigInt()
    assert.ok(made >= smallest && made < FlakeId.fromTime(time + 1, { epoch }))
    assert.ok(new FlakeId({ id, epoch, clock: () => time - 1 }).nextBigInt() < smallest)
  }
  assert.equal(FlakeId.fromTime(0), 0n)
})

test('fromTime refuses times outside the 42 bits after the epoch', () => {
  for (const time of [999, 1000 + 2 ** 42, NaN, -1, Infinity, new Date(NaN)]) {
    assert.throws(() => FlakeId.fromTime(time, { epoch: 1000 }), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' })
  }
  for (const time of ['1000', 1000n, undefined]) {
    assert.throws(() => FlakeId.fromTime(time), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
  }
  assert.throws(() => FlakeId.fromTime(999, { epoch: 1000 }), {
    message: 'The "time" argument must be from the epoch 1000 to 4398046512103 (42 bits of ms after it), got 999',
  })
})

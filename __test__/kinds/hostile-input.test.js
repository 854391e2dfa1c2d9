'use strict'
// Issue 33, item 9: hostile or mistaken input gets a coded error naming the option, in words
// that make sense to the user of the kind at hand, never an uncoded crash or a silent default.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const FlakeId = require('../..')
const { uuidv7, Flake128 } = FlakeId

const BIN = path.join(__dirname, '..', '..', 'bin', 'flake-idgen.js')

test('Flake128: an interface named after an Object.prototype member is an unknown interface', () => {
  for (const name of ['__proto__', 'toString', 'constructor', 'hasOwnProperty', 'valueOf']) {
    assert.throws(
      () => new Flake128({ interface: name }),
      (error) =>
        error instanceof RangeError &&
        error.code === 'ERR_FLAKE_INVALID_OPTION' &&
        error.message.startsWith('option `interface` must be the name of a network interface'),
      name,
    )
    const { status, stderr } = spawnSync(process.execPath, [BIN, 'flake128', '--interface', name], {
      encoding: 'utf8',
    })
    assert.equal(status, 2, stderr)
    assert.match(stderr, /^flake-idgen: --interface must be the name of a network interface .*\n$/)
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack')
  }
})

test('a layout object with a field of another name (a typo) is refused, naming the field', () => {
  const bits = { timeBits: 41, nodeBits: 10, sequenceBits: 12 }
  for (const [typo, value] of [
    ['timeUnit', 10],
    ['Epoch', 1288834974657],
    ['ordering', 'sequence-node'],
    ['sequence_bits', 12],
  ]) {
    const layout = { ...bits, [typo]: value }
    for (const use of [
      () => new FlakeId({ layout }),
      () => FlakeId.layout(layout),
      () => FlakeId.decompose(1n, { layout }),
      () => FlakeId.fromTime(Date.now(), { layout }),
    ]) {
      assert.throws(use, (error) => {
        assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
        assert.ok(error instanceof TypeError)
        assert.ok(error.message.startsWith(`option \`layout.${typo}\` must be left out`), error.message)
        return true
      })
    }
  }
  // What FlakeId.layout() and a generator's `layout` answer is a layout again, unchanged.
  for (const layout of [FlakeId.layout('discord'), new FlakeId({ layout: bits }).layout]) {
    assert.deepEqual(FlakeId.layout(layout), layout)
  }
})

test('decompose refuses an id that does not fit the layout: its bits past a 63-bit layout', () => {
  for (const layout of ['twitter', 'hazelcast', 'sonyflake', 'instagram', 'snowcast']) {
    const { timeBits, nodeBits, sequenceBits } = FlakeId.layout(layout)
    const bits = timeBits + nodeBits + sequenceBits
    if (bits === 64) continue
    assert.equal(typeof FlakeId.decompose(2n ** BigInt(bits) - 1n, { layout }).timestamp, 'number')
    for (const id of [2n ** 63n + 5n, 2n ** 64n - 1n, '0x8000000000000000']) {
      assert.throws(
        () => FlakeId.decompose(id, { layout }),
        (error) => error instanceof RangeError && error.code === 'ERR_OUT_OF_RANGE' && /63 bits/.test(error.message),
        `${layout} ${id}`,
      )
    }
  }
  // 64-bit layouts read every id.
  assert.equal(FlakeId.decompose(2n ** 64n - 1n).sequence, 4095)
})

test('a uuidv7/Flake128 clock past what the state counts is refused in their words: no epoch, not "48 bits"', () => {
  const past = 2 ** 42
  for (const [make, maker] of [
    [() => uuidv7.create({ clock: () => past })(), 'uuidv7()'],
    [() => uuidv7.create({ clock: () => past }).batch(2), 'uuidv7()'],
    [() => new Flake128({ worker: 1, clock: () => past }).next(), 'Flake128'],
  ]) {
    assert.throws(make, (error) => {
      assert.ok(error instanceof RangeError)
      assert.equal(error.code, 'ERR_FLAKE_TIMESTAMP_OVERFLOW')
      assert.ok(error.message.startsWith(`${maker}: the \`clock\` option reads ${past} ms since 1970`), error.message)
      assert.match(error.message, /42 bits of ms/)
      assert.doesNotMatch(error.message, /epoch|48 bits/)
      return true
    })
  }
  // The last millisecond the state counts still makes ids.
  assert.equal(uuidv7.timestamp(uuidv7.create({ clock: () => past - 1 })()), past - 1)
})

test('a stuck clock tells a uuidv7/Flake128 user what happened, not to "Provide callback function"', () => {
  const flake = new Flake128({ worker: 1, clock: () => 1e12 })
  const cases = [
    [uuidv7.create({ clock: () => 1e12 }), 'uuidv7()', 32768],
    [() => flake.next(), 'Flake128', 65536],
  ]
  for (const [make, maker, perMs] of cases) {
    assert.throws(
      () => {
        for (let i = 0; i <= perMs; i++) make()
      },
      (error) => {
        assert.equal(error.code, 'ERR_FLAKE_SEQUENCE_OVERFLOW')
        assert.ok(
          error.message.startsWith(`${maker}: all ${perMs} ids of the millisecond the \`clock\` option reads`),
          error.message,
        )
        assert.doesNotMatch(error.message, /callback/)
        return true
      },
    )
  }
  // FlakeId keeps flake-idgen's words.
  const generator = new FlakeId({ clock: () => 1e12 })
  assert.throws(
    () => {
      for (let i = 0; i <= 4096; i++) generator.next()
    },
    { message: 'Sequence exceeded its maximum value. Provide callback function to handle sequence overflow' },
  )
})

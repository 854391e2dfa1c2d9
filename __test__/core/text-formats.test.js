'use strict'
// Issue 53: 64-bit ids as fixed-width text. Each text row of lib/formats/formats.js is written by
// nextString(format) and read back by FlakeId.parse and FlakeId.decompose exactly as written:
// every id round-trips, string order is id order for every layout, and bad text is refused
// saying why (its length, which character where, a value past 64 bits), never read otherwise.
// That a client's nextString is the same function: formats.test.js.

const test = require('node:test')
const assert = require('node:assert/strict')
const { randomBytes } = require('node:crypto')
const FlakeId = require('../..')
const { FORMATS, TEXT_NAMES } = require('../../lib/formats/formats.js')

const TEXT_ROWS = FORMATS.filter((row) => TEXT_NAMES.includes(row.name))
const MAX = 2n ** 64n - 1n

/** The 8 bytes of `id`, a bigint. */
function bytesOf(id) {
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64BE(id)
  return bytes
}

// The edges of the range and of each form's digits, and random ids.
const EDGES = [0n, 1n, 9n, 10n, 31n, 32n, 61n, 62n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 63n - 1n, 2n ** 63n, MAX - 1n, MAX]
const RANDOM = Array.from({ length: 2000 }, () => randomBytes(8).readBigUInt64BE())

test('every text row round-trips through FlakeId.parse and decompose, for random ids and the edges', () => {
  for (const row of TEXT_ROWS) {
    for (const id of [...EDGES, ...RANDOM]) {
      const bytes = bytesOf(id)
      const text = row.fromBytes(bytes, 0)
      assert.deepEqual(FlakeId.parse(text, row.name), bytes, `${row.name}: ${text}`)
    }
    // decompose reads the same id, by the default layout and by the generator's.
    const generator = new FlakeId({ layout: 'discord', id: 77, epoch: 1000, clock: () => 9_000_000 })
    const id = generator.next()
    const text = row.fromBytes(id, 0)
    assert.deepEqual(
      FlakeId.decompose(text, { layout: generator.layout, epoch: 1000, format: row.name }),
      FlakeId.decompose(id, generator),
    )
    assert.deepEqual(FlakeId.decompose(text, { format: row.name }), FlakeId.decompose(id))
  }
  // Decimal by default, as nextString() writes it.
  assert.deepEqual(FlakeId.parse(MAX.toString()), bytesOf(MAX))
})

test('string order is id order, bytewise, in every fixed-width form, for every layout', () => {
  const presets = ['flake-idgen', 'twitter', 'discord', 'instagram', 'snowcast', 'hazelcast', 'sonyflake']
  let now = Date.parse('2030-01-01')
  for (const layout of presets) {
    // Ids in issue order, across many time units and sequences.
    const generator = new FlakeId({ layout, id: 1, clock: () => now })
    const ids = []
    for (let i = 0; i < 3000; i++) {
      if (i % 7 === 0) now += 13
      ids.push(generator.next())
    }
    // Past a layout's ids: the ends of the 64-bit range, which every form holds in its width.
    const all = [bytesOf(0n), bytesOf(1n), ...ids, bytesOf(MAX - 1n), bytesOf(MAX)]
    for (const row of TEXT_ROWS.filter((row) => row.name !== 'decimal')) {
      const texts = all.map((id) => row.fromBytes(id, 0))
      const width = texts[0].length
      for (let i = 1; i < texts.length; i++) {
        assert.equal(texts[i].length, width, `${layout} ${row.name}: ${texts[i]}`)
        assert.ok(
          Buffer.compare(Buffer.from(texts[i - 1]), Buffer.from(texts[i])) < 0,
          `${layout} ${row.name}: ${texts[i - 1]} < ${texts[i]}`,
        )
      }
    }
  }
  // Random ids too, sorted as numbers, sort as their texts.
  const sorted = [...RANDOM].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (const row of TEXT_ROWS.filter((row) => row.name !== 'decimal')) {
    const texts = sorted.map((id) => row.fromBytes(bytesOf(id), 0))
    assert.deepEqual([...texts].sort(), texts, row.name)
  }
})

test('nextString(format) on a generator: each row, from one sequence; a format that is no row is refused, no id taken', () => {
  const generator = new FlakeId({ id: 9, epoch: 1000, clock: () => 5000 })
  for (const [sequence, row] of TEXT_ROWS.entries()) {
    const expected = row.fromBytes(bytesOf((4000n << 22n) | (9n << 12n) | BigInt(sequence)), 0)
    assert.equal(generator.nextString(row.name), expected, row.name)
  }
  const taken = generator.stats().ids
  const listed = "one of 'decimal', 'base32', 'base62', 'hex'"
  for (const [format, ErrorClass, code, message] of [
    ['bas32', TypeError, 'ERR_INVALID_ARG_VALUE', `${listed} (did you mean 'base32'?), got "bas32"`],
    ['HEX', TypeError, 'ERR_INVALID_ARG_VALUE', `${listed} (did you mean 'hex'?), got "HEX"`],
    ['dec', TypeError, 'ERR_INVALID_ARG_VALUE', `${listed} (did you mean 'decimal'?), got "dec"`],
    ['base64', TypeError, 'ERR_INVALID_ARG_VALUE', `${listed} (did you mean 'base62'?), got "base64"`],
    ['toString', TypeError, 'ERR_INVALID_ARG_VALUE', `${listed}, got "toString"`],
    ['__proto__', TypeError, 'ERR_INVALID_ARG_VALUE', `${listed}, got "__proto__"`],
    [16, TypeError, 'ERR_INVALID_ARG_TYPE', `${listed}, got 16`],
    [{ toString: () => 'hex' }, TypeError, 'ERR_INVALID_ARG_TYPE', `${listed}, got an object`],
  ]) {
    assert.throws(() => generator.nextString(format), {
      name: ErrorClass.name,
      code,
      message: `The "format" argument must be ${message}`,
    })
  }
  assert.equal(generator.stats().ids, taken)
  // null and undefined are the default, as for every option of the package.
  assert.match(generator.nextString(null), /^[0-9]+$/)
  assert.match(generator.nextString(undefined), /^[0-9]+$/)
})

test('bad text is refused, saying why: its length, the character and where, a value past 64 bits', () => {
  const expected = {
    decimal: '1 to 20 decimal digits, of at most 2^64 - 1',
    base32: '13 Crockford base32 characters (0-9, A-Z but I, L, O, U; upper case only) of at most 2^64 - 1',
    base62: '11 base62 characters (0-9, A-Z, a-z) of at most 2^64 - 1',
    hex: '16 lowercase hex digits',
  }
  assert.deepEqual(Object.keys(expected), TEXT_NAMES)
  const cases = [
    ['decimal', '', 'it has 0 characters'],
    ['decimal', '1'.repeat(21), 'it has 21 characters'],
    ['decimal', ' 1', '" " at index 0 is not one of them'],
    ['decimal', '0x1f', '"x" at index 1 is not one of them'],
    ['decimal', '+1', '"+" at index 0 is not one of them'],
    ['decimal', '007', 'it starts with a 0, which decimal ids never do'],
    ['base32', '0'.repeat(12), 'it has 12 characters'],
    ['base32', '0'.repeat(14), 'it has 14 characters'],
    // Crockford's decoding would take lower case, and I and L for 1, O for 0: one id would have
    // many texts, and text equality would no longer be id equality.
    ['base32', '0000000000a00', '"a" at index 10 is not one of them'],
    ['base32', '000000000000I', '"I" at index 12 is not one of them'],
    ['base32', '0L00000000000', '"L" at index 1 is not one of them'],
    ['base32', '00O0000000000', '"O" at index 2 is not one of them'],
    ['base32', '000U000000000', '"U" at index 3 is not one of them'],
    ['base32', '0000-00000000', '"-" at index 4 is not one of them'],
    ['base62', '0000000000', 'it has 10 characters'],
    ['base62', '00000_00000', '"_" at index 5 is not one of them'],
    ['base62', '0000000000é', '"é" at index 10 is not one of them'],
    ['hex', '0'.repeat(15), 'it has 15 characters'],
    ['hex', `0x${'0'.repeat(14)}`, '"x" at index 1 is not one of them'],
    ['hex', '00000000000000FF', '"F" at index 14 is not one of them'],
  ]
  for (const [format, text, why] of cases) {
    const message = `The "string" argument must be ${expected[format]}, got ${JSON.stringify(text)}: ${why}`
    assert.throws(
      () => FlakeId.parse(text, format),
      { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message },
      `${format} ${text}`,
    )
    // decompose says the same of its "id".
    assert.throws(() => FlakeId.decompose(text, { format }), {
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_VALUE',
      message: message.replace('"string"', '"id"'),
    })
  }
  // Past 64 bits: base32's first character past F, base62's past LygHa16AHYF, decimal's past 2^64 - 1.
  for (const [format, last, past] of [
    ['base32', 'FZZZZZZZZZZZZ', 'G000000000000'],
    ['base62', 'LygHa16AHYF', 'LygHa16AHYG'],
    ['base62', 'LygHa16AHYF', 'zzzzzzzzzzz'],
    ['decimal', MAX.toString(), (MAX + 1n).toString()],
    ['decimal', MAX.toString(), '9'.repeat(20)],
  ]) {
    assert.deepEqual(FlakeId.parse(last, format), bytesOf(MAX))
    assert.throws(() => FlakeId.parse(past, format), {
      name: 'RangeError',
      code: 'ERR_OUT_OF_RANGE',
      message: `The "string" argument must be ${expected[format]}, got "${past}": it is past 2^64 - 1`,
    })
  }
  // Not a string, or a format that is no text row.
  for (const value of [5, 5n, null, bytesOf(5n)]) {
    assert.throws(() => FlakeId.parse(value, 'hex'), {
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_TYPE',
      message: /^The "string" argument must be 16 lowercase hex digits, got /,
    })
  }
  assert.throws(() => FlakeId.parse('0', 'base64'), {
    name: 'TypeError',
    code: 'ERR_INVALID_ARG_VALUE',
    message:
      /^The "format" argument must be one of 'decimal', 'base32', 'base62', 'hex' \(did you mean 'base62'\?\), got "base64"$/,
  })
  assert.throws(() => FlakeId.decompose('0', { format: 'bigint' }), {
    name: 'TypeError',
    code: 'ERR_FLAKE_INVALID_OPTION',
    message: "option `format` must be one of 'decimal', 'base32', 'base62', 'hex', got \"bigint\"",
  })
  // A format says how a string is written: ids of other types are read as they always are.
  assert.equal(FlakeId.decompose(bytesOf(4096n), { format: 'base32' }).id, 1)
})

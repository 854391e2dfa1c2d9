'use strict'
// Issue 53: the 128-bit kinds in the fixed-width forms of lib/formats/formats.js's rows that say
// `wide`: base32 (ULID's 26 characters: the 128 bits behind 2 zero bits, so the first is 0-7)
// and base62 (22). ULID's tools read a UUIDv7's base32 text, its time theirs; each kind reads
// its texts back exactly as written, and refuses bad ones saying why.

const test = require('node:test')
const assert = require('node:assert/strict')
const { randomBytes } = require('node:crypto')
const { decodeTime, monotonicFactory } = require('ulid')
const { uuidv7, Flake128 } = require('../..')
const { WIDE_NAMES } = require('../../lib/formats/formats.js')

const WIDTHS = { base32: 26, base62: 22 }
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const ALPHABETS = { base32: CROCKFORD, base62: BASE62 }
const MAX = 2n ** 128n - 1n

/** `value` (a bigint) in `format`, zero-padded: written here apart from the native side. */
function inBase(value, format) {
  const alphabet = ALPHABETS[format]
  const base = BigInt(alphabet.length)
  let text = ''
  for (let rest = value; text.length < WIDTHS[format]; rest /= base) text = alphabet[Number(rest % base)] + text
  return text
}

const bigIntOf = (bytes) => (bytes.readBigUInt64BE(0) << 64n) | bytes.readBigUInt64BE(8)
const bytesOf = (value) => {
  const bytes = Buffer.alloc(16)
  bytes.writeBigUInt64BE(value >> 64n)
  bytes.writeBigUInt64BE(value & (2n ** 64n - 1n), 8)
  return bytes
}

test('the 128-bit forms are the rows that say so', () => {
  assert.deepEqual(WIDE_NAMES, Object.keys(WIDTHS))
})

test("a UUIDv7's base32 text is ULID's: ULID's tools read its time; every form round-trips and sorts", () => {
  const generate = uuidv7.create({ scope: 'process' })
  const batch = generate.batch(3000)
  const ids = Array.from({ length: 3000 }, (_, i) => batch.subarray(16 * i, 16 * i + 16))
  for (const format of WIDE_NAMES) {
    const texts = ids.map((id) => uuidv7.stringify(id, 0, format))
    for (const [i, text] of texts.entries()) {
      assert.equal(text, inBase(bigIntOf(ids[i]), format))
      assert.deepEqual(uuidv7.parse(text, format), ids[i])
      assert.deepEqual(uuidv7.decompose(text), uuidv7.decompose(ids[i]))
      if (i > 0)
        assert.ok(Buffer.compare(Buffer.from(texts[i - 1]), Buffer.from(text)) < 0, `${texts[i - 1]} < ${text}`)
    }
    // From the offset asked for.
    assert.equal(uuidv7.stringify(batch, 32, format), texts[2])
  }
  for (const id of ids.slice(0, 100)) {
    const ulid = uuidv7.stringify(id, 0, 'base32')
    assert.match(ulid, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/)
    assert.equal(decodeTime(ulid), uuidv7.timestamp(id))
  }
  // And ULID's own text of the same millisecond sorts with ours by time.
  const ulid = monotonicFactory()(uuidv7.timestamp(ids[0]))
  assert.equal(ulid.slice(0, 10), uuidv7.stringify(ids[0], 0, 'base32').slice(0, 10))
})

test("a Flake128's base32 and base62 texts round-trip, sort, and read as its other forms do", () => {
  const flakes = new Flake128({ worker: 0xaabbccddeeff, scope: 'process' })
  const batch = flakes.nextBatch(3000)
  const ids = Array.from({ length: 3000 }, (_, i) => batch.subarray(16 * i, 16 * i + 16))
  for (const format of WIDE_NAMES) {
    const texts = ids.map((id) => Flake128.toText(id, format))
    for (const [i, text] of texts.entries()) {
      assert.equal(text, inBase(bigIntOf(ids[i]), format))
      assert.deepEqual(Flake128.parse(text, format), ids[i])
      assert.deepEqual(Flake128.decompose(text), Flake128.decompose(ids[i]))
      if (i > 0) assert.ok(texts[i - 1] < text, `${texts[i - 1]} < ${text}`)
    }
  }
  assert.equal(Flake128.toText(ids[0]), Flake128.toBase62(ids[0]))
  // The ends of 128 bits, as text and back.
  for (const value of [0n, 1n, MAX - 1n, MAX]) {
    for (const format of WIDE_NAMES) {
      const text = Flake128.toText(value, format)
      assert.equal(text, inBase(value, format))
      assert.deepEqual(Flake128.parse(text, format), bytesOf(value))
    }
  }
  assert.equal(Flake128.toText(MAX, 'base32'), `7${'Z'.repeat(25)}`)
})

test('bad texts are refused saying why; 128 bits that are not a UUIDv7 are not one', () => {
  const expected = {
    base32: '26 Crockford base32 characters (0-9, A-Z but I, L, O, U; upper case only) of at most 2^128 - 1',
    base62: '22 base62 characters (0-9, A-Z, a-z) of at most 2^128 - 1',
  }
  const uuid = uuidv7.stringify(uuidv7(undefined, Buffer.alloc(16)), 0, 'base32')
  for (const [format, text, name, code, why] of [
    ['base32', uuid.slice(1), 'TypeError', 'ERR_INVALID_ARG_VALUE', 'it has 25 characters'],
    [
      'base32',
      uuid.toLowerCase(),
      'TypeError',
      'ERR_INVALID_ARG_VALUE',
      `"${uuid[2].toLowerCase()}" at index 2 is not one of them`,
    ],
    ['base32', `8${'0'.repeat(25)}`, 'RangeError', 'ERR_OUT_OF_RANGE', 'it is past 2^128 - 1'],
    ['base62', `7n42DGM5Tflk9n8mt7L${'0'.repeat(3)}`, 'RangeError', 'ERR_OUT_OF_RANGE', 'it is past 2^128 - 1'],
    ['base62', `${'0'.repeat(21)}+`, 'TypeError', 'ERR_INVALID_ARG_VALUE', '"+" at index 21 is not one of them'],
  ]) {
    const message = `The "string" argument must be ${expected[format]}, got "${text}": ${why}`
    assert.throws(() => uuidv7.parse(text, format), { name, code, message }, `${format} ${text}`)
    // Base62 is a flake's own text, refused as it always was: a TypeError, past 128 bits too.
    if (format === 'base62')
      assert.throws(() => Flake128.parse(text, format), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' })
    else assert.throws(() => Flake128.parse(text, format), { name, code, message }, `${format} ${text}`)
  }
  // A flake's bits are no UUIDv7's (version 7, variant 10).
  const flake = Flake128.toText(new Flake128({ worker: 1, scope: 'process' }).next(), 'base32')
  assert.throws(() => uuidv7.parse(flake, 'base32'), {
    name: 'TypeError',
    code: 'ERR_INVALID_ARG_VALUE',
    message: `The "string" argument must be ${expected.base32} writing 16 bytes of a UUIDv7 (version 7, variant 10), got "${flake}"`,
  })
  assert.throws(() => uuidv7.decompose(flake), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' })
  // The 64-bit ids' forms are not the 128-bit kinds'; a format is checked before anything is read.
  for (const call of [
    () => uuidv7.stringify(Buffer.alloc(16), 0, 'hex'),
    () => uuidv7.parse(uuid, 'decimal'),
    () => Flake128.toText(1n, 'bas32'),
    () => Flake128.parse('0', 'hex'),
  ]) {
    assert.throws(call, {
      name: 'TypeError',
      code: 'ERR_INVALID_ARG_VALUE',
      message: /^The "format" argument must be one of 'base32', 'base62'/,
    })
  }
  assert.throws(() => uuidv7.stringify(Buffer.alloc(16), 0, 'base32'), {
    name: 'TypeError',
    code: 'ERR_INVALID_ARG_VALUE',
  })
  // Random 128 bits: base62 text past 2^128 - 1 is refused wherever it is.
  for (let i = 0; i < 200; i++) {
    const value = bigIntOf(randomBytes(16))
    assert.deepEqual(Flake128.parse(inBase(value, 'base62'), 'base62'), bytesOf(value))
    assert.deepEqual(Flake128.parse(inBase(value, 'base32'), 'base32'), bytesOf(value))
  }
})

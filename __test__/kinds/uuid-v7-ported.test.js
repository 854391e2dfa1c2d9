'use strict'
// Issue 33, item 1: uuid's own v7 tests (uuidjs/uuid, src/test/v7.test.ts, 14 tests), ported
// unchanged in substance against `uuidv7`: `v7` is `uuidv7`, uuid's parse/stringify are
// `uuidv7.parse`/`uuidv7.stringify`, TypeScript's annotations are dropped. Left out: 'v7() state
// transitions', which calls uuid's internal updateV7State() (no such function here: the host's
// shared state is the state). Then, by difference, the bytes of the installed uuid's v7() for
// the same options.

const assert = require('node:assert/strict')
const { describe, test } = require('node:test')
const { v7: uuidV7 } = require('uuid')
const { uuidv7: v7 } = require('../..')

const parse = (text) => new Uint8Array(v7.parse(text))
const stringify = (bytes) => v7.stringify(bytes)

// Fixture values for testing with the rfc v7 UUID example:
// https://www.rfc-editor.org/rfc/rfc9562.html#name-example-of-a-uuidv7-value
const RFC_V7 = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'
const RFC_V7_BYTES = parse('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')
const RFC_MSECS = 0x17f22e279b0

// `option.seq` for the above RFC uuid
const RFC_SEQ = (0x0cc3 << 20) | (0x98c4dc >> 2)

// `option,random` for the above RFC uuid
const RFC_RANDOM = Uint8Array.of(
  0x10,
  0x91,
  0x56,
  0xbe,
  0xc4,
  0xfb,
  0x0c,
  0xc3,
  0x18,
  0xc4,
  0x6c,
  0x0c,
  0x0c,
  0x07,
  0x39,
  0x8f,
)

describe('v7', () => {
  test('subsequent UUIDs are different', () => {
    const id1 = v7()
    const id2 = v7()
    assert.ok(id1 !== id2)
  })

  test('explicit options.random and options.msecs produces expected result', () => {
    const id = v7({
      random: RFC_RANDOM,
      msecs: RFC_MSECS,
      seq: RFC_SEQ,
    })
    assert.strictEqual(id, RFC_V7)
  })

  test('explicit options.rng produces expected result', () => {
    const id = v7({
      rng: () => RFC_RANDOM,
      msecs: RFC_MSECS,
      seq: RFC_SEQ,
    })
    assert.strictEqual(id, RFC_V7)
  })

  test('explicit options.msecs produces expected result', () => {
    const id = v7({
      msecs: RFC_MSECS,
    })
    assert.strictEqual(id.indexOf('017f22e2'), 0)
  })

  test('fills one UUID into a buffer as expected', () => {
    const buffer = new Uint8Array(16)
    const result = v7(
      {
        random: RFC_RANDOM,
        msecs: RFC_MSECS,
        seq: RFC_SEQ,
      },
      buffer,
    )
    stringify(buffer)

    assert.deepEqual(buffer, RFC_V7_BYTES)
    assert.strictEqual(buffer, result)
  })

  test('fills two UUIDs into a buffer as expected', () => {
    const buffer = new Uint8Array(32)

    v7(
      {
        random: RFC_RANDOM,
        msecs: RFC_MSECS,
        seq: RFC_SEQ,
      },
      buffer,
      0,
    )
    v7(
      {
        random: RFC_RANDOM,
        msecs: RFC_MSECS,
        seq: RFC_SEQ,
      },
      buffer,
      16,
    )
    const expected = new Uint8Array(32)
    expected.set(RFC_V7_BYTES)
    expected.set(RFC_V7_BYTES, 16)
    assert.deepEqual(buffer, expected)
  })

  //
  // monotonic and lexicographical sorting tests
  //

  test('lexicographical sorting is preserved', () => {
    let id
    let prior
    let msecs = RFC_MSECS
    for (let i = 0; i < 20000; ++i) {
      if (i % 1500 === 0) {
        // every 1500 runs increment msecs so seq is
        // reinitialized, simulating passage of time
        msecs += 1
      }

      id = v7({ msecs, seq: i })

      if (prior !== undefined) {
        assert.ok(prior < id, `${prior} < ${id}`)
      }

      prior = id
    }
  })

  test('can supply seq', () => {
    let seq = 0x12345
    let uuid = v7({
      msecs: RFC_MSECS,
      seq,
    })

    assert.strictEqual(uuid.substr(0, 25), '017f22e2-79b0-7000-848d-1')

    seq = 0x6fffffff
    uuid = v7({
      msecs: RFC_MSECS,
      seq,
    })

    assert.strictEqual(uuid.substring(0, 25), '017f22e2-79b0-76ff-bfff-f')
  })

  test('internal seq is reset upon timestamp change', () => {
    v7({
      msecs: RFC_MSECS,
      seq: 0x6fffffff,
    })

    const uuid = v7({
      msecs: RFC_MSECS + 1,
    })

    assert.ok(uuid.indexOf('fff') !== 15)
  })

  test('flipping bits changes the result', () => {
    // convert uint8array to BigInt (BE)
    const asBigInt = (buf) => buf.reduce((acc, v) => (acc << 8n) | BigInt(v), 0n)

    // convert the given number of bits (LE) to number
    const asNumber = (bits, data) => Number(BigInt.asUintN(bits, data))

    // flip the nth bit (BE) in a BigInt
    const flip = (data, n) => data ^ (1n << BigInt(127 - n))

    // Extract v7 `options` from a (BigInt) UUID
    const optionsFrom = (data) => {
      const ms = asNumber(48, data >> 80n)
      const hi = asNumber(12, data >> 64n)
      const lo = asNumber(20, data >> 42n)
      const r = BigInt.asUintN(42, data)
      return {
        msecs: ms,
        seq: (hi << 20) | lo,
        random: Uint8Array.from([
          ...Array(10).fill(0),
          ...Array(6)
            .fill(0)
            .map((_, i) => asNumber(8, r >> (BigInt(i) * 8n)))
            .reverse(),
        ]),
      }
    }
    const buf = new Uint8Array(16)
    const data = asBigInt(v7({}, buf))
    const id = stringify(buf)
    const reserved = [48, 49, 50, 51, 64, 65]
    for (let i = 0; i < 128; ++i) {
      if (reserved.includes(i)) {
        continue // skip bits used for version and variant
      }
      const flipped = flip(data, i)
      assert.strictEqual(
        asBigInt(v7(optionsFrom(flipped), buf)).toString(16),
        flipped.toString(16),
        `Unequal uuids at bit ${i}`,
      )
      assert.notStrictEqual(stringify(buf), id)
    }
  })

  test('throws when option.random is too short', () => {
    const random = Uint8Array.of(16)
    const buffer = new Uint8Array(16).fill(0)
    assert.throws(() => {
      v7({ random }, buffer)
    })
  })

  test('throws when options.rng() is too short', () => {
    const buffer = new Uint8Array(16)
    const rng = () => Uint8Array.of(0) // length = 1
    assert.throws(() => {
      v7({ rng }, buffer)
    })
  })

  test('throws RangeError for out-of-range indexes', () => {
    const buf15 = new Uint8Array(15)
    const buf30 = new Uint8Array(30)
    assert.throws(() => v7({}, buf15), RangeError)
    assert.throws(() => v7({}, buf30, -1), RangeError)
    assert.throws(() => v7({}, buf30, 15), RangeError)
  })
})

// --- By difference: the installed uuid's v7() ----------------------------------------------------

/** A seeded generator (mulberry32): the same cases on every run; the seed is printed. */
function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

test("the bytes of uuid's v7() for the same msecs, seq, random and rng, as text and into a buffer", (t) => {
  const seed = 33
  t.diagnostic(`seed ${seed}`)
  const random = mulberry32(seed)
  const bytes = () => Uint8Array.from({ length: 16 + Math.floor(random() * 3) }, () => Math.floor(random() * 256))
  for (let i = 0; i < 5000; i++) {
    const options = {}
    // Every subset of the four but the empty one, with values over their whole ranges.
    const which = 1 + (i % 15)
    if (which & 1) options.msecs = Math.floor(random() * 2 ** 48)
    if (which & 2) options.seq = Math.floor(random() * 2 ** 32) - (i % 2 ? 2 ** 31 : 0)
    if (which & 4) options.random = bytes()
    if (which & 8) {
      const given = bytes()
      options.rng = () => given
    }
    // Without random bytes of the caller, each side draws its own: the bytes they do not decide
    // are compared through fixed ones.
    if (options.random === undefined && options.rng === undefined) options.random = bytes()
    const shown = JSON.stringify({ ...options, rng: undefined })
    if (options.msecs === undefined) {
      // Both read Date.now(): the time within the call's, the rest the same.
      const from = Date.now()
      const [ours, theirs] = [v7(options), uuidV7(options)]
      const time = v7.timestamp(ours)
      assert.ok(time >= from && time <= Date.now(), shown)
      assert.equal(ours.slice(14), theirs.slice(14), shown)
      options.msecs = time
    }
    assert.equal(v7(options), uuidV7(options), shown)
    const ours = new Uint8Array(20)
    const theirs = new Uint8Array(20)
    assert.equal(v7(options, ours, i % 5), ours)
    uuidV7(options, theirs, i % 5)
    assert.deepEqual(ours, theirs)
  }
})

test('an explicit option leaves the host order alone: calls without one go on increasing', () => {
  const before = v7()
  // Far in the past and far in the future: neither moves the host's state.
  assert.ok(v7({ msecs: 0 }) < before)
  assert.ok(v7({ msecs: 2 ** 48 - 1 }) > before)
  const after = v7()
  assert.ok(after > before)
  assert.ok(v7.timestamp(after) - Date.now() < 1000, 'the host state did not jump to 2^48 - 1')
  // A generator with a clock of its own takes its time from it unless msecs says otherwise.
  const generator = v7.create({ clock: () => RFC_MSECS, scope: 'process' })
  assert.equal(generator({ random: RFC_RANDOM, seq: RFC_SEQ }), RFC_V7)
})

test('bad values of the options are refused, naming the option; unknown keys too', () => {
  const cases = [
    [{ msecs: -1 }, RangeError, 'options.msecs'],
    [{ msecs: 2 ** 48 }, RangeError, 'options.msecs'],
    [{ msecs: Number.NaN }, RangeError, 'options.msecs'],
    [{ msecs: '5' }, TypeError, 'options.msecs'],
    [{ seq: 1.5 }, RangeError, 'options.seq'],
    [{ seq: 2 ** 32 }, RangeError, 'options.seq'],
    [{ seq: 1n }, TypeError, 'options.seq'],
    [{ random: new Uint8Array(15) }, RangeError, 'options.random'],
    [{ random: [1, 2, 3] }, TypeError, 'options.random'],
    [{ rng: () => new Uint8Array(4) }, RangeError, 'options.rng'],
    [{ rng: 5 }, TypeError, 'options.rng'],
    // An unknown key, as every JS surface words one (lib/options/unknown.js).
    [{ mescs: 5 }, TypeError, 'options.mescs', 'uuidv7() has no option "mescs" (did you mean "msecs"?)'],
  ]
  for (const [options, ErrorClass, name, message = `option \`${name}\``] of cases) {
    const buf = new Uint8Array(16).fill(0xa5)
    assert.throws(
      () => v7(options, buf),
      (error) =>
        error instanceof ErrorClass && error.code === 'ERR_FLAKE_INVALID_OPTION' && error.message.startsWith(message),
      name,
    )
    assert.ok(
      buf.every((byte) => byte === 0xa5),
      `${name}: a refused call wrote into buf`,
    )
  }
  // Each option is read once.
  let reads = 0
  const options = {
    get msecs() {
      reads++
      return RFC_MSECS
    },
  }
  assert.equal(v7(options).slice(0, 13), '017f22e2-79b0')
  assert.equal(reads, 1)
})

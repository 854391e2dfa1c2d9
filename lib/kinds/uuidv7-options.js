'use strict'

// uuid's v7() options, `msecs`, `seq`, `random` and `rng`: a call that gives any of them gets
// the bytes uuid 14's v7() writes for them, made here as uuid 14.0.3 makes them (src/v7.ts, v7Bytes),
// from those values alone. Such a UUID is outside the host's order, as uuid's is outside its
// own state: the caller chose its time, counter or random bits.

const { randomFillSync } = require('node:crypto')
const { isUint8Array } = require('node:util').types
const { invalidArgument, invalidOption } = require('../errors/errors.js')
const { refuseUnknown } = require('../options/unknown.js')

const NAMES = ['msecs', 'seq', 'random', 'rng']
const MAX_MSECS = 2 ** 48 - 1
const RANDOM_EXPECTED = 'a Uint8Array of 16 bytes or more, as uuid reads it'

/**
 * uuid's options among `options` (an object, each key read once), or undefined when none is
 * given (a key whose value is `undefined` is not given): the call then keeps the host's order.
 * Any other key is refused, as a typo must not go unseen.
 */
function explicitOptions(options) {
  if (typeof options !== 'object') throw invalidArgument('options', 'an object, undefined or null', options)
  let read
  for (const name of refuseUnknown(options, 'uuidv7()', NAMES)) {
    const value = options[name]
    if (value === undefined) continue
    read ??= {}
    read[name] = value
  }
  if (read === undefined) return undefined
  check(read)
  return read
}

/** Refuses what uuid would turn into other bytes than the caller meant, naming the option. */
function check({ msecs, seq, random, rng }) {
  if (msecs !== undefined) {
    if (typeof msecs !== 'number') throw invalidOption('options.msecs', 'a number of ms since 1970', msecs)
    if (!(msecs >= 0 && msecs <= MAX_MSECS)) {
      throw invalidOption('options.msecs', 'a number of ms since 1970 from 0 to 2^48 - 1', msecs, true)
    }
  }
  if (seq !== undefined) {
    if (typeof seq !== 'number') throw invalidOption('options.seq', 'a 32-bit integer', seq)
    if (!Number.isInteger(seq) || seq < -(2 ** 31) || seq > 2 ** 32 - 1) {
      throw invalidOption('options.seq', 'a 32-bit integer, from -2^31 to 2^32 - 1', seq, true)
    }
  }
  if (random !== undefined) randomBytes('options.random', random)
  if (rng !== undefined && typeof rng !== 'function') {
    throw invalidOption('options.rng', 'a function returning 16 random bytes or more', rng)
  }
}

/** `bytes`, checked as uuid's random bytes given by `option`. */
function randomBytes(option, bytes) {
  if (!isUint8Array(bytes)) throw invalidOption(option, RANDOM_EXPECTED, bytes)
  if (bytes.length < 16) throw invalidOption(option, RANDOM_EXPECTED, bytes, true)
  return bytes
}

/**
 * Writes the UUIDv7 uuid's v7() makes of options `read` into `buf` at `offset`: its `random`,
 * else what its `rng` returns, else 16 bytes of the OS's; its `msecs`, else `now()`; its `seq`,
 * else uuid's from the random bytes.
 */
function writeExplicit(read, now, buf, offset) {
  const rnds =
    read.random ??
    (read.rng === undefined ? randomFillSync(new Uint8Array(16)) : randomBytes('options.rng', read.rng()))
  const msecs = read.msecs ?? now()
  // uuid 14.0.3's v7Sequence(): the same random bytes give the same seq.
  const seq = read.seq ?? ((rnds[6] & 0x7f) << 24) | (rnds[7] << 16) | (rnds[8] << 8) | rnds[9]
  buf[offset] = (msecs / 0x10000000000) & 0xff
  buf[offset + 1] = (msecs / 0x100000000) & 0xff
  buf[offset + 2] = (msecs / 0x1000000) & 0xff
  buf[offset + 3] = (msecs / 0x10000) & 0xff
  buf[offset + 4] = (msecs / 0x100) & 0xff
  buf[offset + 5] = msecs & 0xff
  buf[offset + 6] = 0x70 | ((seq >>> 28) & 0x0f)
  buf[offset + 7] = (seq >>> 20) & 0xff
  buf[offset + 8] = 0x80 | ((seq >>> 14) & 0x3f)
  buf[offset + 9] = (seq >>> 6) & 0xff
  buf[offset + 10] = ((seq << 2) & 0xff) | (rnds[10] & 0x03)
  buf[offset + 11] = rnds[11]
  buf[offset + 12] = rnds[12]
  buf[offset + 13] = rnds[13]
  buf[offset + 14] = rnds[14]
  buf[offset + 15] = rnds[15]
  return buf
}

module.exports = { explicitOptions, writeExplicit }

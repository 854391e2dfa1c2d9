'use strict'

// uuidv7: UUIDv7s (RFC 9562) strictly increasing across every process and thread of the host,
// called as the uuid package's v7() is. Each is made from an id of a 64-bit layout (48 bits of
// ms, a 15-bit counter) whose state the host's processes share, as FlakeId's ids are, plus 59
// random bits; src/kinds/uuid.rs says which bits are which.

const { Buffer } = require('node:buffer')
const { isUint8Array } = require('node:util').types
const binding = require('../binding/load-binding.js')
const native = require('../binding/native.js')
const { argumentOutOfRange, invalidArgument } = require('../errors/errors.js')
const { STATE_OPTIONS, readOptions, stateOptions } = require('../options/options.js')
const { explicitOptions, writeExplicit } = require('./uuidv7-options.js')
const { WIDE_NAMES, checkFormat } = require('../formats/formats.js')

const { issueWide, issueWideText, issueWideBy, takeWide } = native

// This kind's name in src/kinds/ (KINDS).
const KIND = 'uuidv7'

/** A generator's fields and clock, for `options` (see create()). */
function configure(options) {
  const read = readOptions(options, STATE_OPTIONS, 'uuidv7.create()')
  const configured = native.configure(stateOptions(read), KIND)
  return { fields: configured.fields, clock: configured.clock }
}

/**
 * `offset`, checked for 16 bytes of `bytes` (the argument `name`): an integer from 0 to
 * `bytes.length - 16`.
 */
function checkOffset(bytes, name, offset) {
  if (bytes.length < 16) throw argumentOutOfRange(name, 'a Uint8Array of 16 bytes at least', bytes)
  if (offset === undefined) offset = 0
  if (typeof offset !== 'number') throw invalidArgument('offset', 'a number', offset)
  if (!Number.isInteger(offset) || offset < 0 || offset > bytes.length - 16) {
    throw argumentOutOfRange('offset', `an integer from 0 to ${bytes.length - 16} (16 bytes in ${name})`, offset)
  }
  return offset
}

/** Where in `buf` (checked: a Uint8Array with 16 bytes from `offset`) the id goes. */
function checkBuf(buf, offset) {
  // instanceof first, for speed; isUint8Array for a Uint8Array of another realm.
  if (!(buf instanceof Uint8Array || isUint8Array(buf)))
    throw invalidArgument('buf', 'a Uint8Array (a Buffer is one)', buf)
  return checkOffset(buf, 'buf', offset)
}

/**
 * The UUIDv7 uuid's v7() makes of options `explicit`, its time `clock()` (a generator's own,
 * checked as its ordered calls check it) or `Date.now()` (uuid's) unless `msecs` says it: as
 * text, or into `buf` at `offset`.
 */
function explicitUuid(explicit, clock, buf, offset) {
  const now = clock === undefined ? Date.now : () => binding.wideClockReading(KIND, clock())
  if (buf === undefined) return binding.idText(KIND, writeExplicit(explicit, now, Buffer.alloc(16), 0), 0)
  return writeExplicit(explicit, now, buf, checkBuf(buf, offset))
}

/**
 * A uuidv7 function over the generator `setUp()` configures, at its first call: `(options?,
 * buf?, offset?)` as uuid's v7(), and `batch(count)`.
 */
function generator(setUp) {
  let fields
  let clock

  function uuidv7(options, buf, offset) {
    // uuid's options, when any is given: its bytes for them, outside the host's order.
    const explicit = options == null ? undefined : explicitOptions(options)
    if (fields === undefined) ({ fields, clock } = setUp())
    if (explicit !== undefined) return explicitUuid(explicit, clock, buf, offset)
    if (buf === undefined) return clock === undefined ? issueWideText(fields) : issueWideBy(fields, clock, true)
    const at = checkBuf(buf, offset)
    if (clock === undefined) issueWide(fields)
    else issueWideBy(fields, clock, false)
    return takeWide(buf, at)
  }

  /** `count` UUIDv7s, 16 bytes each and increasing, in one Buffer. */
  uuidv7.batch = (count) => {
    if (fields === undefined) ({ fields, clock } = setUp())
    return native.wideBatch(fields, count, clock)
  }

  return uuidv7
}

/** The default generator: host scope, the system clock; set up at its first call. */
const uuidv7 = generator(() => configure(undefined))

/**
 * A generator with options of its own (`scope`, `stateDir`, `allowedFutureMs`, `clock`),
 * called as uuidv7 is. Its options are checked now.
 */
uuidv7.create = (options) => {
  const configured = configure(options)
  return generator(() => configured)
}

/**
 * The UUIDv7 in the 16 bytes of `bytes` from `offset` as text: its canonical form, or `format`
 * ('base32', ULID's 26 characters; 'base62', 22).
 */
uuidv7.stringify = (bytes, offset, format) => {
  if (!isUint8Array(bytes)) throw invalidArgument('bytes', 'a Uint8Array (a Buffer is one)', bytes)
  const at = checkOffset(bytes, 'bytes', offset)
  if (format === undefined) return binding.idText(KIND, bytes, at)
  return binding.idText(KIND, bytes, at, checkFormat(format, WIDE_NAMES))
}

/** The 16 bytes of the UUIDv7 whose canonical form (in either case) is `string`, or its text in `format`. */
uuidv7.parse = (string, format) => {
  const bytes = Buffer.alloc(16)
  if (format === undefined) binding.idParse(KIND, string, bytes)
  else binding.idParse(KIND, string, bytes, checkFormat(format, WIDE_NAMES))
  return bytes
}

/** The parts of a UUIDv7 (16 bytes, or in any of its text forms): `timestamp`, `date`, `sequence`, `random`. */
uuidv7.decompose = (id) => binding.idDecompose(KIND, id)

/** The Unix ms of a UUIDv7 (a string or 16 bytes). */
uuidv7.timestamp = (id) => binding.idDecompose(KIND, id).timestamp

module.exports = uuidv7

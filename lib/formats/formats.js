'use strict'
// The forms a 64-bit id is given in, one row each. The command's --format (lib/cli/ids.js) and
// what `decompose` tells apart (lib/cli/decompose.js) come from these rows; the id methods of
// generators and clients (id-methods.js, which a start loads without this module) and the
// types' IdMethods (index.d.ts) are written to them; __test__/core/formats.test.js holds each
// surface to them. It requires no `node:` module: the client loads it in edge runtimes.
//
// Adding a format: its row in FORMATS, an object of
// - name: the format's name, as `nextString(format)`, `FlakeId.parse` and `decompose` take it
// - fromBytes(bytes, at): the id of the 8 big-endian bytes at `at` in `bytes` (a Uint8Array) in
//   this form; a new text form is fixed width, so that string order is id order (decimal is not:
//   it is the form flake-idgen's users and SQL `bigint` read)
// - fromBigInt(id), optional: the same from the id as a bigint, which a generator has at hand
// - method, type: the id method that returns it on generators and clients ('nextString' for
//   every text form, which takes the row's name), and its return type in index.d.ts's
//   IdMethods<Id>; none for a form only the command prints
// - flag, help: the command's `--format <flag>`, and what --help says of it in parentheses
//   after the flag, if anything; no flag for a value that is not text
// - decompose: FlakeId.decompose() reads it back; a text form is then one the native side reads
//   (`FlakeId.parse`, src/kinds/text.rs), and has `pattern` (how the command's decompose tells a
//   line to be one, whatever its value) and `described` (as a usage error names it)
// - wide, optional: the 128-bit kinds are written in it too (`uuidv7.stringify`,
//   `Flake128.toText`, their commands' --format), as the native side's `textForms()` say

const { Buffer } = globalThis
const codedError = require('../errors/coded-error.js')
const { nearest } = require('../options/unknown.js')
const { describe, invalidArgument, invalidOption } = require('../options/wording.js')

/** 8 bytes of their own: a Buffer where the runtime has one, else a Uint8Array. */
const eightBytes = Buffer === undefined ? () => new Uint8Array(8) : () => Buffer.alloc(8)

/**
 * The id at `at` in `bytes`, in 8 bytes of its own (own ArrayBuffer, as flake-idgen's are),
 * copied byte by byte: readUInt32BE/writeUInt32BE check their offsets through wrapped
 * validators, and for 8 bytes the JIT's stores beat a call to the set() builtin.
 */
function copyId(bytes, at) {
  const id = eightBytes()
  id[0] = bytes[at]
  id[1] = bytes[at + 1]
  id[2] = bytes[at + 2]
  id[3] = bytes[at + 3]
  id[4] = bytes[at + 4]
  id[5] = bytes[at + 5]
  id[6] = bytes[at + 6]
  id[7] = bytes[at + 7]
  return id
}

/** The 4 big-endian bytes at `at` in `bytes`, as an unsigned integer. */
const uint32At = (bytes, at) => ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0

/** The id at `at` in `bytes` as a bigint: from its two halves, 4 to 5 × faster than readBigUInt64BE. */
const bigIntAt = (bytes, at) => (BigInt(uint32At(bytes, at)) << 32n) | BigInt(uint32At(bytes, at + 4))

/** `alphabet` as character codes, for String.fromCharCode. */
const codesOf = (alphabet) => Array.from(alphabet, (character) => character.charCodeAt(0))

// Each form's text is made by one String.fromCharCode of its character codes: a template of one
// string per character (or of two padded runs of 8 hex digits) took 2.5 to 5 × as long.

const HEX = codesOf('0123456789abcdef')

/** The id at `at` in `bytes` as 16 lowercase hex digits. */
function hexAt(bytes, at) {
  const h = HEX
  return String.fromCharCode(
    h[bytes[at] >> 4],
    h[bytes[at] & 15],
    h[bytes[at + 1] >> 4],
    h[bytes[at + 1] & 15],
    h[bytes[at + 2] >> 4],
    h[bytes[at + 2] & 15],
    h[bytes[at + 3] >> 4],
    h[bytes[at + 3] & 15],
    h[bytes[at + 4] >> 4],
    h[bytes[at + 4] & 15],
    h[bytes[at + 5] >> 4],
    h[bytes[at + 5] & 15],
    h[bytes[at + 6] >> 4],
    h[bytes[at + 6] & 15],
    h[bytes[at + 7] >> 4],
    h[bytes[at + 7] & 15],
  )
}

/** Crockford's base 32: digits, then upper-case letters but I, L, O and U. */
const CROCKFORD = codesOf('0123456789ABCDEFGHJKMNPQRSTVWXYZ')

/**
 * The id at `at` in `bytes` in base32 (TSID's form): 13 characters of Crockford's alphabet, the
 * 64 bits behind a leading 0 bit, 5 to a character, from the two 32-bit halves.
 */
function base32At(bytes, at) {
  const high = uint32At(bytes, at)
  const low = uint32At(bytes, at + 4)
  const c = CROCKFORD
  return String.fromCharCode(
    c[high >>> 28],
    c[(high >>> 23) & 31],
    c[(high >>> 18) & 31],
    c[(high >>> 13) & 31],
    c[(high >>> 8) & 31],
    c[(high >>> 3) & 31],
    c[((high & 7) << 2) | (low >>> 30)],
    c[(low >>> 25) & 31],
    c[(low >>> 20) & 31],
    c[(low >>> 15) & 31],
    c[(low >>> 10) & 31],
    c[(low >>> 5) & 31],
    c[low & 31],
  )
}

const BASE62 = codesOf('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz')
const TWO_32 = 2 ** 32
// The base62 digits of the id being written, least significant first.
const digits = new Uint8Array(11)

/**
 * The id at `at` in `bytes` in base62: 11 characters of 0-9A-Za-z (ASCII order), zero-padded.
 * Divided by 62 a digit at a time in two 32-bit halves: each step's dividend, below 62 × 2^32,
 * is exact in a double, where a bigint's divisions would allocate.
 */
function base62At(bytes, at) {
  let high = uint32At(bytes, at)
  let low = uint32At(bytes, at + 4)
  for (let digit = 0; digit < 11; digit++) {
    const dividend = (high % 62) * TWO_32 + low
    high = Math.floor(high / 62)
    low = Math.floor(dividend / 62)
    digits[digit] = dividend - low * 62
  }
  const b = BASE62
  const d = digits
  return String.fromCharCode(
    b[d[10]],
    b[d[9]],
    b[d[8]],
    b[d[7]],
    b[d[6]],
    b[d[5]],
    b[d[4]],
    b[d[3]],
    b[d[2]],
    b[d[1]],
    b[d[0]],
  )
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** The id at `at` in `bytes` in base64: 11 characters and one `=`, in one template. */
function base64At(bytes, at) {
  const one = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2]
  const two = (bytes[at + 3] << 16) | (bytes[at + 4] << 8) | bytes[at + 5]
  const three = (bytes[at + 6] << 16) | (bytes[at + 7] << 8)
  const b = BASE64
  return `${b[one >> 18]}${b[(one >> 12) & 63]}${b[(one >> 6) & 63]}${b[one & 63]}${b[two >> 18]}${b[(two >> 12) & 63]}${b[(two >> 6) & 63]}${b[two & 63]}${b[three >> 18]}${b[(three >> 12) & 63]}${b[(three >> 6) & 63]}=`
}

const FORMATS = [
  { name: 'buffer', fromBytes: copyId, method: 'next', type: 'Id', decompose: true },
  { name: 'bigint', fromBytes: bigIntAt, method: 'nextBigInt', type: 'bigint', decompose: true },
  {
    name: 'decimal',
    fromBytes: (bytes, at) => bigIntAt(bytes, at).toString(),
    fromBigInt: (id) => id.toString(),
    method: 'nextString',
    type: 'string',
    flag: 'decimal',
    help: 'default',
    decompose: true,
    pattern: /^[0-9]+$/,
    described: 'at most 20 decimal digits',
  },
  {
    name: 'base32',
    fromBytes: base32At,
    method: 'nextString',
    type: 'string',
    flag: 'base32',
    help: "13 characters, Crockford's",
    decompose: true,
    pattern: /^[0-9A-HJKMNP-TV-Z]{13}$/,
    described: '13 base32 characters',
    wide: true,
  },
  {
    name: 'base62',
    fromBytes: base62At,
    method: 'nextString',
    type: 'string',
    flag: 'base62',
    help: '11 characters',
    decompose: true,
    pattern: /^[0-9A-Za-z]{11}$/,
    described: '11 base62 characters',
    wide: true,
  },
  {
    name: 'hex',
    fromBytes: hexAt,
    method: 'nextString',
    type: 'string',
    flag: 'hex',
    help: '16 digits',
    decompose: true,
    pattern: /^[0-9a-f]{16}$/,
    described: '16 hex digits',
  },
  { name: 'base64', fromBytes: base64At, flag: 'base64' },
]

/** The row of the format `name`. */
const formatNamed = (name) => FORMATS.find((row) => row.name === name)

// The text forms: the ones nextString(format) writes, and FlakeId.parse and decompose read.
const TEXT_NAMES = FORMATS.filter((row) => row.method === 'nextString').map((row) => row.name)
// The forms of the 128-bit kinds besides their own.
const WIDE_NAMES = FORMATS.filter((row) => row.wide).map((row) => row.name)

/** The name of `names` that `format` most likely meant: one that starts with it (`dec`), else the nearest. */
function meantFormat(format, names) {
  const folded = format.toLowerCase()
  return (folded.length >= 3 && names.find((name) => name.startsWith(folded))) || nearest(format, names)
}

/**
 * `format` if it is one of `names`; else refuses it, naming the one it most likely meant: as the
 * argument `format` (a TypeError coded as Node codes a bad argument), or as option `format` when
 * `option` (coded as a bad option is).
 */
function checkFormat(format, names, option = false) {
  if (typeof format === 'string' && names.includes(format)) return format
  const meant = typeof format === 'string' ? meantFormat(format, names) : undefined
  const listed = `one of ${names.map((name) => `'${name}'`).join(', ')}`
  const expected = meant === undefined ? listed : `${listed} (did you mean '${meant}'?)`
  if (option) throw invalidOption('format', expected, format)
  if (typeof format !== 'string') throw invalidArgument('format', expected, format)
  throw codedError(
    TypeError,
    'ERR_INVALID_ARG_VALUE',
    `The "format" argument must be ${expected}, got ${describe(format)}`,
  )
}

module.exports = { FORMATS, formatNamed, TEXT_NAMES, WIDE_NAMES, checkFormat }

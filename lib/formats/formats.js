'use strict'
// The forms a 64-bit id is given in, one row each. The command's --format (lib/cli/ids.js) and
// what `decompose` tells apart (lib/cli/decompose.js) come from these rows; the id methods of
// generators and clients (id-methods.js, which a start loads without this module) and the
// types' IdMethods (index.d.ts) are written to them; __test__/core/formats.test.js holds each
// surface to them. It requires no `node:` module: the client loads it in edge runtimes.
//
// Adding a format: its row in FORMATS, an object of
// - name: the format's name
// - fromBytes(bytes, at): the id of the 8 big-endian bytes at `at` in `bytes` (a Uint8Array) in
//   this form; a new text form is fixed width, so that string order is id order (decimal is not:
//   it is the form flake-idgen's users and SQL `bigint` read)
// - fromBigInt(id), optional: the same from the id as a bigint, which a generator has at hand
// - method, type: the id method that returns it on generators and clients ('nextString' for
//   every text form), and its return type in index.d.ts's IdMethods<Id>; none for a form only
//   the command prints
// - flag, help: the command's `--format <flag>`, and what --help says of it in parentheses
//   after the flag, if anything; no flag for a value that is not text
// - decompose: FlakeId.decompose() reads it back; a text form then has `pattern` (how a line is
//   told to be one, whatever its size: the library says why one is too large) and `described`
//   (as a usage error names it)

const { Buffer } = globalThis

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

/** The 8 hex digits of `half` (32 bits). */
const hex8 = (half) => half.toString(16).padStart(8, '0')

/** The id at `at` in `bytes` as 0x and 16 lowercase hex digits: added to byte by byte, the command's hex lines took 1.8 × as long. */
const hexAt = (bytes, at) => `0x${hex8(uint32At(bytes, at))}${hex8(uint32At(bytes, at + 4))}`

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** The id at `at` in `bytes` in base64: 11 characters and one `=`, in one template, as hexAt's. */
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
    flag: 'dec',
    decompose: true,
    pattern: /^[0-9]+$/,
    described: 'at most 20 decimal digits',
  },
  {
    name: 'hex',
    fromBytes: hexAt,
    flag: 'hex',
    help: '0x-prefixed',
    decompose: true,
    pattern: /^0x[0-9a-f]+$/i,
    described: '0x and 16 hex digits',
  },
  { name: 'base64', fromBytes: base64At, flag: 'base64' },
]

/** The row of the format `name`. */
const formatNamed = (name) => FORMATS.find((row) => row.name === name)

module.exports = { FORMATS, formatNamed }

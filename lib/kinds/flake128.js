'use strict'

// Flake128: Boundary's flake, 128-bit ids of 64 bits of ms | a 48-bit worker id (a MAC address
// by default) | a 16-bit sequence. Each is made from an id of a 64-bit layout (48 bits of ms, a
// 16-bit sequence) whose state the host's processes share, as FlakeId's ids are: so any number
// of them can use one worker id. src/kinds/flake128.rs says which bits are which.

const { Buffer } = require('node:buffer')
const os = require('node:os')
const binding = require('../binding/load-binding.js')
const native = require('../binding/native.js')
const { codedError, invalidOption } = require('../errors/errors.js')
const { STATE_OPTIONS, readOptions, stateOptions } = require('../options/options.js')
const { WIDE_NAMES, checkFormat } = require('../formats/formats.js')

const { issueWide, issueWideText, issueWideBy, takeWide, takeWideBigInt } = native

// This kind's name in src/kinds/ (KINDS).
const KIND = 'flake128'
// Its own text's form, a row of lib/formats/formats.js.
const TEXT = 'base62'
const OPTIONS = [...STATE_OPTIONS, 'worker', 'interface']
// The largest worker id, from the kind's row (src/kinds/flake128.rs says its bits).
const MAX_WORKER = binding.describeKind(KIND).maxWorker
const WORKER_EXPECTED = `an integer from 0 to 2^${Math.log2(MAX_WORKER + 1)} - 1 (a number, a bigint or a decimal string) or a MAC address`
const MAC = /^[0-9a-f]{2}([:-])[0-9a-f]{2}(\1[0-9a-f]{2}){4}$/i
const NO_MAC = '00:00:00:00:00:00'

/** A MAC address as the 48-bit number it writes. */
const macNumber = (mac) => Number.parseInt(mac.replace(/[:-]/g, ''), 16)

/** The worker id the `worker` option gives. */
function workerOf(worker) {
  let number
  if (typeof worker === 'number') number = worker
  else if (typeof worker === 'bigint') number = worker <= BigInt(MAX_WORKER) && worker >= 0n ? Number(worker) : -1
  else if (typeof worker === 'string' && MAC.test(worker)) return macNumber(worker)
  else if (typeof worker === 'string' && /^\d{1,16}$/.test(worker)) number = Number(worker)
  else throw invalidOption('worker', WORKER_EXPECTED, worker)
  if (!Number.isInteger(number) || number < 0 || number > MAX_WORKER) {
    throw invalidOption('worker', WORKER_EXPECTED, worker, true)
  }
  return number
}

/** The MAC of interface `name`, or of the first by name that is not internal and has one. */
function macOf(name) {
  const interfaces = os.networkInterfaces()
  const names = name === undefined ? Object.keys(interfaces).sort() : [name]
  for (const each of names) {
    // An own property only: `__proto__` or `toString` names no interface.
    const addresses = Object.hasOwn(interfaces, each) ? interfaces[each] : undefined
    const address = addresses?.find((address) => !address.internal && address.mac !== NO_MAC)
    if (address !== undefined) return macNumber(address.mac)
  }
  if (name !== undefined) {
    throw invalidOption(
      'interface',
      'the name of a network interface with a MAC address (os.networkInterfaces())',
      name,
      true,
    )
  }
  throw codedError(
    Error,
    'ERR_FLAKE_NO_MAC_ADDRESS',
    'Flake128: no network interface has a MAC address (os.networkInterfaces() lists none that is not internal and not all zeros); give the 48-bit worker id with the `worker` option',
  )
}

class Flake128 {
  #fields
  #clock

  constructor(options) {
    const read = readOptions(options, OPTIONS, 'Flake128')
    if (read.worker !== undefined && read.interface !== undefined) {
      throw invalidOption(
        'interface',
        'left out when `worker` is given (the worker id is one or the other)',
        read.interface,
      )
    }
    if (read.interface !== undefined && typeof read.interface !== 'string') {
      throw invalidOption('interface', 'a string: the name of a network interface', read.interface)
    }
    const worker = read.worker === undefined ? macOf(read.interface) : workerOf(read.worker)
    const configured = native.configure(stateOptions(read), KIND, worker)
    this.#fields = configured.fields
    this.#clock = configured.clock
    Object.defineProperties(this, {
      worker: { value: worker, enumerable: true },
      scope: { value: configured.scope, enumerable: true },
    })
  }

  /** The next flake: a Buffer of 16 bytes of its own. */
  next() {
    this.#issue()
    return takeWide(Buffer.alloc(16), 0)
  }

  /** The next flake, as a bigint. */
  nextBigInt() {
    this.#issue()
    return takeWideBigInt()
  }

  /** The next flake in base 62: 22 characters, zero-padded, so that string order is time order. */
  nextBase62() {
    if (this.#clock === undefined) return issueWideText(this.#fields)
    return issueWideBy(this.#fields, this.#clock, true)
  }

  /** `count` flakes, 16 bytes each and increasing, in one Buffer. */
  nextBatch(count) {
    return native.wideBatch(this.#fields, count, this.#clock)
  }

  /** The parts of a flake (16 bytes, a bigint, or in any of its text forms): timestamp, date, worker, sequence. */
  static decompose(id) {
    return binding.idDecompose(KIND, id)
  }

  /** The 16 bytes of the flake that `string` writes in `format`: 'base62' (22 digits, the default) or 'base32'. */
  static parse(string, format = TEXT) {
    const bytes = Buffer.alloc(16)
    // Its own text is read as it always was (bad text, past 128 bits too, a TypeError).
    if (checkFormat(format, WIDE_NAMES) === TEXT) binding.idParse(KIND, string, bytes)
    else binding.idParse(KIND, string, bytes, format)
    return bytes
  }

  /** A flake (16 bytes or a bigint) in base 62. */
  static toBase62(id) {
    return binding.idText(KIND, id)
  }

  /** A flake (in any of `decompose`'s forms) as text in `format`: 'base62' (the default) or 'base32' (ULID's 26 characters). */
  static toText(id, format = TEXT) {
    return binding.idText(KIND, id, undefined, checkFormat(format, WIDE_NAMES))
  }

  #issue() {
    if (this.#clock === undefined) issueWide(this.#fields)
    else issueWideBy(this.#fields, this.#clock, false)
  }
}

module.exports = Flake128

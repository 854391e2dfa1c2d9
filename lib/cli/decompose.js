'use strict'

// `flake-idgen decompose [--format F] [ID...]`: the parts of each id, as one JSON object per
// line. An id is told by its form: a 128-bit kind's, as the kind's functions say
// (`binding.idHasForm`), else a 64-bit id's (a text format the library reads back, as its row of
// lib/formats/formats.js says, or the 0x-prefixed hex earlier versions printed). Digits alone
// can be decimal and another form (11 are base62's width, 13 base32's, 16 hex's): such a line is
// refused unless --format says which, never guessed.

const { createInterface } = require('node:readline')
const binding = require('../binding/load-binding.js')
const FlakeId = require('../generator/flake-id.js')
const { describe } = require('../errors/errors.js')
const { readEpoch, readLayout } = require('./args.js')
const { UsageError, withFlags } = require('./command-errors.js')
const { write } = require('./output.js')
const { FORMATS } = require('../formats/formats.js')

// The text formats of a 64-bit id that the library reads back.
const TEXT_FORMATS = FORMATS.filter((row) => row.decompose && row.pattern !== undefined)
const FORMAT_NAMES = TEXT_FORMATS.map((row) => row.name)
// The hex earlier versions printed, which the library reads as it reads decimal, with no format.
const PREFIXED_HEX = /^0x[0-9a-f]+$/i

/** 'a', 'a, or b', 'a, b, or c'. */
const orList = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')}, or ${items.at(-1)}`)

/** The rows whose form `text` (trimmed) has, whatever its size: the library says why one is too large. */
const formsOf = (text) => TEXT_FORMATS.filter((row) => row.pattern.test(text))
const sixtyFourForm = (text) => PREFIXED_HEX.test(text) || formsOf(text).length > 0
const SIXTY_FOUR = `a 64-bit id (${orList([...TEXT_FORMATS.map((row) => row.described), '0x and 16 hex digits'])})`

/** A worker id as a MAC address: six lowercase hex pairs, colon-separated. */
const mac = (worker) =>
  worker
    .toString(16)
    .padStart(12, '0')
    .replace(/..(?!$)/g, '$&:')

// A worker id of a MAC address's 48 bits (a kind's that takes one) is shown as one too.
const MAC_WORKER = 2 ** 48 - 1

// The 128-bit kinds: their rows of the kinds table.
const WIDE_KINDS = binding.kinds().filter((row) => row.bytes === 16)

/** A 128-bit kind as a refusal names it: its title, and its forms where the title is not enough. */
const described = (kind) => (kind.forms == null ? kind.title : `${kind.title} (${kind.forms})`)

// 'a 64-bit id (…), a UUIDv7, or a Flake128 (…)'.
const EXPECTED = orList([SIXTY_FOUR, ...WIDE_KINDS.map(described)])

/**
 * The parts of `text`, an id of the 128-bit `kind`, as JSON holds them: its date as ISO text, a
 * bigint (its random bits) as hex digits, as many as the bits take.
 */
function wideParts(kind, text) {
  const parts = { type: kind.name }
  for (const [name, value] of Object.entries(binding.idDecompose(kind.name, text))) {
    if (value instanceof Date) parts[name] = value.toISOString()
    else if (typeof value === 'bigint') parts[name] = value.toString(16).padStart(Math.ceil(kind.randomBits / 4), '0')
    else parts[name] = value
    if (name === 'worker' && kind.maxWorker === MAC_WORKER) parts.workerMac = mac(value)
  }
  return parts
}

/**
 * The parts of the 64-bit id `text`, in `format` (--format's) if given, else in the one form it
 * has; what is neither that nor a 128-bit id is refused as such.
 */
function narrowParts(text, options, format) {
  const trimmed = text.trim()
  if (format === undefined) {
    const forms = formsOf(trimmed)
    if (forms.length > 1)
      throw new UsageError(
        `${describe(text)} is a 64-bit id as ${forms.map((row) => row.name).join(' or as ')}: give ${forms.map((row) => `--format ${row.name}`).join(' or ')}`,
      )
    // Decimal digits are read as the library reads a string of no format (as they always were).
    if (forms.length === 1 && forms[0].name !== 'decimal') format = forms[0].name
  }
  try {
    return format === undefined ? FlakeId.decompose(text, options) : FlakeId.decompose(trimmed, { ...options, format })
  } catch (error) {
    // Text of a form (--format's, or one it has), too large or past a Date: the library's
    // words say which.
    if (format === undefined && error instanceof TypeError && !sixtyFourForm(trimmed))
      throw new TypeError(`The "id" argument must be ${EXPECTED}, got ${describe(text)}`)
    throw error
  }
}

/** Prints the parts of each of `ids`, or of each line of stdin when there are none. */
async function decompose(values, ids) {
  const options = { layout: readLayout(values.layout), epoch: readEpoch(values.epoch) }
  // A bad --layout or --epoch is the flag's fault, not the first id's.
  withFlags(() => FlakeId.decompose(0n, options))
  const { format } = values
  if (format !== undefined && !FORMAT_NAMES.includes(format))
    throw new UsageError(
      `--format must be ${FORMAT_NAMES.slice(0, -1).join(', ')} or ${FORMAT_NAMES.at(-1)}, got ${describe(format)}`,
    )
  const given = ['layout', 'epoch', 'format'].filter((name) => values[name] !== undefined).map((name) => `--${name}`)
  const read = (text) => {
    // A 128-bit id's forms are short: a longer line is a 64-bit id or none, as the library says.
    const trimmed = text.length <= 64 ? text.trim() : ''
    const kind = WIDE_KINDS.find((kind) => binding.idHasForm(kind.name, trimmed))
    if (kind === undefined) return narrowParts(text, options, format)
    // A 128-bit id's time is ms since 1970 and its parts are fixed: a flag for 64-bit ids typed
    // with one is refused, not ignored.
    if (given.length > 0)
      throw new UsageError(
        `${given.slice(0, -1).join(', ')}${given.length > 1 ? ' and ' : ''}${given.at(-1)} ${given.length > 1 ? 'apply' : 'applies'} to 64-bit ids only, got ${kind.title} ${describe(text)}`,
      )
    // A reader that takes spaces around an id gets the text as given, so that its refusal
    // quotes it so; another gets it trimmed.
    return wideParts(kind, binding.idHasForm(kind.name, text) ? text : trimmed)
  }
  const parts = (text, where) => {
    try {
      return JSON.stringify(read(text))
    } catch (error) {
      if (error instanceof TypeError || error instanceof RangeError || error instanceof UsageError)
        throw new UsageError(`${where}${error.message}`)
      throw error
    }
  }
  if (ids.length > 0) {
    // All checked before any is printed: a bad argument prints nothing but its reason.
    await write(`${ids.map((id) => parts(id, '')).join('\n')}\n`)
    return
  }
  let number = 0
  for await (const text of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    number++
    if (text.trim() !== '') await write(`${parts(text, `line ${number}: `)}\n`)
  }
}

module.exports = decompose

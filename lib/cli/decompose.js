'use strict'

// `flake-idgen decompose [ID...]`: the parts of each id, as one JSON object per line. An id is
// told by its form: a 128-bit kind's, as its row of `WIDE_KINDS` says, else a 64-bit id's (a
// text format the library reads back, as its row of lib/formats/formats.js says).

const { createInterface } = require('node:readline')
const FlakeId = require('../generator/flake-id.js')
const uuidv7 = require('../kinds/uuid.js')
const Flake128 = require('../kinds/flake128.js')
const { describe } = require('../errors/errors.js')
const { readEpoch, readLayout } = require('./args.js')
const { UsageError, withFlags } = require('./command-errors.js')
const { write } = require('./output.js')
const { FORMATS } = require('../formats/formats.js')

// The text formats of a 64-bit id that the library reads back.
const TEXT_FORMATS = FORMATS.filter((row) => row.decompose && row.pattern !== undefined)

/** 'a', 'a, or b', 'a, b, or c'. */
const orList = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')}, or ${items.at(-1)}`)

/** Whether `text` (trimmed) has a 64-bit id's form, whatever its size: the library says why one is too large. */
const sixtyFourForm = (text) => TEXT_FORMATS.some((row) => row.pattern.test(text))
const SIXTY_FOUR = `a 64-bit id (${orList(TEXT_FORMATS.map((row) => row.described))})`

/** A worker id as a MAC address: six lowercase hex pairs, colon-separated. */
const mac = (worker) =>
  worker
    .toString(16)
    .padStart(12, '0')
    .replace(/..(?!$)/g, '$&:')

// The 128-bit kinds, one row each: its `type` (its name in the binding's kinds), the title a
// refusal names it by, the forms of its text (`forms`: an id of none is a 64-bit id's), as the
// usage error says them (`described`), and its parts. `parts` gets the text trimmed, and as
// given (the library reads a flake's spaces itself).
const WIDE_KINDS = [
  {
    type: 'uuidv7',
    title: 'UUIDv7',
    described: 'a UUIDv7',
    forms: [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i],
    /** The parts of the UUIDv7 `text`; its 59 random bits as 15 hex digits. */
    parts(trimmed) {
      const { timestamp, sequence, random } = uuidv7.decompose(trimmed)
      const date = new Date(timestamp).toISOString()
      return { timestamp, date, sequence, random: random.toString(16).padStart(15, '0') }
    },
  },
  {
    type: 'flake128',
    title: 'Flake128',
    described: 'a Flake128 (22 base62 characters, or 0x and 32 hex digits)',
    // 0x starts hex: as base62 it would be a Flake128 of a time millions of years away.
    forms: [/^0x[0-9a-f]{32}$/i, /^(?!0x)[0-9a-z]{22}$/i],
    /** The parts of the Flake128 `text`: 22 base62 digits, or 0x and 32 hex digits. */
    parts(_, text) {
      const { timestamp, worker, sequence } = Flake128.decompose(text)
      const date = new Date(timestamp).toISOString()
      return { timestamp, date, worker, workerMac: mac(worker), sequence }
    },
  },
]

// 'a 64-bit id (…), a UUIDv7, or a Flake128 (…)'.
const EXPECTED = orList([SIXTY_FOUR, ...WIDE_KINDS.map((kind) => kind.described)])

/** The parts of the 64-bit id `text`; what is neither that nor a 128-bit id is refused as such. */
function narrowParts(text, options) {
  try {
    return FlakeId.decompose(text, options)
  } catch (error) {
    // Digits are a 64-bit id's, too large or past a Date: the library's words say which.
    if (error instanceof TypeError && !sixtyFourForm(text.trim()))
      throw new TypeError(`The "id" argument must be ${EXPECTED}, got ${describe(text)}`)
    throw error
  }
}

/** Prints the parts of each of `ids`, or of each line of stdin when there are none. */
async function decompose(values, ids) {
  const options = { layout: readLayout(values.layout), epoch: readEpoch(values.epoch) }
  // A bad --layout or --epoch is the flag's fault, not the first id's.
  withFlags(() => FlakeId.decompose(0n, options))
  const given = ['layout', 'epoch'].filter((name) => values[name] !== undefined).map((name) => `--${name}`)
  const read = (text) => {
    // A 128-bit id's forms are short: a longer line is a 64-bit id or none, as the library says.
    const trimmed = text.length <= 64 ? text.trim() : ''
    const kind = WIDE_KINDS.find((kind) => kind.forms.some((form) => form.test(trimmed)))
    if (kind === undefined) return narrowParts(text, options)
    // A 128-bit id's time is ms since 1970 and its parts are fixed: a flag for 64-bit ids typed
    // with one is refused, not ignored.
    if (given.length > 0)
      throw new UsageError(
        `${given.join(' and ')} ${given.length > 1 ? 'apply' : 'applies'} to 64-bit ids only, got a ${kind.title} ${describe(text)}`,
      )
    return { type: kind.type, ...kind.parts(trimmed, text) }
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
module.exports.WIDE_KINDS = WIDE_KINDS

'use strict'
// The id methods, written once for every class that issues 64-bit ids (FlakeId, the client):
// one per row of formats.js that names one, installed on the class's prototype, so that a
// generator's and a client's are the same functions. Named here, not read from the rows: every
// process's first generator loads this module, and formats.js (the command's encoders too) would
// cost that start more than these lines; __test__/core/formats.test.js holds them to the rows
// (one method per row that names one, each giving its row's form). A class that has them
// defines how it takes its next id, under these symbols:
// - [TAKE_ID](): the next id, in 8 bytes of its own (throws why none can be taken)
// - [TAKE_BIGINT](): the next id, as a bigint (throws as [TAKE_ID] does)
// - [TAKE_TEXT](write): the next id as `write(bytes, at)` (a text row's fromBytes) makes it from
//   the bytes the id is in, with no copy of its own (throws as [TAKE_ID] does)
// - [CALL_BACK](cb): calls `cb(error, id)` with the next id, or throws for a `cb` that is not a
//   function
// Each is a method of the class itself, which reaches its private state: next() calls one
// directly, with no lookup by format on the way.

const TAKE_ID = Symbol('flake-idgen-rs: the next id, in 8 bytes')
const TAKE_BIGINT = Symbol('flake-idgen-rs: the next id, as a bigint')
const TAKE_TEXT = Symbol('flake-idgen-rs: the next id, as text')
const CALL_BACK = Symbol('flake-idgen-rs: calls back with the next id')

const ID_METHODS = {
  /**
   * The buffer row's: the next id; with a `cb` (flake-idgen's: any truthy value), `cb(error, id)`
   * once one is had.
   */
  next(cb) {
    if (!cb) return this[TAKE_ID]()
    this[CALL_BACK](cb)
  },
  /** The bigint row's. */
  nextBigInt() {
    return this[TAKE_BIGINT]()
  },
  /**
   * The text rows': the next id in `format` (a row's name), decimal by default (safe in JSON and
   * for SQL `bigint`). The default is the per-id path, as it was before formats: one call, no
   * lookup; a format given is looked up in its row.
   */
  nextString(format) {
    if (format == null) return this[TAKE_BIGINT]().toString()
    return this[TAKE_TEXT](format === lastFormat ? lastWriter : writerOf(format))
  },
}

// The format the last nextString(format) named, and its row's writer: a process mostly writes one
// format, and a comparison of the name costs less than a lookup by it.
let lastFormat
let lastWriter

/**
 * The writer of the text row `format` (formats.js is loaded at the first format given, not at
 * the start); or refuses it, naming the row it most likely meant.
 */
function writerOf(format) {
  const { formatNamed, TEXT_NAMES, checkFormat } = require('./formats.js')
  lastWriter = formatNamed(checkFormat(format, TEXT_NAMES)).fromBytes
  lastFormat = format
  return lastWriter
}

/** Defines the id methods on `Class`'s prototype, as its own methods are: not enumerable. */
function installIdMethods(Class) {
  for (const [name, method] of Object.entries(ID_METHODS)) {
    Object.defineProperty(Class.prototype, name, { value: method, writable: true, configurable: true })
  }
}

module.exports = { installIdMethods, ID_METHODS, TAKE_ID, TAKE_BIGINT, TAKE_TEXT, CALL_BACK }

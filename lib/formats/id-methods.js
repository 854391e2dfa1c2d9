'use strict'
// The id methods, written once for every class that issues 64-bit ids (FlakeId, the client):
// one per row of formats.js that names one, installed on the class's prototype, so that a
// generator's and a client's are the same functions. A class that has them defines how it takes
// its next id, under these symbols:
// - [TAKE_ID](): the next id, in 8 bytes of its own (throws why none can be taken)
// - [TAKE_BIGINT](): the next id, as a bigint (throws as [TAKE_ID] does)
// - [CALL_BACK](cb): calls `cb(error, id)` with the next id, or throws for a `cb` that is not a
//   function
// Each is a method of the class itself, which reaches its private state: next() calls one
// directly, with no lookup by format on the way.

const { FORMATS, formatNamed } = require('./formats.js')

const TAKE_ID = Symbol('flake-idgen-rs: the next id, in 8 bytes')
const TAKE_BIGINT = Symbol('flake-idgen-rs: the next id, as a bigint')
const CALL_BACK = Symbol('flake-idgen-rs: calls back with the next id')

const BUFFER = formatNamed('buffer')
const BIGINT = formatNamed('bigint')
// What nextString() gives: decimal, safe in JSON and for SQL `bigint`.
const TEXT = formatNamed('decimal')
const textOf = TEXT.fromBigInt

const ID_METHODS = {
  /** The next id; with a `cb` (flake-idgen's: any truthy value), `cb(error, id)` once one is had. */
  [BUFFER.method](cb) {
    if (!cb) return this[TAKE_ID]()
    this[CALL_BACK](cb)
  },
  [BIGINT.method]() {
    return this[TAKE_BIGINT]()
  },
  [TEXT.method]() {
    return textOf(this[TAKE_BIGINT]())
  },
}

// A row whose method the family lacks would be a method no surface has.
for (const { name, method } of FORMATS) {
  if (method !== undefined && !Object.hasOwn(ID_METHODS, method))
    throw new Error(`format ${name}: its method ${method} is not one of the id methods`)
}

/** Defines the id methods on `Class`'s prototype, as its own methods are: not enumerable. */
function installIdMethods(Class) {
  for (const [name, method] of Object.entries(ID_METHODS)) {
    Object.defineProperty(Class.prototype, name, { value: method, writable: true, configurable: true })
  }
}

module.exports = { installIdMethods, ID_METHODS, TAKE_ID, TAKE_BIGINT, CALL_BACK }

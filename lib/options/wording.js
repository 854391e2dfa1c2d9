'use strict'

// The package's wording of bad values, made in JS for the code that cannot load the binary (the
// client runs in workerd and Edge runtimes too): a copy of the native side's, src/input.rs's way
// to show a value and src/error.rs's templates, which lib/errors/errors.js takes from the binding.
// __test__/members/client-wording.test.js holds the two to one wording.

const codedError = require('../errors/coded-error.js')

/** How many characters of a string or of a bigint's digits a message shows (src/input.rs). */
const SHOWN_CHARS = 40

// What Rust's `{:?}` writes as \u{…}: the characters it does not print (its printable.py: other,
// separator but the space) and the combining ones (Grapheme_Extend).
const UNPRINTED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Grapheme_Extend}]/u
const ESCAPES = { '\0': '\\0', '\t': '\\t', '\r': '\\r', '\n': '\\n', '\\': '\\\\', '"': '\\"' }
const LONE_SURROGATE = /\p{Cs}/gu

/**
 * The code points of `text` as the native side reads a JS string: a lone surrogate is the
 * replacement character (N-API's UTF-8), so that both count and show the same characters.
 */
const codePoints = (text) => Array.from(text.replace(LONE_SURROGATE, '\uFFFD'))

/** `chars` in double quotes, escaped as Rust's `{:?}` escapes a string. */
function debugQuoted(chars) {
  let quoted = '"'
  for (const char of chars) {
    if (Object.hasOwn(ESCAPES, char)) quoted += ESCAPES[char]
    else if (char !== ' ' && UNPRINTED.test(char)) quoted += `\\u{${char.codePointAt(0).toString(16)}}`
    else quoted += char
  }
  return `${quoted}"`
}

/** `text` as a message quotes it: escaped, cut to SHOWN_CHARS characters and "…" inside the quotes. */
function quoted(text) {
  const chars = codePoints(text)
  if (chars.length <= SHOWN_CHARS) return debugQuoted(chars)
  return `${debugQuoted(chars.slice(0, SHOWN_CHARS)).slice(0, -1)}…"`
}

// Read by the built-in getters, as N-API reads them: an own `length` or `Symbol.toStringTag`
// cannot make an object another value's twin.
const TypedArray = Object.getPrototypeOf(Uint8Array.prototype)
const typedArrayName = Object.getOwnPropertyDescriptor(TypedArray, Symbol.toStringTag).get
const typedArrayLength = Object.getOwnPropertyDescriptor(TypedArray, 'length').get
const dateValue = Date.prototype.getTime

/** The time of `value` if it is a Date (by its internal slot, as N-API tells one), else undefined. */
function timeOf(value) {
  try {
    return dateValue.call(value)
  } catch {
    return undefined
  }
}

/** An object as the native side shows it: a Buffer by its length, a Date by its time, its kind. */
function describeObject(value) {
  const typed = typedArrayName.call(value)
  if (typed !== undefined) {
    if (typed !== 'Uint8Array') return 'a typed array other than Uint8Array'
    const length = typedArrayLength.call(value)
    return `a Buffer of ${length} byte${length === 1 ? '' : 's'}`
  }
  const ms = timeOf(value)
  if (ms !== undefined) return Number.isNaN(ms) ? 'Invalid Date' : `a Date (${ms} ms)`
  return Array.isArray(value) ? 'an array' : 'an object'
}

/** `value` as every message shows it: `"text"` (cut to 40 characters), `5`, `an object`, … */
function describe(value) {
  switch (typeof value) {
    case 'string':
      return quoted(value)
    case 'bigint': {
      const digits = codePoints(String(value))
      return digits.length > SHOWN_CHARS ? `${digits.slice(0, SHOWN_CHARS).join('')}…n` : `${value}n`
    }
    case 'symbol':
      return 'a symbol'
    case 'function':
      return 'a function'
    case 'object':
      return value === null ? 'null' : describeObject(value)
    default:
      // A number as String(n) writes it (-0 too is "0"), a boolean, undefined.
      return String(value)
  }
}

/**
 * "option `name` must be `expected`, got `value`" with code ERR_FLAKE_INVALID_OPTION: a
 * RangeError when `outOfRange` (the right type, outside what it may be), else a TypeError.
 */
const invalidOption = (name, expected, value, outOfRange = false) =>
  codedError(
    outOfRange ? RangeError : TypeError,
    'ERR_FLAKE_INVALID_OPTION',
    `option \`${name}\` must be ${expected}, got ${describe(value)}`,
  )

/** "options must be an object, got `value`", a TypeError coded as a bad option is. */
const invalidOptions = (value) =>
  codedError(TypeError, 'ERR_FLAKE_INVALID_OPTION', `options must be an object, got ${describe(value)}`)

/** "The "argument" argument must be `expected`, got `value`", a TypeError coded as Node does. */
const invalidArgument = (argument, expected, value) =>
  codedError(
    TypeError,
    'ERR_INVALID_ARG_TYPE',
    `The "${argument}" argument must be ${expected}, got ${describe(value)}`,
  )

/** "The "argument" argument must be `expected`, got `value`", a RangeError coded as Node does. */
const argumentOutOfRange = (argument, expected, value) =>
  codedError(RangeError, 'ERR_OUT_OF_RANGE', `The "${argument}" argument must be ${expected}, got ${describe(value)}`)

module.exports = {
  describe,
  debugQuoted,
  codePoints,
  invalidOption,
  invalidOptions,
  invalidArgument,
  argumentOutOfRange,
}

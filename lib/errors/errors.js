'use strict'

// The errors the JS modules make. A bad value is worded by the native side (src/js/values/messages.rs),
// as the constructor's options are: an option reads the same whichever side checks it.

const codedError = require('./coded-error.js')

// Loaded when first needed: a module may make an error before it needs the binding (and one
// that cannot be loaded says so itself).
const binding = () => require('../binding/load-binding.js')

/** Node's AbortError, as fs and timers reject with it. */
class AbortError extends Error {
  constructor(signal) {
    super('The operation was aborted', { cause: signal.reason })
    this.name = 'AbortError'
    this.code = 'ABORT_ERR'
  }
}

/** `value` as every message shows it: `"text"` (cut to 40 characters), `5`, `an object`, … */
const describe = (value) => binding().describeValue(value)

/**
 * "option `option` must be `expected`, got `value`" with code `ERR_FLAKE_INVALID_OPTION`: a
 * RangeError when `outOfRange` (the right type, outside what it may be), else a TypeError.
 */
const invalidOption = (option, expected, value, outOfRange = false) =>
  binding().invalidOption(option, expected, value, outOfRange)

/** "options must be an object, got `value`", a TypeError coded as a bad option is. */
const invalidOptions = (value) => binding().invalidOptions(value)

/** "The "argument" argument must be `expected`, got `value`", a TypeError coded as Node does. */
const invalidArgument = (argument, expected, value) => binding().invalidArgument(argument, expected, value)

/** "The "argument" argument must be `expected`, got `value`", a RangeError coded as Node does. */
const argumentOutOfRange = (argument, expected, value) => binding().argumentOutOfRange(argument, expected, value)

module.exports = {
  AbortError,
  codedError,
  describe,
  invalidOption,
  invalidOptions,
  invalidArgument,
  argumentOutOfRange,
}

'use strict'

/**
 * The integer option `name` from `min` to `max` (`fallback` when absent), or the error
 * `invalidOption(name, expected, value, outOfRange)` makes: the member's (lib/errors/errors.js, worded by
 * the binding) or the client's (lib/client/options.js, which loads no binding).
 */
function integerOption(options, name, fallback, min, max, invalidOption) {
  const value = options[name] ?? fallback
  const expected = `an integer from ${min} to ${max}`
  if (typeof value !== 'number') throw invalidOption(name, expected, value)
  if (!Number.isInteger(value) || value < min || value > max) throw invalidOption(name, expected, value, true)
  return value
}

module.exports = integerOption

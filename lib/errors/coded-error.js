'use strict'

// Apart from errors.js, whose bad-value wording comes from the binding: load-failure.js makes
// load-binding.js's errors with this before there is a binding.

/** An error of class `Kind` (Error, TypeError, RangeError) with a `code`, and a `cause` if given. */
function codedError(Kind, code, message, cause) {
  const error = new Kind(message, cause === undefined ? undefined : { cause })
  error.code = code
  return error
}

module.exports = codedError

'use strict'

// The options of the generators of 128-bit ids (uuid.js, flake128.js), read as FlakeId's never
// are: each read once and the unknown ones refused (a typo must not silently leave a default in
// force: unknown.js). Their ids are made from ids of a 64-bit layout that src/kinds/ gives each
// kind, so what they take of FlakeId's options is STATE_OPTIONS.

const { invalidOptions } = require('../errors/errors.js')
const { refuseUnknown } = require('./unknown.js')

/** The options that say where a generator's state lives and how it meets the clock. */
const STATE_OPTIONS = ['scope', 'stateDir', 'allowedFutureMs', 'clock']

/**
 * The own enumerable options of `options` among `names` (each read once), refusing any other:
 * `owner` names the generator in the error.
 */
function readOptions(options, names, owner) {
  if (options == null) return {}
  if (typeof options !== 'object') throw invalidOptions(options)
  const read = {}
  for (const name of refuseUnknown(options, owner, names)) read[name] = options[name]
  return read
}

/** The STATE_OPTIONS of options `read` by readOptions(), for the native configure(). */
const stateOptions = (read) => ({
  scope: read.scope,
  stateDir: read.stateDir,
  allowedFutureMs: read.allowedFutureMs,
  clock: read.clock,
})

module.exports = { STATE_OPTIONS, readOptions, stateOptions }

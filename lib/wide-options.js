'use strict'

// The options of the generators of 128-bit ids (uuid.js, flake128.js): each read once, the
// unknown ones refused (a typo must not silently leave a default in force), the generator's
// 64-bit layout added, and the whole configured as a FlakeId's options are.

const binding = require('./load-binding.js')
const native = require('./native.js')
const { invalidOption, invalidOptions } = require('./errors.js')
const warnHostScope = require('./warn.js')

// The options every such generator takes; the state behind it is a FlakeId's.
const COMMON = ['scope', 'stateDir', 'allowedFutureMs', 'clock']

/**
 * The own enumerable options of `options` among `names` (each read once), refusing any other:
 * `owner` names the generator in the error.
 */
function readOptions(options, names, owner) {
  if (options == null) return {}
  if (typeof options !== 'object') throw invalidOptions(options)
  const read = {}
  for (const name of Object.keys(options)) {
    const value = options[name]
    if (!names.includes(name)) {
      throw invalidOption(name, `left out: ${owner} takes no such option (it takes ${names.join(', ')})`, value)
    }
    read[name] = value
  }
  return read
}

/**
 * The fields of a generator of 128-bit ids whose 64-bit layout has `sequenceBits` (see
 * src/js/wide.rs), configured by the COMMON options in `read`, and its clock.
 */
function configureWide(read, sequenceBits, worker) {
  const configured = native.configure(
    {
      layout: { timeBits: binding.WIDE_TIME_BITS, nodeBits: 0, sequenceBits },
      id: 0,
      scope: read.scope,
      stateDir: read.stateDir,
      allowedFutureMs: read.allowedFutureMs,
      clock: read.clock,
    },
    worker,
  )
  if (configured.warning !== undefined) warnHostScope(configured.warning)
  return configured
}

module.exports = { COMMON, readOptions, configureWide }

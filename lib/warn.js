'use strict'

const fs = require('node:fs')

/**
 * Says that host scope fell back to another directory, or to the process (`message`, from the
 * native configure()), on stderr now, synchronously, and emits it as a process warning. The
 * warning alone prints on a later tick: a process that issues its ids and exits before one
 * would repeat ids with others without a word.
 */
function warnHostScope(warning) {
  const code = 'FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE'
  const message = `flake-idgen-rs: ${warning}`
  try {
    fs.writeSync(2, `(${process.release.name}:${process.pid}) [${code}] ${message}\n`)
  } catch {
    // A closed or non-blocking stderr: the emitted warning is still there.
  }
  process.emitWarning(message, { code })
}

/**
 * Emits, as a process warning, what the native configure() says of an option a FlakeId does
 * not take (once per process for each name: see src/options/unknown.rs). The generator is
 * made all the same, as flake-idgen makes it.
 */
function warnUnknownOption(report) {
  process.emitWarning(`flake-idgen-rs: ${report}`, { code: 'FLAKE_IDGEN_UNKNOWN_OPTION' })
}

module.exports = { warnHostScope, warnUnknownOption }

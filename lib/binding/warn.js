'use strict'

const fs = require('node:fs')

/**
 * Says that host scope fell back to another directory, or to the process (`message`, from the
 * native configure()), as a process warning: printed once, a tick later. A process that issues
 * its ids and exits before that tick (`process.exit()` at once) would repeat ids with others
 * without a word: it is written to stderr synchronously as it exits then, in the warning's form.
 */
function warnHostScope(warning) {
  const code = 'FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE'
  const message = `flake-idgen-rs: ${warning}`
  let printed = false
  process.emitWarning(message, { code })
  // After the warning's own tick: ticks run in the order they were queued.
  process.nextTick(() => {
    printed = true
  })
  process.once('exit', () => {
    if (printed) return
    try {
      fs.writeSync(2, `(${process.release.name}:${process.pid}) [${code}] Warning: ${message}\n`)
    } catch {
      // A closed or non-blocking stderr: nothing else can say it.
    }
  })
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

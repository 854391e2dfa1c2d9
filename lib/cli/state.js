'use strict'

// `flake-idgen state`: the state file this host's processes share, listed, or one generator
// id's state in it forgotten.

const binding = require('../load-binding.js')
const { CommandError, withFlags } = require('./command-errors.js')
const { write, table } = require('./output.js')

/** Forgets generator `text`'s state in the state file of `dir`. */
async function reset(dir, text, flags) {
  // Digits are an id; anything else no number, which the library refuses as it refuses 1024.
  const id = /^[0-9]+$/.test(text) ? Number(text) : NaN
  const [done] = withFlags(() => binding.resetState(dir, id), flags)
  if (done === undefined) {
    const { dir: shown } = withFlags(() => binding.stateFiles(dir), flags)
    throw new CommandError(`generator ${text} has no state in ${shown}`)
  }
  await write(`${done.removed ? 'removed' : `reset generator ${text} in`} ${done.path}\n`)
}

/**
 * Lists the state file of `--state-dir` (a string, or a Buffer of a name that is not UTF-8;
 * else the default directory, which the native side reads from the environment as bytes), or
 * resets `--reset`'s state in it.
 */
async function state(values) {
  const dir = values['state-dir']
  // The library checks the directory and the id; a message shows each as the user typed it.
  const flags = { dir: ['--state-dir', dir?.toString()], id: ['--reset', values.reset] }
  if (values.reset !== undefined) return reset(dir, values.reset, flags)
  const { dir: shown, file } = withFlags(() => binding.stateFiles(dir), flags)
  const rows = [['id', 'last id issued at', 'sequence']]
  for (const entry of file?.entries ?? []) {
    rows.push([String(entry.id), new Date(entry.time).toISOString(), String(entry.sequence)])
  }
  const head = file === undefined ? `state directory: ${shown}` : `state file: ${file.path}`
  await write(`${head}\n${rows.length > 1 ? table(rows) : '(no state)'}\n`)
  if (file?.error !== undefined) throw new CommandError(`${file.error} [${file.code}]`)
}

module.exports = state

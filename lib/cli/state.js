'use strict'

// `flake-idgen state`: the host's state files listed, or one generator id's state forgotten.

const path = require('node:path')
const native = require('../native.js')
const { readEpoch } = require('./args.js')
const { UsageError, CommandError, withFlags } = require('./errors.js')
const { write, table } = require('./output.js')

const epochText = (epoch) => (epoch === 0 ? '0' : `${epoch} (${new Date(epoch).toISOString()})`)

/** Lists the state files of `--state-dir` (else the default directory), or resets `--reset`'s state in them. */
async function state(values) {
  const dir = values['state-dir'] ?? native.defaultStateDir()
  const epoch = readEpoch(values.epoch)
  if (epoch !== undefined && values.reset === undefined) throw new UsageError('--epoch applies to state --reset only')
  // The library checks the directory and the id; a message shows each as the user typed it.
  const flags = { dir: ['--state-dir', dir], id: ['--reset', values.reset] }
  const reset = values.reset
  if (reset !== undefined) {
    // Digits are an id; anything else no number, which the library refuses as it refuses 1024.
    const id = /^[0-9]+$/.test(reset) ? Number(reset) : NaN
    const done = withFlags(() => native.resetState(dir, id, epoch === undefined ? undefined : Number(epoch)), flags)
    if (done.length === 0) throw new CommandError(`generator ${reset} has no state in ${dir}${epoch === undefined ? '' : ` for epoch ${Number(epoch)}`}`)
    const lines = done.map((file) => `${file.removed ? 'removed' : 'reset generator ' + reset + ' in'} ${file.path}`)
    return write(lines.join('\n') + '\n')
  }
  const files = withFlags(() => native.stateFiles(dir), flags)
  const rows = [['id', 'epoch', 'last id issued at', 'sequence', 'file']]
  const problems = []
  for (const file of files) {
    if (file.error !== undefined) problems.push(`${file.error} [${file.code}]`)
    for (const entry of file.entries) {
      rows.push([String(entry.id), epochText(file.epoch), new Date(entry.time).toISOString(), String(entry.sequence), path.basename(file.path)])
    }
  }
  await write(`state directory: ${dir}\n${rows.length > 1 ? table(rows) : '(no state)'}\n`)
  if (problems.length > 0) throw new CommandError(problems.join('\n'))
}

module.exports = state

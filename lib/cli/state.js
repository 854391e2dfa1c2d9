'use strict'

// `flake-idgen state`: the host's state files listed, or one generator id's state forgotten.

const path = require('node:path')
const native = require('../native.js')
const { readEpoch } = require('./args.js')
const { UsageError, CommandError, quote } = require('./errors.js')
const { write, table } = require('./output.js')

const epochText = (epoch) => (epoch === 0 ? '0' : `${epoch} (${new Date(epoch).toISOString()})`)

/** Lists the state files of `--state-dir` (else the default directory), or resets `--reset`'s state in them. */
async function state(values) {
  const dir = values['state-dir'] ?? native.defaultStateDir()
  const epoch = readEpoch(values.epoch)
  if (epoch !== undefined && values.reset === undefined) throw new UsageError('--epoch applies to state --reset only')
  if (!path.isAbsolute(dir)) throw new UsageError(`--state-dir must be an absolute path, got ${quote(dir)}`)
  const reset = values.reset
  if (reset !== undefined) {
    if (!/^[0-9]+$/.test(reset) || Number(reset) > 1023) throw new UsageError(`--reset must be a generator id from 0 to 1023, got ${quote(reset)}`)
    const done = native.resetState(dir, Number(reset), epoch === undefined ? undefined : Number(epoch))
    if (done.length === 0) throw new CommandError(`generator ${reset} has no state in ${dir}${epoch === undefined ? '' : ` for epoch ${Number(epoch)}`}`)
    const lines = done.map((file) => `${file.removed ? 'removed' : 'reset generator ' + reset + ' in'} ${file.path}`)
    return write(lines.join('\n') + '\n')
  }
  const files = native.stateFiles(dir)
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

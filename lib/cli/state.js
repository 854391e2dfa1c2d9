'use strict'

// `flake-idgen state`: the state files this host's processes share (one per layout shape:
// flake-idgen's, UUIDv7's, Flake128's, each other layout's), listed; or what one of them holds
// forgotten: a node id's word, its start, or the whole file.

const binding = require('../binding/load-binding.js')
const { CommandError, UsageError, withFlags } = require('./command-errors.js')
const { write, table, iso } = require('./output.js')

// The file a reset is of without --file: the default layout's, the one file of older versions.
const DEFAULT_FILE = 'epoch-0.state'

// What a reset that found nothing to forget says, by what it was asked to forget.
const NOTHING = {
  start: (path) => `${path} has no start ahead of the clock`,
  all: (path) => `no state to reset in ${path}`,
}

/** Forgets `text` (a node id, `start` or `all`) in the state file `file` of `dir`. */
async function reset(dir, file = DEFAULT_FILE, text, flags) {
  // Digits are a node id; any other word is passed as it is, for the library to refuse.
  const what = /^[0-9]+$/.test(text) ? Number(text) : text
  const done = withFlags(() => binding.resetState(dir, file, what), flags)
  const id = typeof what === 'number'
  if (!done.done)
    throw new CommandError(id ? `generator ${text} has no state in ${done.path}` : NOTHING[what](done.path))
  if (done.removed) return write(`removed ${done.path}\n`)
  await write(id ? `reset generator ${text} in ${done.path}\n` : `reset the start of ${done.path}\n`)
}

/** How far `ms` is ahead of the clock (`now`), if it is: what holds ids back until then. */
const ahead = (ms, now) => (ms > now ? `ahead of the clock by ${ms - now} ms` : '')

/** A state file's lines: its path, its layout and start, a row per node id that issued. */
function describe(file, now) {
  const kinds = file.kinds.length > 0 ? file.kinds.join(', ') : 'a custom layout'
  const layout = `layout ${file.layout} (${kinds})`
  if (file.error !== undefined) return [`state file: ${file.path}`, layout, '(not read: see below)']
  // No id is issued from the file at or before its start (0: it has none).
  const late = ahead(file.start, now)
  const start = file.start === 0 ? 'none' : `${iso(file.start)}${late && `, ${late}: no id is issued until then`}`
  const rows = [['id', 'last id issued at', 'sequence', '']]
  for (const entry of file.entries)
    rows.push([String(entry.id), iso(entry.time), String(entry.sequence), ahead(entry.time, now)])
  return [`state file: ${file.path}`, `${layout}, start ${start}`, rows.length > 1 ? table(rows) : '(no state)']
}

/**
 * Lists every state file of `--state-dir` (a string, or a Buffer of a name that is not UTF-8;
 * else the default directory, which the native side reads from the environment as bytes), or
 * resets `--reset`'s state in `--file`.
 */
async function state(values) {
  const dir = values['state-dir']
  // The library checks the directory, the file and the target; a message shows each as the
  // user typed it.
  const flags = { dir: ['--state-dir', dir?.toString()], file: '--file', what: ['--reset', values.reset] }
  if (values.reset !== undefined) return reset(dir, values.file, values.reset, flags)
  if (values.file !== undefined) throw new UsageError('--file needs --reset: state lists every file (see --help)')
  const { dir: shown, files } = withFlags(() => binding.stateFiles(dir), flags)
  const now = Date.now()
  const blocks = files.map((file) => describe(file, now).join('\n'))
  await write(`${blocks.length > 0 ? blocks.join('\n\n') : `state directory: ${shown}\n(no state)`}\n`)
  const unread = files.filter((file) => file.error !== undefined)
  if (unread.length > 0)
    throw new CommandError(unread.map((file) => `${file.error} [${file.code}]`).join('\nflake-idgen: '))
}

module.exports = state

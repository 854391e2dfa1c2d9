'use strict'

// The command line as getopt reads it, and the readings of values more than one command takes.

const binding = require('../binding/load-binding.js')
const { describe } = require('../errors/errors.js')
const { UsageError } = require('./command-errors.js')

/**
 * Splits `argv` into option values (by long name) and positionals, as getopt does. `options`
 * says of each long name whether it takes a value, `short` maps a letter to a long name. An
 * option that takes a value takes the next argument whatever it is (`-n -1` is a count of "-1",
 * refused as such), or the rest of its own (`--count=5`, `-n5`); `--` ends the options. Every
 * problem is one `UsageError` line, in our words.
 */
function parse(argv, { options, short }) {
  const values = {}
  // Where each value was: its argument's index, and where in it the value starts.
  const places = {}
  const positionals = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    let name
    let inline
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=')
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
      inline = eq === -1 ? undefined : arg.slice(eq + 1)
      if (!Object.hasOwn(options, name))
        throw new UsageError(`unknown option ${describe(eq === -1 ? arg : arg.slice(0, eq))} (see --help)`)
    } else if (arg.startsWith('-') && arg.length > 1) {
      name = Object.hasOwn(short, arg[1]) ? short[arg[1]] : undefined
      if (name === undefined) throw new UsageError(`unknown option ${describe(arg.slice(0, 2))} (see --help)`)
      if (arg.length > 2) inline = arg.slice(arg[2] === '=' ? 3 : 2)
    } else {
      positionals.push(arg)
      continue
    }
    const flag = `--${name}`
    if (Object.hasOwn(values, name)) throw new UsageError(`${flag} is given more than once`)
    if (!options[name]) {
      if (inline !== undefined) throw new UsageError(`${flag} takes no value, got ${describe(inline)}`)
      values[name] = true
    } else if (inline !== undefined) {
      values[name] = inline
      places[name] = { index: i, start: arg.length - inline.length }
    } else if (i + 1 < argv.length) {
      values[name] = argv[++i]
      places[name] = { index: i, start: 0 }
    } else {
      throw new UsageError(`${flag} needs a value (see --help)`)
    }
  }
  return { values, positionals, places }
}

/**
 * Option `name`'s value as the command line held it: Node decodes arguments as UTF-8, each
 * invalid byte becoming U+FFFD, so a file name that is not UTF-8 reaches `process.argv` as the
 * name of another file. Such a value is returned as a Buffer of its bytes, read by the native
 * side; any other, as the string it is.
 */
function rawValue(argv, { values, places }, name) {
  const value = values[name]
  if (typeof value !== 'string' || !value.includes('\uFFFD')) return value
  const { index, start } = places[name]
  const arg = binding.rawArgument(argv.length - index, argv[index])
  // What precedes an inline value (`--state-dir=`) is ASCII: as many bytes as characters.
  const bytes = arg?.subarray(start)
  return bytes === undefined || Buffer.from(value).equals(bytes) ? value : bytes
}

/** `--count`'s value: how many ids to print, 1 when not given. */
function readCount(text) {
  if (text === undefined) return 1
  const count = /^[0-9]+$/.test(text) ? Number(text) : NaN
  if (!(count >= 1 && count <= Number.MAX_SAFE_INTEGER))
    throw new UsageError(`--count must be a positive integer, got ${describe(text)}`)
  return count
}

/**
 * `--state-dir`'s value as a generator's `stateDir` option takes it: a string. A name that is not
 * UTF-8 (a Buffer, from `rawValue`) cannot be one, and must not become another directory's name.
 */
function readStateDir(value) {
  if (Buffer.isBuffer(value))
    throw new UsageError(
      '--state-dir is not UTF-8, which the stateDir option cannot name: set FLAKE_IDGEN_STATE_DIR to it instead',
    )
  return value
}

/**
 * `--epoch`'s value as the library takes it: digits are ms since 1970 (passed as they are, for
 * the library to check), anything else must be a date `Date.parse` reads.
 */
function readEpoch(text) {
  if (text === undefined || /^\s*[0-9]+\s*$/.test(text)) return text
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) throw new UsageError(`--epoch must be ms since 1970 or a date, got ${describe(text)}`)
  return new Date(ms)
}

/**
 * `--layout`'s value as the library takes it: a JSON object is a custom layout, anything else a
 * preset's name (passed as it is, for the library to check and to list the names).
 */
function readLayout(text) {
  if (text === undefined || !text.trimStart().startsWith('{')) return text
  try {
    return JSON.parse(text)
  } catch {
    throw new UsageError(`--layout must be a preset name or a custom layout as a JSON object, got ${describe(text)}`)
  }
}

module.exports = { parse, rawValue, readCount, readStateDir, readEpoch, readLayout }

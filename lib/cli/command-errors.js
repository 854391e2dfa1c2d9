'use strict'

// The command's two ways to fail, told apart by their exit status; and a value the library
// refuses made a bad argument that names the flag it came from.

const { describe } = require('../errors/errors.js')

/** A bad argument: exit status 2, and the message as one line on stderr. */
class UsageError extends Error {
  name = 'UsageError'
}

/** Something the command could not do (a reset refused, a store unreachable): status 1, no stack. */
class CommandError extends Error {
  name = 'CommandError'
}

// The codes of the library's refusals of a value, and how it names the value: by its option
// (option `stateDir`) or, for a function's argument, as Node does (The "dir" argument).
const REFUSED = new Set([
  'ERR_FLAKE_INVALID_OPTION',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_OUT_OF_RANGE',
])
// A field of an object option is named with a dot (`layout.nodeBits`).
const NAMED = /^(?:option `(\w+)(?:\.(\w+))?`|The "(\w+)" argument)/

/** The URL a flag takes, by its schemes (each with its colon): "a redis:// or rediss:// URL", "an etcd://…". */
function urlOf(schemes, separator = ' or ') {
  const listed = schemes.map((scheme) => `${scheme}//`).join(separator)
  return `${/^[aeiou]/.test(listed) ? 'an' : 'a'} ${listed} URL`
}

const flagOf = (option) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

/**
 * Runs `fn`; a value it refuses is thrown as a `UsageError` naming the flag the value came from,
 * in the library's words. `flags` maps the library's names to flags: `{ dir: '--state-dir' }`,
 * or `{ id: ['--reset', text] }` to show `text` as the user typed it where the library saw what
 * the command made of it. An option not in `flags` is named by its own flag (`stateDir` is
 * `--state-dir`); any other error is thrown as it is.
 */
function withFlags(fn, flags = {}) {
  try {
    return fn()
  } catch (error) {
    const named = REFUSED.has(error?.code) ? NAMED.exec(error.message) : null
    if (named === null) throw error
    const [prefix, option, field, argument] = named
    const flag = option === undefined ? flags[argument] : (flags[option] ?? flagOf(option))
    if (flag === undefined) throw error
    const [shown, typed] = typeof flag === 'string' ? [flag] : flag
    // A field of a flag's JSON (`--layout '{"nodeBits":17}'`) is named after the flag.
    let message = (field === undefined ? shown : `${shown}: ${field}`) + error.message.slice(prefix.length)
    if (typed !== undefined) message = message.replace(/, got .*$/s, `, got ${describe(typed)}`)
    // The library writes JS string literals ('host', 'discord'); here they are words, as the
    // flags take them. The value the user gave, after `, got`, is shown as it is.
    const got = message.indexOf(', got ')
    const [words, value] = got === -1 ? [message, ''] : [message.slice(0, got), message.slice(got)]
    // An option the words name in backticks (`idFrom`) is named by its flag too.
    const worded = words.replace(/'([\w:-]+)'/g, '$1').replace(/`([a-z]+[A-Z]\w*)`/g, (_, name) => flagOf(name))
    throw new UsageError(worded + value)
  }
}

module.exports = { UsageError, CommandError, withFlags, urlOf }

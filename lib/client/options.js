'use strict'

// FlakeId.client()'s options, each read once and checked, and the client's argument errors. The
// client loads no binary (it runs in workerd and Edge runtimes too): its messages are made by
// ../options/wording.js, a JS copy of the native side's wording that
// __test__/members/client-wording.test.js holds to the native messages for the same bad values.

const codedError = require('../errors/coded-error.js')
const { CLIENT_OPTIONS } = require('../id-sources/index.js')
const integerOption = require('../options/integer-option.js')
const { refuseUnknown } = require('../options/unknown.js')
const {
  describe,
  invalidOption,
  invalidOptions,
  invalidArgument,
  argumentOutOfRange,
} = require('../options/wording.js')

const DEFAULTS = { prefetchCount: 100, prefetchValidityMs: 600_000, timeoutMs: 5000 }
/** The most ids one request or nextBatchAsync(n) takes: a member's own limit (2^24). */
const MAX_COUNT = 2 ** 24
/** The most a prefetch asks for, as Hazelcast's prefetch-count, and a member's default maxCount. */
const MAX_PREFETCH = 100_000

/** 'The "count" argument must be …', coded as Node codes a bad argument. */
function checkCount(count) {
  const expected = `an integer from 1 to ${MAX_COUNT}`
  if (typeof count !== 'number') throw invalidArgument('count', expected, count)
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw argumentOutOfRange('count', expected, count)
  return count
}

/** A member's URL, checked: http: or https:, as a string the client appends `count` to. */
function memberUrl(value, index) {
  const name = `members[${index}]`
  const expected = 'an http: or https: URL of a member (a string or a URL)'
  if (typeof value !== 'string' && !(value instanceof URL)) throw invalidOption(name, expected, value)
  let url = null
  try {
    url = new URL(String(value))
  } catch {}
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hash !== '')
    throw invalidOption(name, expected, String(value), true)
  // fetch refuses them, and every message naming the member would show them: the token is the
  // member's credential. Shown with the user and password starred out.
  if (url.username !== '' || url.password !== '') {
    url.username = url.username && '***'
    url.password = url.password && '***'
    throw invalidOption(name, `${expected}, with no user or password (the token is the credential)`, url.href, true)
  }
  return url.href
}

// What a header's value carries the same in every runtime, and a member reads back as it was
// sent: Node refuses CR, LF and other controls in a header (ERR_INVALID_CHAR, on every request),
// fetch what is not Latin-1, and runtimes differ on the rest of non-ASCII; HTTP drops the spaces
// and tabs around a value, so the member would read another token.
const TOKEN_CLASSES = [
  [/[\r\n]/, 'a line break (CR or LF)'],
  [/(?!\t)\p{Cc}/u, 'a control character'],
  [/[^\t\x20-\x7e]/, 'a character outside ASCII'],
  [/^[ \t]|[ \t]$/, 'a space or tab at an end'],
  [/\t/, 'a tab'],
]

/**
 * Refuses a token that cannot be a header's value: at options time, not as every request's
 * failure. The token is a credential: the message names the class of character and where, never
 * the token.
 */
function checkToken(token) {
  for (const [pattern, what] of TOKEN_CLASSES) {
    const at = token.search(pattern)
    if (at !== -1)
      throw codedError(
        RangeError,
        'ERR_FLAKE_INVALID_OPTION',
        `option \`token\` must be printable ASCII (it is sent in an Authorization header), with no space at either end, got "***" (${token.length} character${token.length === 1 ? '' : 's'}, ${what} at character ${at + 1})`,
      )
  }
}

/** The client's configuration from `options`. */
function readOptions(options) {
  if (options === null || typeof options !== 'object') throw invalidOptions(options)
  refuseUnknown(options, 'FlakeId.client()', CLIENT_OPTIONS)
  const { members, token } = options
  if (!Array.isArray(members)) throw invalidOption('members', 'a non-empty array of member URLs', members)
  if (members.length === 0) throw invalidOption('members', 'a non-empty array of member URLs', members, true)
  const urls = members.map(memberUrl)
  if (token !== undefined && typeof token !== 'string')
    throw invalidOption('token', 'a non-empty string, or left out', token)
  if (token === '') throw invalidOption('token', 'a non-empty string, or left out', token, true)
  if (token !== undefined) checkToken(token)
  return {
    members: [...new Set(urls)],
    token,
    prefetchCount: integerOption(options, 'prefetchCount', DEFAULTS.prefetchCount, 1, MAX_PREFETCH, invalidOption),
    // 0: batches never expire (Hazelcast's meaning), for ids whose order does not matter.
    prefetchValidityMs: integerOption(
      options,
      'prefetchValidityMs',
      DEFAULTS.prefetchValidityMs,
      0,
      2 ** 31 - 1,
      invalidOption,
    ),
    timeoutMs: integerOption(options, 'timeoutMs', DEFAULTS.timeoutMs, 1, 600_000, invalidOption),
  }
}

module.exports = { readOptions, checkCount, describe, MAX_COUNT, MAX_PREFETCH }

'use strict'

// generator.batchHandler()'s options, each read once and checked, and the bearer token's check.

const { createHash, timingSafeEqual } = require('node:crypto')
const { invalidOption, invalidOptions } = require('../errors/errors.js')
const integerOption = require('../options/integer-option.js')
const { refuseUnknown } = require('../options/unknown.js')

/** The most ids a request may ask for, by default: Hazelcast's largest prefetch-count. */
const DEFAULT_MAX_COUNT = 100_000
/** The most a member ever serves at once: nextBatchAsync's limit (2^24 ids, 128 MiB). */
const MAX_COUNT = 2 ** 24
/**
 * The most batch requests a member serves at once, by default: 128 at the default maxCount are
 * 12.8 M ids, served within ~3 s at 4,096 a millisecond, inside a client's 5 s timeoutMs; a
 * request past them is refused (503) at once, for the client to ask another member.
 */
const DEFAULT_MAX_QUEUED = 128
const DEFAULTS = {
  maxCount: DEFAULT_MAX_COUNT,
  requestTimeoutMs: 10_000,
  maxHeaderBytes: 8192,
  maxQueued: DEFAULT_MAX_QUEUED,
}
/** The options of generator.batchHandler(): the docs' table lists these. */
const BATCH_HANDLER_OPTIONS = ['token', 'allowNoToken', 'maxCount', 'requestTimeoutMs', 'maxHeaderBytes', 'maxQueued']

const sha256 = (bytes) => createHash('sha256').update(bytes).digest()

/**
 * The handler's configuration: a member never serves without a token unless `allowNoToken:
 * true` says so, since anyone who reaches its port would take its ids (and its throughput).
 */
function checkOptions(options) {
  if (options === undefined || options === null || typeof options !== 'object') throw invalidOptions(options)
  refuseUnknown(options, 'generator.batchHandler()', BATCH_HANDLER_OPTIONS)
  const { token, allowNoToken = false } = options
  if (typeof allowNoToken !== 'boolean') throw invalidOption('allowNoToken', 'a boolean', allowNoToken)
  const expected = allowNoToken ? 'a non-empty string, or left out (allowNoToken)' : 'a non-empty string'
  if (token !== undefined || !allowNoToken) {
    if (typeof token !== 'string') throw invalidOption('token', expected, token)
    if (token.length === 0) throw invalidOption('token', expected, token, true)
  }
  return {
    // Hashed once: each request's token is hashed too and the digests compared, so that the
    // comparison takes the same time whatever the token's length.
    digest: token === undefined ? undefined : sha256(token),
    maxCount: integerOption(options, 'maxCount', DEFAULTS.maxCount, 1, MAX_COUNT, invalidOption),
    requestTimeoutMs: integerOption(options, 'requestTimeoutMs', DEFAULTS.requestTimeoutMs, 1, 600_000, invalidOption),
    maxHeaderBytes: integerOption(options, 'maxHeaderBytes', DEFAULTS.maxHeaderBytes, 256, 65_536, invalidOption),
    maxQueued: integerOption(options, 'maxQueued', DEFAULTS.maxQueued, 1, 100_000, invalidOption),
  }
}

/** Whether `header` (a request's Authorization) carries the token, compared in constant time. */
function authorized({ digest }, header) {
  if (digest === undefined) return true
  if (typeof header !== 'string' || !/^Bearer /i.test(header)) return false
  return timingSafeEqual(sha256(header.slice(7).trim()), digest)
}

module.exports = { checkOptions, authorized, BATCH_HANDLER_OPTIONS, DEFAULT_MAX_COUNT, DEFAULT_MAX_QUEUED, MAX_COUNT }

'use strict'

// The options of FlakeId.lease(), each read once and checked, and the limits the command
// shares: a rule is stated here and nowhere else.

const binding = require('../binding/load-binding.js')
const { codedError, invalidOption, invalidOptions } = require('../errors/errors.js')
const { FLAKE_ID_OPTIONS, LEASE_OPTIONS } = require('../id-sources/index.js')
const { refuseUnknown } = require('../options/unknown.js')

// A new namespace (or one whose store lost its data) issues its first id after ttl + skew: 11 s.
const DEFAULTS = { ttl: 10_000, maxClockSkewMs: 1000 }

/** The longest namespace, in characters: the store's key or row holds it whole. */
const MAX_NAMESPACE_LENGTH = 200

// What a lease sets itself (the node id, whatever parts its layout names it by): the options of
// new FlakeId()'s other sources (`id`, `idFrom`...), which would be overridden, so refused by
// name. `scope` and `stateDir` are the generator's, as for new FlakeId: the state of its id it
// shares with every generator of the id on the host.
const LEASED_OPTIONS = FLAKE_ID_OPTIONS.filter((name) => !LEASE_OPTIONS.includes(name))
// Every key FlakeId.lease() knows, for the nearest name to a typo: a LEASED_OPTIONS name too.
const KNOWN = [...LEASE_OPTIONS, ...LEASED_OPTIONS]

/** `value` as an integer from `min` to `max`, or `fallback` when unset. */
function integer(option, value, fallback, min, max) {
  if (value === undefined || value === null) return fallback
  const expected = `an integer from ${min} to ${max}`
  if (typeof value !== 'number') throw invalidOption(option, expected, value)
  if (!Number.isInteger(value) || value < min || value > max) throw invalidOption(option, expected, value, true)
  return value
}

// What a store refuses (PostgreSQL's text has no NUL) or changes (a lone surrogate is written
// as U+FFFD, which would make two namespaces one).
// With the u flag, a surrogate pair is one code point: only lone ones match.
const LONE_SURROGATE = /[\ud800-\udfff]/u
const unstorable = (text) => text.includes('\0') || LONE_SURROGATE.test(text)

/**
 * Refuses a namespace that is not a string of 1 to MAX_NAMESPACE_LENGTH characters, or one with
 * a character a store refuses or changes (NUL, a lone surrogate).
 */
function checkNamespace(namespace) {
  const expected = `a string of 1 to ${MAX_NAMESPACE_LENGTH} characters`
  if (typeof namespace !== 'string' || namespace.length === 0 || namespace.length > MAX_NAMESPACE_LENGTH) {
    throw invalidOption('namespace', expected, namespace)
  }
  if (unstorable(namespace)) {
    throw invalidOption('namespace', `${expected}, without NUL or a lone surrogate`, namespace, true)
  }
  return namespace
}

/**
 * `[first, last]` of the pool of node ids to lease from: all of the layout's (0 to `maxId`) by
 * default. A TypeError for what is no pair of integers, a RangeError for one outside the layout's
 * node ids or out of order.
 */
function idRange(ids, maxId) {
  if (ids === undefined || ids === null) return [0, maxId]
  const expected = `a pair [first, last] of node ids of the layout, 0 ≤ first ≤ last ≤ ${maxId}`
  if (!Array.isArray(ids) || ids.length !== 2 || !ids.every((id) => typeof id === 'number')) {
    throw invalidOption('ids', expected, ids)
  }
  const isId = (id) => Number.isInteger(id) && id >= 0 && id <= maxId
  if (!ids.every(isId) || ids[0] > ids[1]) {
    // Two numbers: shown as the pair they are, where invalidOption would say "an array".
    const message = `option \`ids\` must be ${expected}, got [${ids.join(', ')}]`
    throw codedError(RangeError, 'ERR_FLAKE_INVALID_OPTION', message)
  }
  return [ids[0], ids[1]]
}

/**
 * The lease's configuration from the options of FlakeId.lease(), each read once: the lease's
 * own settings, the user's store client and `replicas` (checked by the store adapter, which
 * knows the client), and `generator`, the options of the generator it drives.
 */
function readLeaseOptions(options) {
  if (options === null || typeof options !== 'object') {
    throw invalidOptions(options)
  }
  refuseUnknown(options, 'FlakeId.lease()', KNOWN, LEASE_OPTIONS)
  for (const name of LEASED_OPTIONS) {
    const value = options[name]
    if (value !== undefined) throw invalidOption(name, 'left out: a lease sets it', value)
  }
  const { store, namespace, ids, signal, onLost, onWait, replicas, layout, epoch, seqMask, allowedFutureMs, clock } =
    options
  // Where the leased id's state is (as for new FlakeId), checked with the generator's options.
  const { scope, stateDir } = options
  // Read once, resolved: the pool is its node ids, and the generator takes the same layout back.
  const resolved = binding.resolveLayout(layout)
  Object.freeze(resolved.parts)
  Object.freeze(resolved)
  const ttl = integer('ttl', options.ttl, DEFAULTS.ttl, 100, 86_400_000)
  const config = {
    ttl,
    maxClockSkewMs: integer('maxClockSkewMs', options.maxClockSkewMs, DEFAULTS.maxClockSkewMs, 0, 3_600_000),
    acquireTimeout: integer('acquireTimeout', options.acquireTimeout, ttl, 0, 2 ** 31 - 1),
    namespace: checkNamespace(namespace),
    ids: idRange(ids, resolved.maxId),
    store,
    replicas,
    signal,
    onLost,
    onWait,
    // Frozen: every lease installs these again, and the generator shows them as its `options`.
    generator: Object.freeze({ layout: resolved, epoch, seqMask, allowedFutureMs, clock, scope, stateDir }),
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw invalidOption('signal', 'an AbortSignal', signal)
  if (onLost !== undefined && typeof onLost !== 'function') throw invalidOption('onLost', 'a function', onLost)
  if (onWait !== undefined && typeof onWait !== 'function') throw invalidOption('onWait', 'a function', onWait)
  return config
}

module.exports = { readLeaseOptions, checkNamespace, integer, MAX_NAMESPACE_LENGTH }

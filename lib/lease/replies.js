'use strict'
// Every store reply checked before a lease trusts it: a reply that is not what the store's
// script or statement answers (another program's, a proxy's, a client's `QUEUED` inside the
// app's MULTI) is an ERR_FLAKE_LEASE_STORE naming what came, never a raw TypeError or a fence
// that is not a finite time.

const { codedError } = require('../errors/errors.js')

// The latest time a Date holds: a ceiling or floor past it is no time.
const MAX_TIME = 8_640_000_000_000_000
// The highest node id of any layout (16 node bits); the lease checks the id against its pool.
const MAX_ID = 2 ** 16 - 1

/** An ERR_FLAKE_LEASE_STORE: "the lease store (`kind`) `what`". */
const storeError = (kind, what, cause) =>
  codedError(Error, 'ERR_FLAKE_LEASE_STORE', `the lease store (${kind}) ${what}`, cause)

/**
 * An ERR_FLAKE_LEASE_SCHEMA: the store keeps its records in a form that cannot hold what the
 * lease writes exactly (a table made by hand, a trigger, a record written by hand), so no
 * ceiling read from it is trusted.
 */
const schemaError = (kind, what) => codedError(Error, 'ERR_FLAKE_LEASE_SCHEMA', `the lease store (${kind}): ${what}`)

const isTime = (value) => Number.isSafeInteger(value) && value >= 0 && value <= MAX_TIME
const shown = (value) => {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value)
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

// What each operation answers: the statuses it may give, and each status's fields.
const TIME = { now: isTime }
const SHAPES = {
  time: { undefined: TIME },
  acquire: {
    acquired: {
      ...TIME,
      id: (v) => Number.isInteger(v) && v >= 0 && v <= MAX_ID,
      floor: isTime,
      ceiling: isTime,
    },
    exhausted: { ...TIME, retryAt: (v) => v === undefined || v === null || isTime(v) },
    mismatch: { meta: (v) => typeof v === 'string' },
  },
  renew: { renewed: { ...TIME, ceiling: isTime }, lost: TIME },
  release: { released: {}, lost: {} },
  list: { undefined: { ...TIME, fields: (v) => Array.isArray(v) || (v !== null && typeof v === 'object') } },
}

/** `result` (an object a store adapter read) if it is what `operation` answers, else an ERR_FLAKE_LEASE_STORE. */
function checkResult(kind, operation, result, raw = result) {
  const bad = (why) => storeError(kind, `replied ${shown(raw)} to ${operation}: ${why}`)
  if (result === null || typeof result !== 'object' || Array.isArray(result)) throw bad('not an object')
  const shapes = SHAPES[operation]
  const shape = shapes[String(result.status)]
  if (shape === undefined) throw bad(`no status of ${Object.keys(shapes).join(', ')}`)
  for (const [field, ok] of Object.entries(shape)) {
    if (!ok(result[field])) throw bad(`${field} is ${shown(result[field])}`)
  }
  if (result.status === 'acquired' && result.ceiling < result.floor) throw bad('a ceiling below its floor')
  return result
}

module.exports = { checkResult, storeError, schemaError, shown, isTime, MAX_TIME }

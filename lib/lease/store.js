'use strict'
// Finds the store of the user's own client among the stores' rows (stores.js), each of which
// recognises its clients by their shape.

const { STORES } = require('./stores.js')
const { integer } = require('./options.js')
const { invalidOption } = require('../errors/errors.js')
const { redact } = require('../errors/redact.js')

// Far above any deployment's replica count; this only keeps the count a number a store reads.
const MAX_REPLICAS = 1000

/** What `store` takes: every store's clients, as one list ("a, b, or c"). */
function accepted() {
  const clients = STORES.map((store) => store.describes)
  return clients.length > 1 ? `${clients.slice(0, -1).join(', ')}, or ${clients.at(-1)}` : clients.join('')
}

/**
 * The lease store adapter for a user's client.
 * @param {object} client a client of one of STORES (each row `describes` its clients)
 * @param {{ replicas?: number, waitMs?: number }} [options] replicas that must acknowledge each
 *   acquire and renew, for up to `waitMs`, 0 to MAX_REPLICAS: a store that has none refuses more than 0
 * @returns {import('./stores.js').Store} with `kind`, `time`, `acquire`, `renew`, `release`, `list`, `close`
 * @throws {TypeError} code `ERR_FLAKE_INVALID_OPTION` for a client no store recognises, or bad `replicas`
 */
function storeFor(client, options = {}) {
  const replicas = integer('replicas', options.replicas, 0, 0, MAX_REPLICAS)
  const waitMs = options.waitMs ?? 1000
  if (client !== null && (typeof client === 'object' || typeof client === 'function')) {
    for (const store of STORES) {
      const recognised = store.recognise(client)
      if (recognised) return store.make(client, { replicas, waitMs }, recognised)
    }
  }
  // A connection string given for a client is shown without its password.
  throw invalidOption('store', accepted(), redact(client))
}

module.exports = { storeFor }

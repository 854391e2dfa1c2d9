'use strict'

// FlakeId.lease(): a generator id leased from a store the user's own client reaches (one of
// stores.js), so that a fleet of processes never holds one id twice, with every id's timestamp
// fenced (see controller.js).

const native = require('../binding/native.js')
const Lease = require('./controller.js')
const { readLeaseOptions } = require('./options.js')
const { storeFor } = require('./store.js')

/**
 * A generator leased from `options.store` (docs/fleets.md), once it can issue:
 * `make(generatorOptions, configured, fields, lease)` makes it, on the `fields` the lease drives.
 */
async function lease(options, make) {
  const config = readLeaseOptions(options)
  // The generator's options checked before the store is made: a refusal leaves nothing open.
  const { configured, fields } = native.leasedFields(config.generator)
  // WAIT answers within half a store call's time (ttl / 3): an unreplicated write is told apart
  // from a store that does not answer.
  const waitMs = Math.max(1, Math.floor(config.ttl / 6))
  const store = storeFor(config.store, { replicas: config.replicas, waitMs })
  const controller = new Lease(config, store, fields, configured.epoch)
  const generator = make(config.generator, configured, fields, controller)
  await controller.start()
  return generator
}

module.exports = { lease }

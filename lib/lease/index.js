'use strict'

// FlakeId.lease(): a generator id leased from the user's Redis or PostgreSQL, so that a fleet
// of processes never holds one id twice, with every id's timestamp fenced (see controller.js).

const native = require('../native.js')
const Lease = require('./controller.js')
const { readLeaseOptions } = require('./options.js')
const { storeFor } = require('./store.js')

/**
 * A generator leased from `options.store` (see the README's "Fleets"), once it can issue:
 * `make(generatorOptions, configured, fields, lease)` makes it, on the `fields` the lease drives.
 */
async function lease(options, make) {
  const config = readLeaseOptions(options)
  const store = storeFor(config.store, { replicas: config.replicas })
  const { configured, fields } = native.leasedFields(config.generator)
  const controller = new Lease(config, store, fields, configured.epoch)
  const generator = make(config.generator, configured, fields, controller)
  await controller.start()
  return generator
}

module.exports = { lease }

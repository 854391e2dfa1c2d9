'use strict'
// Recognises the user's own store client by its shape: this package depends on no client, so
// it cannot use instanceof, and the user's client may come from any version in their project.

const { redisStore } = require('./redis.js')
const { postgresStore } = require('./postgres.js')
const { integer } = require('./options.js')
const { invalidOption } = require('../errors.js')

// Redis's own limit on a replica count is far above any deployment; this only keeps WAIT's
// argument a number Redis reads.
const MAX_REPLICAS = 1000
const ACCEPTED = 'an ioredis client, a node-redis (v4/v5) client, or a pg Pool or Client'

/**
 * The lease store adapter for a user's client.
 * @param {object} client an ioredis `Redis` or `Cluster`, a node-redis v4/v5 client or cluster,
 *   or a connected pg `Pool` or `Client`
 * @param {{ replicas?: number }} [options] Redis only: replicas that must acknowledge each
 *   acquire and renew (`WAIT`), 0 to MAX_REPLICAS
 * @returns {import('./redis.js').Store} with `kind`, `time`, `acquire`, `renew`, `release`, `list`
 * @throws {TypeError} code `ERR_FLAKE_INVALID_OPTION` for a client of another shape, or bad `replicas`
 */
function storeFor(client, options = {}) {
  const replicas = integer('replicas', options.replicas, 0, 0, MAX_REPLICAS)
  const isObject = client !== null && (typeof client === 'object' || typeof client === 'function')
  if (isObject && typeof client.defineCommand === 'function' && typeof client.call === 'function') {
    const send = (args) => client.call(...args)
    if (client.isCluster !== true) return redisStore('ioredis', { send }, replicas)
    // A Cluster sends a command without keys, as WAIT is, to any node: in a pipeline it goes
    // with the script, to the namespace's node, on the connection the script wrote on.
    const sendThenWait = async (args, wait) => {
      const results = await client
        .pipeline()
        .call(...args)
        .call(...wait)
        .exec()
      for (const [error] of results) if (error) throw error
      return [results[0][1], results[1][1]]
    }
    return redisStore('ioredis', { send, sendThenWait }, replicas)
  }
  if (isObject && typeof client.sendCommand === 'function' && typeof client.isOpen === 'boolean') {
    // A node-redis cluster routes each command, WAIT included, by the key it is given.
    const cluster = typeof client.getSlotMaster === 'function' && Array.isArray(client.masters)
    const send = cluster
      ? (args, key) => client.sendCommand(key, false, args.map(String))
      : (args) => client.sendCommand(args.map(String))
    return redisStore('redis', { send }, replicas)
  }
  if (isObject && typeof client.query === 'function' && typeof client.connect === 'function') {
    if (replicas > 0) {
      throw invalidOption(
        'replicas',
        '0 with PostgreSQL (use its synchronous replication, synchronous_standby_names)',
        replicas,
      )
    }
    return postgresStore(client)
  }
  throw invalidOption('store', ACCEPTED, client)
}

module.exports = { storeFor }

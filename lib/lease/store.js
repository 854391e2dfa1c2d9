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

/** Closes `connection` (ioredis, node-redis v4/v5, client or cluster) without waiting for replies. */
function disconnect(connection) {
  if (typeof connection.destroy === 'function' && typeof connection.isOpen === 'boolean') {
    if (connection.isOpen) connection.destroy()
  } else if (typeof connection.disconnect === 'function') {
    const done = connection.disconnect()
    if (done && typeof done.catch === 'function') done.catch(() => {})
  }
}

/**
 * A connection of the lease's own, made on first use by `make` from the user's client: WAIT
 * blocks the connection it runs on, so it must not be the app's, and it counts the writes of
 * its own connection, so the scripts run there too.
 */
function ownConnection(make) {
  let connection = null
  let ready = null
  return {
    get() {
      if (ready === null) {
        connection = make()
        // Failures reach the lease through its commands; the event would throw without a listener.
        connection.on('error', () => {})
        // Like the renewal timers, the lease's own connection never keeps a process alive.
        connection.on('connect', () => connection.stream?.unref?.())
        ready = typeof connection.connect === 'function' && connection.isOpen === false ? connection.connect() : null
        ready = Promise.resolve(ready).then(() => {
          if (typeof connection.isOpen === 'boolean') connection.unref?.()
          return connection
        })
      }
      return ready
    },
    async close() {
      if (connection !== null) disconnect(connection)
      connection = ready = null
    },
  }
}

/**
 * The lease store adapter for a user's client.
 * @param {object} client an ioredis `Redis` or `Cluster`, a node-redis v4/v5 client or cluster,
 *   or a connected pg `Pool` or `Client`
 * @param {{ replicas?: number, waitMs?: number }} [options] Redis only: replicas that must
 *   acknowledge each acquire and renew (`WAIT`, on a connection of the store's own, for up to
 *   `waitMs`), 0 to MAX_REPLICAS
 * @returns {import('./redis.js').Store} with `kind`, `time`, `acquire`, `renew`, `release`, `list`, `close`
 * @throws {TypeError} code `ERR_FLAKE_INVALID_OPTION` for a client of another shape, or bad `replicas`
 */
function storeFor(client, options = {}) {
  const replicas = integer('replicas', options.replicas, 0, 0, MAX_REPLICAS)
  const waitMs = options.waitMs ?? 1000
  const isObject = client !== null && (typeof client === 'object' || typeof client === 'function')
  if (isObject && typeof client.defineCommand === 'function' && typeof client.call === 'function') {
    const own = replicas > 0 ? ownConnection(() => client.duplicate()) : null
    const on = async () => (own === null ? client : await own.get())
    const send = async (args) => (await on()).call(...args)
    if (client.isCluster !== true) return redisStore('ioredis', { send, close: own?.close }, replicas, waitMs)
    // A Cluster sends a command without keys, as WAIT is, to any node: in a pipeline it goes
    // with the script, to the namespace's node, on the connection the script wrote on.
    const sendThenWait = async (args, wait) => {
      const results = await (await on())
        .pipeline()
        .call(...args)
        .call(...wait)
        .exec()
      for (const [error] of results) if (error) throw error
      return [results[0][1], results[1][1]]
    }
    return redisStore('ioredis', { send, sendThenWait, close: own?.close }, replicas, waitMs)
  }
  if (isObject && typeof client.sendCommand === 'function' && typeof client.isOpen === 'boolean') {
    // A node-redis cluster routes each command, WAIT included, by the key it is given.
    const cluster = typeof client.getSlotMaster === 'function' && Array.isArray(client.masters)
    const own = replicas > 0 ? ownConnection(() => client.duplicate()) : null
    const on = async () => (own === null ? client : await own.get())
    const send = cluster
      ? async (args, key) => (await on()).sendCommand(key, false, args.map(String))
      : async (args) => (await on()).sendCommand(args.map(String))
    return redisStore('redis', { send, close: own?.close }, replicas, waitMs)
  }
  if (isObject && typeof client.query === 'function' && typeof client.connect === 'function') {
    if (replicas > 0) {
      throw invalidOption(
        'replicas',
        '0 with PostgreSQL (use its synchronous replication, synchronous_standby_names)',
        replicas,
      )
    }
    // A Client shared with the app may run a lease statement inside the app's transaction: one
    // that cannot say so is refused.
    if (typeof client.totalCount !== 'number' && typeof client.getTransactionStatus !== 'function') {
      throw invalidOption('store', 'a pg Pool, or a pg Client with getTransactionStatus() (pg 8.x)', client)
    }
    return postgresStore(client)
  }
  throw invalidOption('store', ACCEPTED, client)
}

module.exports = { storeFor }

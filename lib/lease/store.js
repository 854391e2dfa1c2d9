'use strict'
// Recognises the user's own store client by its shape: this package depends on no client, so
// it cannot use instanceof, and the user's client may come from any version in their project.

const { redisStore } = require('./redis.js')
const { postgresStore } = require('./postgres.js')

const ACCEPTED = 'an ioredis client, a node-redis (v4/v5) client, or a pg Pool or Client'

function invalid(message) {
  const error = new TypeError(message)
  error.code = 'ERR_FLAKE_INVALID_OPTION'
  return error
}

function describe(value) {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined'
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)})`
  return `a ${typeof value} (${String(value)})`
}

/**
 * The lease store adapter for a user's client.
 * @param {object} client an ioredis `Redis` or `Cluster`, a node-redis v4/v5 client or cluster,
 *   or a connected pg `Pool` or `Client`
 * @param {{ replicas?: number }} [options] Redis only: replicas that must acknowledge each
 *   acquire and renew (`WAIT`)
 * @returns {import('./redis.js').Store} with `kind`, `time`, `acquire`, `renew`, `release`, `list`
 * @throws {TypeError} code `ERR_FLAKE_INVALID_OPTION` for a client of another shape, or bad `replicas`
 */
function storeFor(client, { replicas = 0 } = {}) {
  if (!Number.isSafeInteger(replicas) || replicas < 0) {
    throw invalid(`option \`replicas\` must be an integer from 0, got ${describe(replicas)}`)
  }
  const isObject = client !== null && (typeof client === 'object' || typeof client === 'function')
  if (isObject && typeof client.defineCommand === 'function' && typeof client.call === 'function') {
    const send = (args) => client.call(...args)
    if (client.isCluster !== true) return redisStore('ioredis', { send }, replicas)
    // A Cluster sends a command without keys, as WAIT is, to any node: in a pipeline it goes
    // with the script, to the namespace's node, on the connection the script wrote on.
    const sendThenWait = async (args, wait) => {
      const results = await client.pipeline().call(...args).call(...wait).exec()
      for (const [error] of results) if (error) throw error
      return [results[0][1], results[1][1]]
    }
    return redisStore('ioredis', { send, sendThenWait }, replicas)
  }
  if (isObject && typeof client.sendCommand === 'function' && typeof client.isOpen === 'boolean') {
    // A node-redis cluster routes each command, WAIT included, by the key it is given.
    const cluster = typeof client.getSlotMaster === 'function' && Array.isArray(client.masters)
    const send = cluster ? (args, key) => client.sendCommand(key, false, args.map(String)) : (args) => client.sendCommand(args.map(String))
    return redisStore('redis', { send }, replicas)
  }
  if (isObject && typeof client.query === 'function' && typeof client.connect === 'function') {
    if (replicas > 0) {
      throw invalid('option `replicas` is for Redis only: with PostgreSQL, use its synchronous replication (synchronous_standby_names) instead')
    }
    return postgresStore(client)
  }
  throw invalid(`option \`store\` must be ${ACCEPTED}, got ${describe(client)}`)
}

module.exports = { storeFor }

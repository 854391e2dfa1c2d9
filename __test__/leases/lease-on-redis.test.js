'use strict'
// lease-suite.js's tests of FlakeId.lease() on a real redis-server through ioredis, then the
// other clients: node-redis v5, and a pool exhausted past acquireTimeout.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const Redis = require('ioredis')
const redis5 = require('redis')
const FlakeId = require('../..')
const { noServers, startRedis } = require('../support/servers.js')
const { leaseSuite, LIMIT, namespace, ids } = require('../support/lease-suite.js')

let redisServer
const store = {}
const closing = []

before(async () => {
  if (noServers) return
  redisServer = await startRedis()
  const ioredis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 })
  ioredis.on('error', () => {})
  const nodeRedis = redis5.createClient({ url: redisServer.url })
  nodeRedis.on('error', () => {})
  await nodeRedis.connect()
  // A node-redis client loads much of its code on its first command: hundreds of ms from a cold
  // disk, which a lease call of a short test ttl would count against the store. Loaded here, for
  // the client the node-redis test connects.
  await nodeRedis.ping()
  closing.push(
    () => ioredis.disconnect(),
    () => nodeRedis.disconnect(),
  )
  Object.assign(store, { client: ioredis, url: redisServer.url, lose: () => redisServer.restart() })
})

after(async () => {
  for (const close of closing) await Promise.resolve(close()).catch(() => {})
  // The server is a child process: running, it keeps this process alive.
  await redisServer?.stop()
})

leaseSuite('redis', 'Redis (ioredis)', store)

describe('leases with other clients', { skip: noServers }, () => {
  it('node-redis v5 holds and hands over a lease like ioredis', LIMIT, async () => {
    // The soak restarted this Redis (its store loss): the client of before() may still be in its
    // reconnect backoff, which can outlast a store call's ttl / 3. One connected now instead.
    const client = redis5.createClient({ url: redisServer.url })
    client.on('error', () => {})
    await client.connect()
    closing.push(() => client.disconnect())
    await client.ping()
    const shared = {
      store: client,
      namespace: namespace('node-redis'),
      ids: [9, 9],
      // Store calls time out at ttl / 3: room for a loaded machine.
      ttl: 3000,
      maxClockSkewMs: 200,
    }
    const first = await FlakeId.lease(shared)
    const a = ids(first, 10)
    await first.close()
    const second = await FlakeId.lease(shared)
    assert.ok(ids(second, 1)[0] > a[9])
    await second.close()
  })

  it('a pool exhausted past acquireTimeout rejects; an abort signal ends the wait', LIMIT, async () => {
    const shared = {
      store: store.client,
      namespace: namespace('exhausted'),
      ids: [8, 8],
      ttl: 1000,
      maxClockSkewMs: 200,
    }
    const holder = await FlakeId.lease(shared)
    await assert.rejects(FlakeId.lease({ ...shared, acquireTimeout: 200 }), { code: 'ERR_FLAKE_NO_FREE_ID' })
    await assert.rejects(FlakeId.lease({ ...shared, signal: AbortSignal.timeout(200) }), { name: 'AbortError' })
    await holder.close()
  })
})

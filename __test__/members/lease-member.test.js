'use strict'
// Issue 41: a leased member (FlakeId.lease + batchHandler) against a real redis-server. It serves
// ids of its leased node id within its fence; once its lease is lost (the store loses its data,
// as Redis does restarted without persistence), it refuses with ERR_FLAKE_LEASE_EXPIRED, and a
// client of it and another member goes on, failing over. Not in `npm run test:unit` (a server).

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const { setTimeout: sleep } = require('node:timers/promises')
const Redis = require('ioredis')
const FlakeId = require('../..')
const { noServers, startRedis } = require('../support/servers.js')
const { storeFor } = require('../../lib/lease/store.js')
const { servesLeasedId } = require('../support/leased-serve.js')

const TOKEN = 'lease-member-token'

async function listen(handler) {
  const server = http.createServer(handler)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close() {
      server.close()
      server.closeAllConnections()
    },
  }
}

describe('a leased member', { skip: noServers, timeout: 90_000 }, () => {
  let redisServer, redis
  before(async () => {
    redisServer = await startRedis()
    redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 })
    redis.on('error', () => {})
  })
  after(async () => {
    redis?.disconnect()
    await redisServer?.stop()
  })

  it('serves within its fence, refuses once its lease is lost, and its clients fail over', async () => {
    const leased = await FlakeId.lease({
      store: redis,
      namespace: `members-${process.pid}`,
      ids: [100, 101],
      ttl: 600,
      maxClockSkewMs: 100,
    })
    const plain = new FlakeId({ id: 7 })
    const [leasedMember, plainMember] = await Promise.all([
      listen(leased.batchHandler({ token: TOKEN })),
      listen(plain.batchHandler({ token: TOKEN })),
    ])
    const ask = () =>
      fetch(`${leasedMember.url}?count=10`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      })
    // A client of both takes ids the whole time: when the leased member refuses, it fails over.
    const client = FlakeId.client({ members: [leasedMember.url, plainMember.url], token: TOKEN, prefetchCount: 5 })
    let taking = true
    const taken = []
    const takes = (async () => {
      while (taking) {
        taken.push(await client.nextAsync())
        await sleep(2)
      }
    })()
    try {
      let ceiling = 0
      for (let k = 0; k < 5; k++) {
        const answer = await ask()
        assert.equal(answer.status, 200)
        const { ids } = await answer.json()
        ceiling = Math.max(ceiling, leased.lease.ceiling)
        for (const id of ids) {
          const { id: node, timestamp } = FlakeId.decompose(id)
          assert.equal(node, leased.id)
          assert.ok(Number(timestamp) <= ceiling, 'no id past the acknowledged ceiling')
        }
      }

      await redisServer.restart()
      let refusal
      const deadline = Date.now() + 20_000
      while (refusal === undefined) {
        assert.ok(Date.now() < deadline, 'the member refused within 20 s of losing its lease')
        const answer = await ask()
        const body = await answer.json()
        if (answer.status !== 200) refusal = { status: answer.status, ...body.error }
        else await sleep(20)
      }
      assert.equal(refusal.status, 503)
      assert.equal(refusal.code, 'ERR_FLAKE_LEASE_EXPIRED')
      const before = taken.length
      await sleep(200)
      assert.ok(taken.length > before, 'the client went on, from the other member')
      assert.ok(client.stats().failovers > 0)
    } finally {
      taking = false
      await takes.catch(() => {})
      client.close()
      leasedMember.close()
      plainMember.close()
      await leased.close().catch(() => {})
    }
    const hex = taken.map((id) => id.toString('hex'))
    assert.equal(new Set(hex).size, hex.length)
  })

  it('flake-idgen serve --lease: serves the leased node id, and releases it on SIGTERM', () =>
    servesLeasedId(storeFor(redis), redisServer.url, `serve-${process.pid}`))
})

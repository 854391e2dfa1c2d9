'use strict'
// Issue 50, part 4: a leased `flake-idgen serve` says its lease's state on GET /healthz and GET
// /metrics: 200 and "held" while it can issue; 503 with the code its batches are refused with, and
// "lost", once the store no longer holds its lease. Against a real redis-server: not in
// `npm run test:unit`.

const assert = require('node:assert/strict')
const { describe, it, before, after } = require('node:test')
const { setTimeout: sleep } = require('node:timers/promises')
const Redis = require('ioredis')
const { noServers, startRedis } = require('../support/servers.js')
const { storeFor } = require('../../lib/lease/store.js')
const { TOKEN, tokenDir, startServe } = require('./serve-process.js')

describe('flake-idgen serve --lease: /healthz and /metrics', { skip: noServers, timeout: 90_000 }, () => {
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

  it('held: 200; lost (the store lost it): 503 with the batches\' code, "lost" in /metrics', async () => {
    // The namespace seeded as serve's lease writes it, its first id handed back at once: serve's
    // lease then starts now, not after ttl + skew (as in members/lease-member.test.js).
    const namespace = `serve-probes-${process.pid}`
    const meta = JSON.stringify({ layout: '42/10/12', epoch: 0, ttl: 10_000, maxClockSkewMs: 1000 })
    const store = storeFor(redis)
    const base = { namespace, first: 0, last: 0, ttl: 10_000, ahead: 1, meta, unknownMs: 1 }
    const seeded = await store.acquire({ ...base, owner: 'seed:1:a' })
    assert.equal(seeded.status, 'acquired')
    await store.release({ namespace, id: seeded.id, owner: 'seed:1:a', last: Date.now() })

    const { tokenFile, cleanup } = tokenDir()
    const member = await startServe(['--lease', redisServer.url, '--namespace', namespace, '--token-file', tokenFile], {
      cwd: `${__dirname}/../..`,
    })
    const state = async () => {
      const text = await (await fetch(`${member.url}metrics`)).text()
      const found = /^flake_idgen_lease_state\{state="(\w+)",node_id="(\d+)"\} 1$/m.exec(text)
      return { state: found?.[1], node: Number(found?.[2]) }
    }
    try {
      const healthy = await fetch(`${member.url}healthz`)
      assert.equal(healthy.status, 200)
      assert.deepEqual(await healthy.json(), { status: 'ok', node: member.node, lease: 'held' })
      assert.deepEqual(await state(), { state: 'held', node: member.node })

      // The store loses its data (as Redis does restarted without persistence, here with the
      // connection kept): the next renewal finds the lease gone.
      await redis.flushall()
      let health
      const deadline = Date.now() + 20_000
      while (health === undefined) {
        assert.ok(Date.now() < deadline, 'unhealthy within 20 s of losing the lease')
        const res = await fetch(`${member.url}healthz`)
        const body = await res.json()
        if (res.status !== 200) health = { status: res.status, ...body.error }
        else await sleep(50)
      }
      const batch = await fetch(`${member.url}?count=1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
      })
      const refusal = (await batch.json()).error
      // Both told before a new lease is had (a fresh namespace's first waits ttl + skew, 11 s).
      assert.equal(health.status, 503)
      assert.equal(health.code, 'ERR_FLAKE_LEASE_EXPIRED')
      assert.equal(batch.status, 503)
      assert.equal(refusal.code, health.code)
      assert.equal((await state()).state, 'lost')

      member.child.kill('SIGTERM')
      assert.equal(await member.exited, 0, member.stderr())
    } finally {
      member.kill()
      cleanup()
    }
  })
})

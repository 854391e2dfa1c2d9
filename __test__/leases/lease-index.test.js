'use strict'
// Redis's indexes beside the hash of records (redis.js), with entries deleted by hand: each
// sorted set whole (DEL), and single entries (ZREM). The ids they indexed are leased again by
// themselves, each above the ceiling its last holder had, on a real redis-server (servers.js).

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { setTimeout: sleep } = require('node:timers/promises')
const Redis = require('ioredis')
const { noServers, startRedis } = require('../support/servers.js')
const { storeFor } = require('../../lib/lease/store.js')

const LIMIT = { timeout: 60_000 }
const META = JSON.stringify({ layout: '42/10/12', epoch: 0, ttl: 200, maxClockSkewMs: 0 })

let server, redis
let count = 0

before(async () => {
  if (noServers) return
  server = await startRedis()
  redis = new Redis(server.url)
})

after(async () => {
  redis?.disconnect()
  await server?.stop()
})

const args = (namespace, owner, ttl) => ({
  namespace,
  first: 0,
  last: 1,
  owner,
  ttl,
  ahead: 1000,
  meta: META,
  unknownMs: 0,
})

/** Acquires in `namespace` until an id is had, within 10 s (a lease held expires within its ttl). */
async function acquire(store, namespace, owner) {
  for (let tries = 0; tries < 200; tries++) {
    const answer = await store.acquire(args(namespace, owner, 60_000))
    if (answer.status === 'acquired') return answer
    await sleep(50)
  }
  assert.fail(`no id of 0–1 is leasable again in ${namespace}`)
}

/**
 * Leases ids 0 and 1 (released at once when `released`, else left to expire), runs `damage`
 * on the index, then leases both again: the new holders' floors are at or above the old
 * ceilings.
 */
async function assertRepaired(released, damage) {
  const store = storeFor(redis)
  const namespace = `index-${process.pid}-${count++}`
  const key = `flake-idgen:{${namespace}}`
  const old = new Map()
  for (const owner of ['a', 'b']) {
    const answer = await store.acquire(args(namespace, owner, released ? 60_000 : 200))
    assert.equal(answer.status, 'acquired')
    old.set(answer.id, answer.ceiling)
    if (released) await store.release({ namespace, id: answer.id, owner, last: answer.ceiling })
  }
  assert.deepEqual([...old.keys()].sort(), [0, 1])
  await damage(key)
  const again = [await acquire(store, namespace, 'c'), await acquire(store, namespace, 'd')]
  assert.deepEqual(again.map((a) => a.id).sort(), [0, 1])
  for (const { id, floor } of again) assert.ok(floor >= old.get(id), `id ${id}: floor ${floor} < ${old.get(id)}`)
  // Indexed again: a third holder finds the pool full, until one of them goes.
  assert.equal((await store.acquire(args(namespace, 'e', 60_000))).status, 'exhausted')
  await store.release({ namespace, id: again[0].id, owner: 'c', last: again[0].ceiling })
  const third = await store.acquire(args(namespace, 'e', 60_000))
  assert.deepEqual([third.status, third.id], ['acquired', again[0].id])
  assert.ok(third.floor >= again[0].ceiling)
}

describe('Redis index entries deleted by hand', { skip: noServers }, () => {
  const cases = {
    'the free index deleted (DEL), ids released': [true, (key) => redis.del(`${key}:free`)],
    'one free entry removed (ZREM), ids released': [true, (key) => redis.zrem(`${key}:free`, '00001')],
    'the held index deleted (DEL), leases expired': [false, (key) => redis.del(`${key}:held`)],
    'one held entry removed (ZREM), leases expired': [false, (key) => redis.zrem(`${key}:held`, '00000')],
    'the runs deleted (DEL), ids released': [true, (key) => redis.del(`${key}:runs`)],
    'one run removed (ZREM), leases expired': [false, (key) => redis.zrem(`${key}:runs`, '0-1')],
    'every index deleted, ids released': [true, (key) => redis.del(`${key}:free`, `${key}:held`, `${key}:runs`)],
    'every index deleted, leases expired': [false, (key) => redis.del(`${key}:free`, `${key}:held`, `${key}:runs`)],
  }
  for (const [name, [released, damage]] of Object.entries(cases)) {
    it(`${name}: both ids are leased again, above their old ceilings`, LIMIT, () => assertRepaired(released, damage))
  }

  it('a record whose run and index entries are gone is never fresh below its ceiling', LIMIT, async () => {
    const store = storeFor(redis)
    const namespace = `index-${process.pid}-${count++}`
    const key = `flake-idgen:{${namespace}}`
    const a = await store.acquire(args(namespace, 'a', 60_000))
    // Its index entry deleted, and its record too: the run still says id 0 was held.
    await redis.zrem(`${key}:held`, '00000')
    await redis.hdel(key, '0')
    const b = await store.acquire(args(namespace, 'b', 60_000))
    assert.deepEqual([b.status, b.id], ['acquired', 1])
    // Id 1's entry deleted too: the indexes are built again from the records, and the runs.
    await redis.zrem(`${key}:held`, '00001')
    assert.equal((await store.acquire(args(namespace, 'c', 60_000))).status, 'exhausted', `id 0 below ${a.ceiling}`)
  })
})

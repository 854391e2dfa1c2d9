'use strict'
// Leases at fleet scale, against real servers (servers.js): namespaces that earlier versions of
// the package wrote keep working under the indexes that make acquire O(log n), 500 holders
// leasing at once from 65,536 ids each get one of their own, and PostgreSQL's acquire reads a row
// or two of a new namespace before autovacuum has analyzed it. How fast is the bench's to say
// (bench/leases.js): nothing here is timed.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const Redis = require('ioredis')
const pg = require('pg')
const mysql = require('mysql2/promise')
const { noServers, startRedis, startPostgres, startMariadb } = require('../support/servers.js')
const { storeFor } = require('../../lib/lease/store.js')
const { statements } = require('../../lib/lease/postgres.js')
const { startEtcd } = require('../support/servers.js')
const { etcdClient } = require('../support/etcd-client.js')

const LIMIT = { timeout: 180_000 }
const META = JSON.stringify({ layout: '41/seq6/node16', epoch: 1514764800000, ttl: 5000, maxClockSkewMs: 1000 })

let redisServer, pgServer, mariadbServer, redis, pool, mysqlPool

before(async () => {
  if (noServers) return
  ;[redisServer, pgServer, mariadbServer] = await Promise.all([startRedis(), startPostgres(), startMariadb()])
  redis = new Redis(redisServer.url)
  pool = new pg.Pool({ connectionString: pgServer.url, max: 10 })
  pool.on('error', () => {})
  mysqlPool = mysql.createPool({ uri: mariadbServer.url, connectionLimit: 10 })
}, LIMIT)

after(async () => {
  redis?.disconnect()
  await pool?.end()
  await mysqlPool?.end()
  await Promise.all([redisServer, pgServer, mariadbServer].filter(Boolean).map((server) => server.stop()))
}, LIMIT)

const args = (namespace, over) => ({
  namespace,
  first: 0,
  last: 3,
  owner: 'new',
  ttl: 5000,
  ahead: 0,
  meta: META,
  unknownMs: 6000,
  ...over,
})

/**
 * What an earlier version leaves in a namespace of ids 0-3 at time `base`: id 0 held (until
 * `held`), id 1 released at base + 10, id 2 expired with ceiling base + 5, id 3 never held.
 * The new store must take 3, 2, 1 in that order (lowest ceiling first), then wait for 0.
 */
async function assertTakesOver(store, namespace, base, held) {
  const order = []
  for (let k = 0; k < 3; k++) order.push(await store.acquire(args(namespace, { owner: `new-${k}` })))
  assert.deepEqual(
    order.map(({ status, id, floor }) => [status, id, floor]),
    [
      ['acquired', 3, base],
      ['acquired', 2, base + 5],
      ['acquired', 1, base + 10],
    ],
  )
  const exhausted = await store.acquire(args(namespace, { owner: 'late' }))
  // The soonest expiry: the first new holder's, before the earlier version's holder's.
  assert.deepEqual([exhausted.status, exhausted.retryAt], ['exhausted', Math.min(held, order[0].now + 5000)])
  // The earlier version's holder renews and hands over as it did.
  const renewed = await store.renew({ namespace, id: 0, owner: 'old', ttl: 5000, ahead: 60_000, meta: META })
  assert.equal(renewed.status, 'renewed')
  const last = renewed.ceiling - 100
  assert.deepEqual(await store.release({ namespace, id: 0, owner: 'old', last }), { status: 'released' })
  const successor = await store.acquire(args(namespace, { owner: 'successor' }))
  assert.deepEqual([successor.status, successor.id, successor.floor], ['acquired', 0, last])
  // And the renewals of the new holders reach the records they took.
  for (const [k, { id }] of order.entries()) {
    const r = await store.renew({ namespace, id, owner: `new-${k}`, ttl: 5000, ahead: 1, meta: META })
    assert.equal(r.status, 'renewed', `id ${id}`)
  }
}

describe("today's records", { skip: noServers }, () => {
  it('Redis: a namespace without indexes is indexed on first acquire, and leased as before', LIMIT, async () => {
    const namespace = 'redis-before'
    const key = `flake-idgen:{${namespace}}`
    const store = storeFor(redis)
    const now = await store.time()
    const base = now - 60_000
    const held = now + 60_000
    await redis.hset(key, {
      meta: META,
      floor: String(base),
      0: JSON.stringify({ o: 'old', e: held, c: base + 50 }),
      1: JSON.stringify({ e: 0, c: base + 10 }),
      2: JSON.stringify({ o: 'gone', e: base + 1, c: base + 5 }),
    })
    await assertTakesOver(store, namespace, base, held)
    assert.equal(await redis.hget(key, 'index'), '1')
    assert.deepEqual(await redis.zrange(`${key}:runs`, 0, -1), ['0-3'])
  })

  it('Redis: writes of an earlier version beside the indexes never make a held id look free', LIMIT, async () => {
    const namespace = 'redis-mixed'
    const key = `flake-idgen:{${namespace}}`
    const store = storeFor(redis)
    const first = await store.acquire(args(namespace, { last: 5 }))
    assert.equal(first.id, 0)
    const now = await store.time()
    // An earlier version takes id 1 (never held) and id 0 back after a release, as its script
    // does: the hash only.
    await store.release({ namespace, id: 0, owner: 'new', last: first.floor + 1 })
    await redis.hset(key, {
      0: JSON.stringify({ o: 'old-a', e: now + 60_000, c: now }),
      1: JSON.stringify({ o: 'old-b', e: now + 60_000, c: now }),
    })
    const taken = []
    for (let k = 0; k < 4; k++) taken.push((await store.acquire(args(namespace, { last: 5, owner: `n${k}` }))).id)
    assert.deepEqual(taken, [2, 3, 4, 5])
    assert.equal((await store.acquire(args(namespace, { last: 5, owner: 'late' }))).status, 'exhausted')
  })

  it(
    'PostgreSQL: a table of the earlier schema gets its columns and indexes, and is leased as before',
    LIMIT,
    async () => {
      const admin = await pool.connect()
      const client = new pg.Client({ connectionString: pgServer.url, options: '-c search_path=before_v1' })
      try {
        await admin.query('CREATE SCHEMA before_v1')
        // The table and rows as the earlier version made them: every id of the pool a row.
        await admin.query(`CREATE TABLE before_v1.flake_idgen_leases (
        namespace text NOT NULL, id integer NOT NULL, owner text, expires bigint NOT NULL,
        ceiling bigint NOT NULL, meta text, PRIMARY KEY (namespace, id))`)
        await client.connect()
        const store = storeFor(client)
        const now = await store.time()
        const base = now - 60_000
        const held = now + 60_000
        const namespace = 'pg-before'
        await admin.query(
          `INSERT INTO before_v1.flake_idgen_leases VALUES
          ($1, -1, NULL, 0, $2, $3), ($1, 0, 'old', $4, $2 + 50, NULL), ($1, 1, NULL, 0, $2 + 10, NULL),
          ($1, 2, 'gone', $2 + 1, $2 + 5, NULL), ($1, 3, NULL, -1, $2, NULL)`,
          [namespace, base, META, held],
        )
        await assertTakesOver(store, namespace, base, held)
        const { rows } = await admin.query(
          `SELECT indexname FROM pg_indexes WHERE schemaname = 'before_v1' AND indexname <> 'flake_idgen_leases_pkey' ORDER BY 1`,
        )
        assert.deepEqual(
          rows.map((row) => row.indexname),
          ['flake_idgen_leases_free', 'flake_idgen_leases_held'],
        )
      } finally {
        await client.end().catch(() => {})
        admin.release()
      }
    },
  )
})

let etcdServer, etcd

before(async () => {
  if (noServers) return
  etcdServer = await startEtcd()
  etcd = etcdClient(etcdServer.hosts)
}, LIMIT)

after(async () => {
  etcd?.close()
  await etcdServer?.stop()
}, LIMIT)

describe('a fleet of 500 starting at once on 65,536 ids', { skip: noServers }, () => {
  const stores = {
    redis: () => storeFor(redis),
    postgres: () => storeFor(pool),
    mysql: () => storeFor(mysqlPool),
    etcd: () => storeFor(etcd),
  }
  for (const [name, make] of Object.entries(stores)) {
    it(`${name}: every one gets an id of its own`, LIMIT, async () => {
      const store = make()
      const namespace = `fleet-${name}`
      // Held for the whole test however long a loaded machine takes: a lease that expired
      // midway is taken again, before the ids released.
      const wide = (owner) => args(namespace, { last: 65_535, owner, ttl: 600_000 })
      // The namespace's first holder writes its marker (and, in SQL, its pool's rows).
      const first = await store.acquire(wide('first'))
      assert.equal(first.status, 'acquired')
      const results = await Promise.all(Array.from({ length: 500 }, (_, k) => store.acquire(wide(`h${k}`))))
      assert.deepEqual(new Set(results.map((r) => r.status)), new Set(['acquired']))
      const ids = new Set([first.id, ...results.map((r) => r.id)])
      assert.equal(ids.size, 501)
      const listed = await store.list({ namespace })
      assert.equal(listed.records.filter((r) => r.owner !== null).length, 501)
      // Released at once, they are taken again before any id never held.
      await Promise.all(results.map((r, k) => store.release({ namespace, id: r.id, owner: `h${k}`, last: r.floor })))
      const again = await store.acquire(wide('again'))
      assert.ok(
        results.some((r) => r.id === again.id),
        `id ${again.id} was one of those released`,
      )
    })
  }
})

/** The scans of an EXPLAIN (FORMAT JSON) plan: each relation read, and the rows it gave. */
function scans(node, found = []) {
  if (node['Relation Name'] !== undefined)
    found.push({ node: `${node['Node Type']} on ${node.Alias}`, rows: node['Actual Rows'] * node['Actual Loops'] })
  for (const child of node.Plans ?? []) scans(child, found)
  return found
}

// Issue 51: until an ANALYZE has seen a namespace's rows (autovacuum's comes up to a minute after
// they are written, when a fleet is already leasing), the planner took the namespace for a row
// or two, and each acquire read every id of the pool, to sort them or to find the one it took:
// 20 to 30 ms at 65,536 ids, and 500 holders starting at once ran out of their acquireTimeout.
describe('a new namespace on PostgreSQL, before autovacuum has analyzed it', { skip: noServers }, () => {
  it('an acquire reads a row or two of 65,536, on a new table and beside an analyzed namespace', LIMIT, async () => {
    const schema = 'before_analyze'
    await pool.query(`CREATE SCHEMA ${schema}`)
    const client = new pg.Client({ connectionString: pgServer.url, options: `-c search_path=${schema}` })
    await client.connect()
    try {
      const store = storeFor(client)
      await store.time()
      // Autovacuum never comes here: what is checked is the state before it does.
      await client.query('ALTER TABLE flake_idgen_leases SET (autovacuum_enabled = false)')
      for (const namespace of ['first', 'second']) {
        // The namespace's first acquire writes its pool's 65,536 rows.
        const first = await store.acquire(args(namespace, { last: 65_535, owner: 'first', ttl: 600_000 }))
        assert.equal(first.status, 'acquired')
        const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statements.ACQUIRE}`, [
          namespace,
          0,
          65_535,
          META,
          'explained',
          600_000,
          0,
        ])
        const read = scans(rows[0]['QUERY PLAN'][0].Plan)
        const most = read.reduce((a, b) => (b.rows > a.rows ? b : a))
        assert.ok(most.rows < 100, `${namespace}: ${most.node} read ${most.rows} rows: ${JSON.stringify(read)}`)
        // The first namespace's rows analyzed, as autovacuum may have: the second is new to them.
        if (namespace === 'first') await client.query('ANALYZE flake_idgen_leases')
      }
    } finally {
      await client.end()
    }
  })
})

'use strict'
// FlakeId.lease() as an attacker and a new user would try it, against real redis-server,
// PostgreSQL and MariaDB (servers.js): the app's own transaction on a shared pg Client or mysql2
// Pool, a clock that jumps
// after acquire, a replica that stops, a client's keyPrefix or database, a changed ttl, a store
// restarted at the default ttl, garbage replies. Every check is on the ids themselves.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { setTimeout: sleep } = require('node:timers/promises')
const { performance } = require('node:perf_hooks')
const Redis = require('ioredis')
const mysql = require('mysql2/promise')
const pg = require('pg')
const FlakeId = require('../..')
const { noServers, startRedis, startPostgres, startMariadb } = require('../support/servers.js')
const { startEtcd } = require('../support/servers.js')
const { etcdClient } = require('../support/etcd-client.js')
const zookeeper = require('node-zookeeper-client')
const { startZookeeper } = require('../support/servers.js')

// Room for a loaded machine (two CPU hogs beside the run): store calls time out at ttl / 3.
const LIMIT = { timeout: 120_000 }
const TTL = 3000

let redisServer, pgServer, mariadbServer, redis, pool
const closing = []
let count = 0
const namespace = (what) => `${what}-${process.pid}-${count++}`

before(async () => {
  if (noServers) return
  ;[redisServer, pgServer, mariadbServer] = await Promise.all([startRedis(), startPostgres(), startMariadb()])
  redis = new Redis(redisServer.url, { maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
  pool = new pg.Pool({ connectionString: pgServer.url, max: 4 })
  pool.on('error', () => {})
  closing.push(
    () => redis.disconnect(),
    () => pool.end(),
  )
})

after(async () => {
  for (const close of closing.reverse()) await Promise.resolve(close()).catch(() => {})
  await Promise.all([redisServer?.stop(), pgServer?.stop(), mariadbServer?.stop()])
})

/** Takes ids from `generator` every few ms into `into` until `stop()` is called. */
function issue(generator, into) {
  let running = true
  const loop = async () => {
    while (running) {
      for (let i = 0; i < 20; i++) {
        try {
          into.push(generator.nextBigInt())
        } catch (error) {
          if (!/^ERR_FLAKE_(SEQUENCE_OVERFLOW|LEASE_EXPIRED|LEASE_CLOSED|CLOCK_BACKWARDS)$/.test(error.code))
            throw error
          break
        }
      }
      await sleep(3)
    }
  }
  const done = loop()
  return () => {
    running = false
    return done
  }
}

function assertUnique(...lists) {
  const all = lists.flat().map(String)
  assert.equal(new Set(all).size, all.length, `${all.length - new Set(all).size} duplicates`)
  return all.length
}

let etcdServer, etcd

before(async () => {
  if (noServers) return
  etcdServer = await startEtcd()
  etcd = etcdClient(etcdServer.hosts)
})

after(async () => {
  etcd?.close()
  await etcdServer?.stop()
})

let zookeeperServer, zk

before(async () => {
  if (noServers) return
  zookeeperServer = await startZookeeper()
  zk = zookeeper.createClient(zookeeperServer.hosts, { retries: 0 })
  const connected = new Promise((resolve) => zk.once('connected', resolve))
  zk.connect()
  await connected
})

after(async () => {
  zk?.close()
  await zookeeperServer?.stop()
})

/** Deletes namespace `ns`'s znodes (its marker, records and holders) at once, as by hand. */
async function deleteZnodes(ns) {
  const children = (node) =>
    new Promise((resolve, reject) =>
      zk.getChildren(node, (error, names) =>
        error && error.name !== 'NO_NODE' ? reject(error) : resolve(names ?? []),
      ),
    )
  const name = `n${encodeURIComponent(ns)}`
  for (let tries = 1; ; tries++) {
    const nodes = []
    for (const parent of [`/flake-idgen/namespaces/${name}`, `/flake-idgen/held/${name}`]) {
      nodes.push(...(await children(parent)).map((child) => `${parent}/${child}`), parent)
    }
    const error = await new Promise((resolve) =>
      nodes.reduce((all, node) => all.remove(node), zk.transaction()).commit(resolve),
    )
    // A holder wrote between the listing and the multi: again.
    if (!error) return
    if (tries === 20) throw error
  }
}

describe('leases on a store shared with the app', { skip: noServers }, () => {
  it('a pg Client in the app’s BEGIN … ROLLBACK beside a Pool holder: no duplicate', LIMIT, async () => {
    const client = new pg.Client({ connectionString: pgServer.url })
    client.on('error', () => {})
    await client.connect()
    closing.push(() => client.end())
    const shared = { namespace: namespace('pg-tx'), ids: [0, 0], ttl: TTL, maxClockSkewMs: 200 }
    const first = await FlakeId.lease({ ...shared, store: client })
    const a = []
    const stopA = issue(first, a)
    // The app keeps a transaction open nearly all the time: the lease's statements queue behind
    // its BEGIN and run inside, and its ROLLBACK undoes them.
    let app = true
    const appLoop = (async () => {
      while (app) {
        await client.query('BEGIN')
        await sleep(300)
        await client.query('ROLLBACK')
      }
    })()
    const second = await FlakeId.lease({ ...shared, store: pool, acquireTimeout: 30_000 })
    const b = []
    const stopB = issue(second, b)
    await sleep(TTL)
    await Promise.all([stopA(), stopB()])
    app = false
    await appLoop
    assert.ok(b.length > 0)
    assertUnique(a, b)
    await Promise.all([first.close(), second.close()])
  })

  it(
    'a mysql2 Pool the app runs its own transactions on: renewals go on, its ROLLBACK undoes its own',
    LIMIT,
    async () => {
      const shared = mysql.createPool({ uri: mariadbServer.url, connectionLimit: 3 })
      const other = mysql.createPool({ uri: mariadbServer.url, connectionLimit: 2 })
      closing.push(
        () => shared.end(),
        () => other.end(),
      )
      await shared.query('CREATE TABLE IF NOT EXISTS app_rows (n INT) ENGINE=InnoDB')
      const lease = { namespace: namespace('mysql-tx'), ids: [0, 0], ttl: TTL, maxClockSkewMs: 200 }
      const lost = []
      const first = await FlakeId.lease({ ...lease, store: shared, onLost: (error) => lost.push(error) })
      const a = []
      const stopA = issue(first, a)
      // Two of the pool's three connections are nearly always inside a transaction of the app's,
      // which writes a row and rolls it back: the lease's renewals queue for the third, and never
      // run inside the app's transactions (a START TRANSACTION there would commit the app's row).
      let app = true
      const appLoop = async () => {
        while (app) {
          const connection = await shared.getConnection()
          try {
            await connection.query('START TRANSACTION')
            await connection.query('INSERT INTO app_rows VALUES (1)')
            await sleep(300)
            await connection.query('ROLLBACK')
          } finally {
            connection.release()
          }
        }
      }
      const apps = [appLoop(), appLoop()]
      const b = []
      try {
        // Renewed all along: the second holder waits, then takes the id once the first hands it over.
        const waiting = FlakeId.lease({ ...lease, store: other, acquireTimeout: 30_000 })
        await sleep(2 * TTL)
        const before = a.length
        await sleep(TTL / 2)
        assert.ok(a.length > before, 'the first holder still issues after two ttls')
        assert.deepEqual(lost, [])
        await stopA()
        await first.close()
        const second = await waiting
        const stopB = issue(second, b)
        await sleep(TTL / 2)
        await stopB()
        await second.close()
      } finally {
        app = false
        await Promise.all([stopA(), ...apps])
      }
      assert.ok(b.length > 0)
      assertUnique(a, b)
      assert.ok(
        b.every((id) => id > a.at(-1)),
        'the second holder starts above the first',
      )
      const [[{ committed }]] = await shared.query('SELECT COUNT(*) AS committed FROM app_rows')
      assert.equal(Number(committed), 0, 'a row of the app’s rolled-back transactions was committed')
    },
  )

  // Each store with a way to lose the namespace: Redis's key deleted, MySQL's table truncated.
  const losses = {
    'the namespace key deleted': () => ({
      store: redis,
      lose: (ns) => redis.del(`flake-idgen:{${ns}}`),
    }),
    "the ZooKeeper namespace's znodes deleted": () => ({ store: zk, lose: deleteZnodes }),
    "the etcd namespace's keys deleted": () => ({
      store: etcd,
      lose: (ns) => etcd.delete().prefix(`flake-idgen/${encodeURIComponent(ns)}/`),
    }),
    'a MySQL TRUNCATE': () => {
      const store = mysql.createPool({ uri: mariadbServer.url, connectionLimit: 4 })
      closing.push(() => store.end())
      return { store, lose: () => store.query('TRUNCATE TABLE flake_idgen_leases') }
    },
  }
  for (const [loss, make] of Object.entries(losses)) {
    it(`a clock that jumps 5 s ahead after acquire, then ${loss}: no duplicate`, LIMIT, async () => {
      const { store, lose } = make()
      const shared = { store, namespace: namespace('jump'), ids: [0, 0], ttl: TTL, maxClockSkewMs: 500 }
      let jump = 0
      const lost = []
      const first = await FlakeId.lease({ ...shared, clock: () => Date.now() + jump, onLost: (e) => lost.push(e) })
      const a = []
      const stopA = issue(first, a)
      jump = 5000
      // A renewal runs on the jumped clock before the namespace goes.
      await sleep(TTL / 3 + 500)
      await lose(shared.namespace)
      const second = await FlakeId.lease(shared)
      const b = []
      const stopB = issue(second, b)
      // Long enough for the second holder's clock to reach what the first issued.
      await sleep(5000 + TTL)
      await Promise.all([stopA(), stopB()])
      assert.ok(b.length > 0)
      assertUnique(a, b)
      assert.ok(lost.length >= 1, 'onLost was told')
      await Promise.all([first.close(), second.close()])
    })
  }

  it('a client keyPrefix or database beside a plain client: one pool of ids', LIMIT, async () => {
    for (const options of [{ keyPrefix: 'svc-a:' }, { db: 3 }]) {
      const other = new Redis(redisServer.url, options)
      other.on('error', () => {})
      closing.push(() => other.disconnect())
      const shared = { namespace: namespace('prefix'), ids: [0, 0], ttl: TTL, maxClockSkewMs: 200 }
      const first = await FlakeId.lease({ ...shared, store: other })
      await assert.rejects(FlakeId.lease({ ...shared, store: redis, acquireTimeout: 500 }), {
        code: 'ERR_FLAKE_NO_FREE_ID',
      })
      const a = Array.from({ length: 100 }, () => first.nextBigInt())
      await first.close()
      const second = await FlakeId.lease({ ...shared, store: redis })
      const b = Array.from({ length: 100 }, () => second.nextBigInt())
      assertUnique(a, b)
      assert.ok(b[0] > a[99])
      await second.close()
    }
  })

  it('a changed ttl, skew or epoch once every lease of the old ones is gone: leases again', LIMIT, async () => {
    const mysqlPool = mysql.createPool({ uri: mariadbServer.url, connectionLimit: 4 })
    closing.push(() => mysqlPool.end())
    for (const store of [redis, pool, mysqlPool, etcd, zk]) {
      const shared = { store, namespace: namespace('settings'), ids: [0, 0], ttl: TTL, maxClockSkewMs: 200 }
      const first = await FlakeId.lease(shared)
      const a = Array.from({ length: 50 }, () => first.nextBigInt())
      // Live: refused.
      await assert.rejects(FlakeId.lease({ ...shared, ttl: TTL + 1000 }), { code: 'ERR_FLAKE_LEASE_MISMATCH' })
      await first.close()
      const second = await FlakeId.lease({ ...shared, ttl: TTL + 1000, maxClockSkewMs: 300 })
      const b = Array.from({ length: 50 }, () => second.nextBigInt())
      await second.close()
      // A later epoch makes ids smaller: the next holder starts that much later.
      const third = await FlakeId.lease({ ...shared, epoch: 1500 })
      const c = Array.from({ length: 50 }, () => third.nextBigInt())
      await third.close()
      assertUnique(a, b, c)
      assert.ok(b[0] > a[49] && c[0] > b[49], 'each above the one before')
    }
  })

  it('replicas: 1 with the replica stopped: the app’s commands never wait, one id held', LIMIT, async () => {
    const replica = await startRedis({ replicaOf: redisServer })
    closing.push(() => replica.stop())
    const app = new Redis(redisServer.url)
    app.on('error', () => {})
    closing.push(() => app.disconnect())
    const shared = {
      store: app,
      namespace: namespace('replica'),
      ids: [0, 3],
      ttl: TTL,
      maxClockSkewMs: 200,
      replicas: 1,
    }
    const holder = await FlakeId.lease(shared)
    process.kill(replica.pid, 'SIGSTOP')
    try {
      const waits = []
      const others = [1, 2].map(() => FlakeId.lease({ ...shared, acquireTimeout: TTL }).catch((error) => error))
      const end = performance.now() + 2 * TTL
      let slowest = 0
      while (performance.now() < end) {
        const started = performance.now()
        await app.ping()
        slowest = Math.max(slowest, performance.now() - started)
        waits.push(performance.now() - started)
        await sleep(20)
      }
      for (const other of await Promise.all(others)) assert.equal(other.code, 'ERR_FLAKE_NO_FREE_ID')
      assert.ok(slowest < 200, `a PING took ${Math.round(slowest)} ms`)
      const held = Object.values(await app.hgetall(`flake-idgen:{${shared.namespace}}`))
        .map((raw) => JSON.parse(raw))
        .filter((r) => typeof r.o === 'string' && r.e > Date.now())
      assert.ok(held.length <= 1, `${held.length} ids held`)
    } finally {
      process.kill(replica.pid, 'SIGCONT')
    }
    await holder.close()
  })
})

describe('a Redis restarted without persistence, at the default ttl', { skip: noServers }, () => {
  it('onLost is called in every holder, and each issues again', LIMIT, async () => {
    const server = await startRedis()
    closing.push(() => server.stop())
    const client = new Redis(server.url, { maxRetriesPerRequest: 1 })
    client.on('error', () => {})
    closing.push(() => client.disconnect())
    const lost = [0, 0, 0]
    const ns = namespace('restart')
    const started = performance.now()
    const holders = await Promise.all(
      lost.map((_, k) => FlakeId.lease({ store: client, namespace: ns, onLost: () => lost[k]++ })),
    )
    // Defaults: a new namespace issues within ttl + skew (11 s), with room for load.
    assert.ok(performance.now() - started < 16_000, `${Math.round(performance.now() - started)} ms to the first ids`)
    const before = holders.map((h) => h.nextBigInt())
    await server.restart()
    const deadline = performance.now() + 40_000
    while (lost.some((n) => n === 0) && performance.now() < deadline) await sleep(100)
    assert.deepEqual(lost, [1, 1, 1])
    const after = await Promise.all(holders.map((h) => h.nextAsync()))
    assertUnique(before, after)
    await Promise.all(holders.map((h) => h.close()))
  })
})

describe('garbage from a store', { skip: noServers }, () => {
  const ioredisLike = (reply) => ({ defineCommand() {}, call: async () => reply(), duplicate() {} })
  const pgLike = (rows) => ({ connect() {}, totalCount: 0, query: async () => ({ rows: rows() }) })
  const good = (over = {}) =>
    JSON.stringify({
      status: 'acquired',
      id: 0,
      floor: Date.now() - 10,
      ceiling: Date.now() + 10_000,
      now: Date.now(),
      ...over,
    })

  it('each reply that is not the script’s is an ERR_FLAKE_LEASE_STORE naming it', LIMIT, async () => {
    const cases = [
      ioredisLike(() => 'garbage'),
      ioredisLike(() => null),
      ioredisLike(() => 42),
      ioredisLike(() => 'QUEUED'),
      ioredisLike(() => JSON.stringify({ status: 'acquired', id: 0, now: Date.now() })),
      ioredisLike(() => good({ ceiling: 1e300 })),
      ioredisLike(() => good({ id: 5000 })),
      ioredisLike(() => good({ id: 65536 })),
      ioredisLike(() => good({ now: 'soon' })),
      pgLike(() => null),
      pgLike(() => []),
      pgLike(() => [{ now: 'x', id: 0, floor: 1, ceiling: 2 }]),
    ]
    for (const store of cases) {
      await assert.rejects(FlakeId.lease({ store, namespace: 'garbage', ttl: TTL }), (error) => {
        assert.equal(error.code, 'ERR_FLAKE_LEASE_STORE', error.stack)
        assert.ok(error instanceof Error)
        return true
      })
    }
    // An id of the layout, but not of the pool asked for.
    await assert.rejects(
      FlakeId.lease({ store: ioredisLike(() => good({ id: 5 })), namespace: 'garbage', ids: [0, 3] }),
      {
        code: 'ERR_FLAKE_LEASE_STORE',
        message: /replied generator id 5 to acquire, not one of 0–3/,
      },
    )
    await assert.rejects(FlakeId.lease({ store: redis, namespace: 'a\0b' }), {
      code: 'ERR_FLAKE_INVALID_OPTION',
      message: /without NUL/,
    })
    await assert.rejects(FlakeId.lease({ store: pool, namespace: '\ud800' }), { code: 'ERR_FLAKE_INVALID_OPTION' })
  })

  it('garbage on renewal leaves the generator its finite fence', LIMIT, async () => {
    let replies = 0
    const store = ioredisLike(() => (replies++ === 0 ? good() : 'garbage'))
    const lost = []
    const generator = await FlakeId.lease({
      store,
      namespace: 'garbage',
      ttl: 300,
      maxClockSkewMs: 100,
      onLost: (e) => lost.push(e),
    })
    const { ceiling } = generator.lease
    await sleep(1500)
    assert.ok(Number.isFinite(generator.lease.ceiling) && generator.lease.ceiling === ceiling)
    assert.ok(replies > 2)
    await generator.close().catch(() => {})
  })
})

'use strict'
// The lease part of `npm run bench` (BENCH_ONLY=leases): what one acquire costs each store, in
// the store's own time, side by side with the pool's size, on the real servers the tests start
// (__test__/support/servers.js). Redis runs one script at a time for every client, so its
// script's time is what a fleet waits on: SLOWLOG has it. PostgreSQL's is EXPLAIN ANALYZE's
// planning + execution time of the acquire statement; MariaDB's the sum of its transaction's
// statements in performance_schema (TIMER_WAIT), COMMIT included.
//
// Each case is a namespace every id of which was held before (a fleet that ran a while: a
// record per id, released), with `holders` live leases, then BENCH_LEASE_SAMPLES acquires, each
// released before the next. Then 500 holders lease at once with ttl 5 s (FlakeId.lease), as a
// rolling restart of a fleet does.

const { performance } = require('node:perf_hooks')
const Redis = require('ioredis')
const pg = require('pg')
const mysql = require('mysql2/promise')
const zookeeper = require('node-zookeeper-client')
const FlakeId = require('..')
const { storeFor } = require('../lib/lease/store.js')
const { statements } = require('../lib/lease/postgres.js')
const { startRedis, startPostgres, startMariadb } = require('../__test__/support/servers.js')
const { startEtcd } = require('../__test__/support/servers.js')
const { etcdClient } = require('../__test__/support/etcd-client.js')
const { startZookeeper } = require('../__test__/support/servers.js')
const { quantile } = require('./stats.js')

const SAMPLES = Number(process.env.BENCH_LEASE_SAMPLES || 1000)
if (!Number.isInteger(SAMPLES) || SAMPLES < 10) throw new RangeError('BENCH_LEASE_SAMPLES must be an integer from 10')
// Hazelcast's layout: 16 node bits, 65,536 ids.
const LAYOUT = '41/seq6/node16'
const EPOCH = 1514764800000
const TTL = 5000
const SKEW = 1000
const META = JSON.stringify({ layout: LAYOUT, epoch: EPOCH, ttl: TTL, maxClockSkewMs: SKEW })
const CASES = [
  { ids: 1024, holders: 1000 },
  { ids: 65_536, holders: 1000 },
  { ids: 65_536, holders: 2000 },
]
const AT_ONCE = 500
// BENCH_LEASE_STORES=<names>: some stores only (redis, postgres, mariadb, etcd, zookeeper), comma-separated.
const ONLY_STORES = process.env.BENCH_LEASE_STORES?.split(',')
// Live holders and samples outlast the part: nothing expires while it runs.
const HELD_MS = 3_600_000

const progress = () => process.stderr.isTTY && process.stderr.write('.')

/** A past ceiling for id `id`: every id was held and released within the last minute. */
const pastCeiling = (now, id) => now - 60_000 + (id % 997)

/** One acquire of a namespace of its own: the store's table, indexes and scripts made before timing. */
const warm = (store) =>
  store.acquire({ namespace: 'warm', first: 0, last: 0, owner: 'w', ttl: 1, ahead: 0, meta: META, unknownMs: 0 })

// Each store: how to seed a namespace of `ids` released records, and how to time one acquire.
const STORES = {
  async redis() {
    const server = await startRedis()
    const client = new Redis(server.url)
    await client.call('CONFIG', 'SET', 'slowlog-log-slower-than', '0')
    await client.call('CONFIG', 'SET', 'slowlog-max-len', String(20 * SAMPLES + 100))
    const store = storeFor(client)
    return {
      name: 'Redis',
      how: 'SLOWLOG, script run time',
      client,
      store,
      async seed(namespace, ids, now) {
        const key = `flake-idgen:{${namespace}}`
        await client.hset(key, { meta: META, floor: String(now - 120_000) })
        for (let from = 0; from < ids; from += 4096) {
          const fields = {}
          for (let id = from; id < Math.min(ids, from + 4096); id++) {
            fields[id] = JSON.stringify({ e: 0, c: pastCeiling(now, id) })
          }
          await client.hset(key, fields)
        }
      },
      async time(run) {
        await client.call('SLOWLOG', 'RESET')
        const client_ = await run()
        const log = await client.call('SLOWLOG', 'GET', String(20 * SAMPLES + 100))
        // EVALSHA sha 1 key, then ARGV: the key and acquire's 7 arguments. (Redis 7 logs the
        // script's own commands too: they are within its time.)
        const acquires = log
          .filter(([, , , args]) => /^EVAL(SHA)?$/i.test(args[0]) && args.length === 12)
          .map((entry) => entry[2] / 1000)
        return { store: acquires, client: client_ }
      },
      async close() {
        client.disconnect()
        await server.stop()
      },
    }
  },

  async postgres() {
    const server = await startPostgres()
    const pool = new pg.Pool({ connectionString: server.url, max: 10 })
    pool.on('error', () => {})
    const store = storeFor(pool)
    // Made at once, before any seeding: the table and its indexes.
    await store.time()
    await store.list({ namespace: 'none' })
    await warm(store)
    return {
      name: 'PostgreSQL',
      how: 'EXPLAIN ANALYZE, planning + execution',
      client: pool,
      store,
      async seed(namespace, ids, now) {
        await pool.query(
          `INSERT INTO flake_idgen_leases (namespace, id, owner, expires, ceiling, meta, pool_first, pool_last)
           VALUES ($1, -1, NULL, 0, $2::bigint, $3, 0, $4::integer - 1)`,
          [namespace, now - 120_000, META, ids],
        )
        await pool.query(
          `INSERT INTO flake_idgen_leases (namespace, id, owner, expires, ceiling)
           SELECT $1, g, NULL, 0, $2::bigint - 60000 + g % 997 FROM generate_series(0, $3::integer - 1) AS g`,
          [namespace, now, ids],
        )
        await pool.query('ANALYZE flake_idgen_leases')
      },
      // Each sample's acquire statement once more, explained: the statement the store runs.
      async explain(namespace, ids, owner) {
        const values = [namespace, 0, ids - 1, META, owner, HELD_MS, TTL + SKEW]
        const { rows } = await pool.query(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${statements.ACQUIRE}`, values)
        const [plan] = rows[0]['QUERY PLAN']
        const found = await pool.query(
          'SELECT id FROM flake_idgen_leases WHERE namespace = $1 AND owner = $2 AND owner IS NOT NULL',
          [namespace, owner],
        )
        return { ms: plan['Planning Time'] + plan['Execution Time'], id: found.rows[0]?.id }
      },
      async close() {
        await pool.end()
        await server.stop()
      },
    }
  },

  async mariadb() {
    const server = await startMariadb()
    // One connection: every statement of the store's is on one thread of performance_schema's.
    const pool = mysql.createPool({ uri: server.url, connectionLimit: 1 })
    const fleet = mysql.createPool({ uri: server.url, connectionLimit: 10 })
    server.sql("UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME LIKE 'events_statements%'")
    const store = storeFor(pool)
    await store.list({ namespace: 'none' })
    await warm(store)
    const [[{ thread }]] = await pool.query(
      'SELECT THREAD_ID AS thread FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()',
    )
    /** Each acquire transaction's statements' time, in ms, since the history was last read. */
    const drain = () => {
      const out = server
        .sql(
          `SELECT SQL_TEXT, TIMER_WAIT FROM performance_schema.events_statements_history_long WHERE THREAD_ID = ${thread} ORDER BY EVENT_ID; TRUNCATE TABLE performance_schema.events_statements_history_long`,
        )
        .toString()
      const times = []
      let current = null
      for (const line of out.split('\n').slice(1)) {
        const tab = line.lastIndexOf('\t')
        if (tab < 0) continue
        const [sql, ps] = [line.slice(0, tab), Number(line.slice(tab + 1))]
        if (sql === 'START TRANSACTION') current = { ms: 0, statements: 0 }
        if (current === null) continue
        current.ms += ps / 1e9
        current.statements++
        if (sql === 'COMMIT') {
          // A prepared statement's SQL_TEXT is NULL: an acquire is told from a release (START,
          // one UPDATE, COMMIT) by its marker, pick and take between START and COMMIT.
          if (current.statements >= 5) times.push(current.ms)
          current = null
        }
      }
      return times
    }
    return {
      name: 'MariaDB',
      how: 'performance_schema, the transaction’s statements',
      client: fleet,
      store,
      async seed(namespace, ids, now) {
        await pool.query(
          'INSERT INTO flake_idgen_leases (namespace, id, owner, expires, ceiling, meta, pool_first, pool_last) VALUES (?, -1, NULL, 0, ?, ?, 0, ?)',
          [namespace, now - 120_000, META, ids - 1],
        )
        for (let from = 0; from < ids; from += 2000) {
          const rows = []
          for (let id = from; id < Math.min(ids, from + 2000); id++)
            rows.push([namespace, id, null, 0, pastCeiling(now, id)])
          await pool.query('INSERT INTO flake_idgen_leases (namespace, id, owner, expires, ceiling) VALUES ?', [rows])
        }
        await pool.query('ANALYZE TABLE flake_idgen_leases')
      },
      async time(run) {
        drain()
        const client = []
        const times = []
        // The history holds 10,000 statements: read every 100 samples.
        const samples = await run(() => {
          times.push(...drain())
        }, client)
        times.push(...drain())
        return { store: times, client: samples }
      },
      async close() {
        await pool.end()
        await fleet.end()
        await server.stop()
      },
    }
  },

  // etcd keeps no log of its requests, but its metrics (--metrics extensive, as servers.js starts
  // it) sum each unary gRPC method's handling time: read before and after each acquire, their
  // difference is the acquire's time in etcd, its raft apply and fsync included.
  async etcd() {
    const server = await startEtcd()
    const client = etcdClient(server.hosts)
    const store = storeFor(client)
    const handled = async () => {
      const text = await (await fetch(`${server.hosts}/metrics`)).text()
      let seconds = 0
      for (const [, value] of text.matchAll(
        /^grpc_server_handling_seconds_sum\{[^}]*grpc_type="unary"[^}]*\} (\S+)$/gm,
      ))
        seconds += Number(value)
      return seconds * 1000
    }
    return {
      name: 'etcd',
      how: 'its metrics, handling time',
      targetMs: 5,
      client,
      store,
      async seed(namespace, ids, now) {
        const base = `flake-idgen/${encodeURIComponent(namespace)}/`
        const pad = (n, width) => String(n).padStart(width, '0')
        const marker = JSON.stringify({ meta: META, floor: now - 120_000, shift: 0 })
        await client.put(`${base}marker`).value(marker)
        await client.put(`${base}runs/00000`).value(String(ids - 1))
        // etcd takes 128 operations a transaction: a record and its index entry each.
        for (let from = 0; from < ids; from += 64) {
          const ops = []
          for (let id = from; id < Math.min(ids, from + 64); id++) {
            const c = pastCeiling(now, id)
            const value = Buffer.from(JSON.stringify({ e: 0, c }))
            ops.push({ request_put: { key: Buffer.from(`${base}id/${pad(id, 5)}`), value } })
            ops.push({ request_put: { key: Buffer.from(`${base}free/${pad(c, 16)}/${pad(id, 5)}`), value } })
          }
          await client.kv.txn({ compare: [], success: ops })
        }
      },
      async time(run) {
        const store = []
        const client_ = await run({
          before: handled,
          after: async (before) => store.push((await handled()) - before),
        })
        return { store, client: client_ }
      },
      async close() {
        client.close()
        await server.stop()
      },
    }
  },

  // ZooKeeper sums its requests' times only in whole ms each (`mntr`), too coarse for an acquire
  // of ten requests: one (a round trip of reads, then a multi) is timed by its client.
  async zookeeper() {
    const server = await startZookeeper()
    const client = zookeeper.createClient(server.hosts, { retries: 0 })
    const connected = new Promise((resolve) => client.once('connected', resolve))
    client.connect()
    await connected
    const store = storeFor(client)
    await warm(store)
    /** Runs one multi of `ops` ([method, ...args] of a Transaction). */
    const multi = (ops) =>
      new Promise((resolve, reject) =>
        ops
          .reduce((all, [method, ...args]) => all[method](...args), client.transaction())
          .commit((error) => (error ? reject(error) : resolve())),
      )
    // Each znode written twice, as the store makes it (its versioned writes need a version past 0).
    const made = (path, value) => [
      ['create', path, Buffer.from(JSON.stringify(value))],
      ['setData', path, Buffer.from(JSON.stringify(value)), -1],
    ]
    return {
      name: 'ZooKeeper',
      how: 'client round trip',
      targetMs: 5,
      client,
      store,
      async seed(namespace, ids, now) {
        const marker = `/flake-idgen/namespaces/n${encodeURIComponent(namespace)}`
        await multi([
          ...made(marker, { meta: META, u: 0, d: 0, s: 0, f: now - 120_000 }),
          ...made(`/flake-idgen/held/n${encodeURIComponent(namespace)}`, {}),
        ])
        for (let from = 0; from < ids; from += 1000) {
          const ops = []
          for (let id = from; id < Math.min(ids, from + 1000); id++) {
            ops.push(...made(`${marker}/${id}`, { c: pastCeiling(now, id), r: 1, s: 0 }))
          }
          await multi(ops)
        }
      },
      async time(run) {
        const client_ = await run()
        return { store: client_, client: client_ }
      },
      async close() {
        client.close()
        await server.stop()
      },
    }
  },
}

/** Acquires `count` leases in `namespace`, one after the other; each released at once unless `keep`. */
async function acquires(store, namespace, ids, count, { keep = false, owner = 'm', every, before, after } = {}) {
  const client = []
  for (let k = 0; k < count; k++) {
    // A store's own time, read around the acquire, outside its round trip.
    const mark = await before?.()
    const started = performance.now()
    const answer = await store.acquire({
      namespace,
      first: 0,
      last: ids - 1,
      owner: `${owner}-${k}`,
      ttl: HELD_MS,
      ahead: TTL + SKEW,
      meta: META,
      unknownMs: TTL + SKEW,
    })
    client.push(performance.now() - started)
    await after?.(mark)
    if (answer.status !== 'acquired') throw new Error(`acquire ${k} in ${namespace}: ${JSON.stringify(answer)}`)
    if (!keep) await store.release({ namespace, id: answer.id, owner: `${owner}-${k}`, last: answer.floor })
    if (every && k % 100 === 99) every()
  }
  return client
}

/** 500 holders leasing at once, as FlakeId.lease does with ttl 5 s: how many, and how long to the last. */
async function atOnce(client, namespace) {
  const started = performance.now()
  const results = await Promise.allSettled(
    Array.from({ length: AT_ONCE }, () =>
      FlakeId.lease({ store: client, namespace, layout: 'hazelcast', ttl: TTL, maxClockSkewMs: SKEW }),
    ),
  )
  const ms = performance.now() - started
  const held = results.filter((r) => r.status === 'fulfilled').map((r) => r.value)
  const failures = results.filter((r) => r.status === 'rejected').map((r) => r.reason.message)
  const distinct = new Set(held.map((generator) => generator.id)).size
  await Promise.all(held.map((generator) => generator.close()))
  return { ok: held.length, distinct, ms, failure: failures[0] }
}

/** Every store's cases: rows of the table, and the 500-at-once line. */
async function run() {
  const results = []
  for (const [name, start] of Object.entries(STORES)) {
    if (ONLY_STORES && !ONLY_STORES.includes(name)) continue
    const s = await start()
    try {
      const rows = []
      for (const { ids, holders } of CASES) {
        const namespace = `bench-${ids}-${holders}`
        const now = await s.store.time()
        await s.seed(namespace, ids, now)
        // The first acquire of a namespace an earlier version wrote builds its indexes (Redis).
        const first = performance.now()
        await acquires(s.store, namespace, ids, 1, { keep: true, owner: 'first' })
        const firstMs = performance.now() - first
        await acquires(s.store, namespace, ids, holders - 1, { keep: true, owner: 'live' })
        progress()
        let timed
        if (s.explain) {
          const store = []
          for (let k = 0; k < SAMPLES; k++) {
            const { ms, id } = await s.explain(namespace, ids, `m-${k}`)
            store.push(ms)
            await s.store.release({ namespace, id, owner: `m-${k}`, last: now })
          }
          timed = { store, client: await acquires(s.store, namespace, ids, SAMPLES) }
        } else if (s.name === 'MariaDB') {
          timed = await s.time((every) => acquires(s.store, namespace, ids, SAMPLES, { every }))
        } else {
          timed = await s.time((around) => acquires(s.store, namespace, ids, SAMPLES, around))
        }
        progress()
        rows.push({ ids, holders, firstMs, ...timed })
      }
      const fleet = await atOnce(s.client, `bench-${CASES.at(-1).ids}-${CASES.at(-1).holders}`)
      results.push({ name: s.name, how: s.how, targetMs: s.targetMs ?? 1, rows, fleet })
    } finally {
      await s.close()
    }
  }
  return results
}

const ms = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(3))

/** The part's table (with `printTable`, the bench's), and its targets. */
function print(results, printTable) {
  console.log(
    `\nleases: ${SAMPLES.toLocaleString('en')} acquires per row, each released before the next; the store's time per acquire, and the client's round trip`,
  )
  const rows = [
    [
      'store (how timed)',
      'ids',
      'live holders',
      'store p50 ms',
      'p99',
      'max',
      'p99 × 1,024 ids',
      'client p50 ms',
      'p99',
      'first acquire ms',
    ],
  ]
  const targets = []
  for (const { name, how, targetMs, rows: cases, fleet } of results) {
    const base = quantile(cases[0].store, 0.99)
    for (const row of cases) {
      const p99 = quantile(row.store, 0.99)
      rows.push([
        `${name} (${how})`,
        row.ids.toLocaleString('en'),
        row.holders.toLocaleString('en'),
        ms(quantile(row.store, 0.5)),
        ms(p99),
        ms(Math.max(...row.store)),
        (p99 / base).toFixed(2),
        ms(quantile(row.client, 0.5)),
        ms(quantile(row.client, 0.99)),
        ms(row.firstMs),
      ])
    }
    const last = cases.at(-1)
    const p99 = quantile(last.store, 0.99)
    targets.push([
      `${name}: store p99 per acquire ≤ ${targetMs} ms at 65,536 ids, 2,000 holders`,
      `${ms(p99)} ms`,
      p99 <= targetMs,
    ])
    targets.push([`${name}: that p99 ≤ 2 × its p99 at 1,024 ids`, `${(p99 / base).toFixed(2)} ×`, p99 <= 2 * base])
    const all = fleet.ok === AT_ONCE && fleet.distinct === AT_ONCE
    targets.push([
      `${name}: ${AT_ONCE} holders leasing at once, ttl 5 s, all succeed`,
      `${fleet.ok}/${AT_ONCE} (${fleet.distinct} ids), the last after ${Math.round(fleet.ms)} ms${fleet.failure ? `; ${fleet.failure}` : ''}`,
      all,
    ])
  }
  printTable(rows)
  console.log()
  for (const [what, value, met] of targets) console.log(`target: ${what}: ${value} ${met ? 'met' : 'MISSED'}`)
}

module.exports = { run, print }

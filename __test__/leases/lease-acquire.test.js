'use strict'
// FlakeId.lease() against stores that are slow or busy, on real redis-server, PostgreSQL and
// MariaDB (servers.js): a store call that times out is tried again within acquireTimeout, and
// what the timed-out attempt took is given back; a fleet of 500 starting at once on one client
// each gets an id, at ttl 5 s within the default acquireTimeout (the ttl). Otherwise what is
// checked is the store's records and the ids, never how long it took.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { setTimeout: sleep } = require('node:timers/promises')
const Redis = require('ioredis')
const mysql = require('mysql2/promise')
const pg = require('pg')
const FlakeId = require('../..')
const { noServers, startRedis, startPostgres, startMariadb } = require('../support/servers.js')
const { storeFor } = require('../../lib/lease/store.js')

const LIMIT = { timeout: 300_000 }
// A store call times out at ttl / 3: 667 ms.
const TTL = 2000

let servers
const clients = {}
const closing = []
let count = 0
const namespace = (what) => `${what}-${process.pid}-${count++}`

before(async () => {
  if (noServers) return
  const [redis, postgres, mariadb] = await Promise.all([startRedis(), startPostgres(), startMariadb()])
  servers = { redis, postgres, mariadb }
  clients.redis = new Redis(redis.url)
  clients.redis.on('error', () => {})
  clients.postgres = new pg.Pool({ connectionString: postgres.url, max: 10 })
  clients.postgres.on('error', () => {})
  clients.mariadb = mysql.createPool({ uri: mariadb.url, connectionLimit: 10 })
  closing.push(
    () => clients.redis.disconnect(),
    () => clients.postgres.end(),
    () => clients.mariadb.end(),
  )
})

after(async () => {
  for (const close of closing) await Promise.resolve(close()).catch(() => {})
  await Promise.all(Object.values(servers ?? {}).map((server) => server.stop()))
})

/** The records of `ns` whose lease is live: an owner, an expiry to come. */
async function held(client, ns) {
  const { now, records } = await storeFor(client).list({ namespace: ns })
  return records.filter((r) => r.owner !== null && r.expires > now)
}

const STORES = ['redis', 'postgres', 'mariadb']

/** The fields of /proc/`path`/stat after the command's closing parenthesis: state, then the parent's pid. */
function stat(path) {
  const text = fs.readFileSync(`/proc/${path}/stat`, 'utf8')
  return text.slice(text.lastIndexOf(')') + 2).split(' ')
}

/**
 * Sends `signal` to the server `name` and its children: PostgreSQL's backends, which run the
 * statements, are each in a session of their own, outside the postmaster's process group.
 * Returns their pids.
 */
function signalServer(name, signal) {
  const root = servers[name].pid
  const pids = [root]
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (Number(stat(entry)[1]) === root) pids.push(Number(entry))
    } catch {}
  }
  for (const pid of pids) process.kill(pid, signal)
  return pids
}

/** `pid`'s threads, each as "tid:state"; none once it has exited. */
function threadStates(pid) {
  const states = []
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        states.push(`${tid}:${stat(`${pid}/task/${tid}`)[0]}`)
      } catch {}
    }
  } catch {}
  return states
}

/**
 * Resolves once every thread of `pids` is stopped (state T) or has exited: a signal is
 * delivered to each thread when it next runs, which on a loaded machine is not at once. Rejects, naming the states, if that takes 10 s.
 */
async function untilStopped(pids) {
  let states
  for (let waited = 0; waited < 10_000; waited += 10) {
    states = pids.flatMap(threadStates)
    // Z and X: exited, and not reaped by a parent that is stopped itself.
    if (states.every((s) => /:[TtZX]$/.test(s))) return states
    await sleep(10)
  }
  throw new Error(`the server did not stop within 10 s: threads ${states.join(' ')}`)
}

describe('a fleet of 500 leasing at once from one client', { skip: noServers }, () => {
  for (const name of STORES) {
    it(`${name}: all 500 lease an id of their own on a fresh pool of 65,536 ids at ttl 2 s`, LIMIT, async () => {
      const ns = namespace(`fleet-${name}`)
      let closes
      const generators = await Promise.all(
        Array.from({ length: 500 }, () =>
          // Generous for a loaded 2-core machine: 500 acquires go through 4 at a time.
          FlakeId.lease({
            store: clients[name],
            namespace: ns,
            layout: 'hazelcast',
            ttl: TTL,
            acquireTimeout: 240_000,
          }),
        ),
      )
      try {
        const ids = new Set(generators.map((g) => g.lease.id))
        assert.equal(ids.size, 500)
        // Nothing else is held: no attempt that timed out kept its id.
        const live = await held(clients[name], ns)
        assert.deepEqual(
          live.map((r) => r.id).sort((a, b) => a - b),
          [...ids].sort((a, b) => a - b),
        )
        // Async: 500 leases at ttl 2 s renew 750 times a second, and on a machine loaded enough
        // some renewals come after their ceiling, where a sync call throws the lease expired
        // (as designed); an async one waits for the renewal, and may still be refused by a store
        // too slow to answer (a coded lease error, never an id). Every id issued is distinct.
        const outcomes = await Promise.allSettled(generators.map(async (g) => (await g.nextAsync()).readBigUInt64BE(0)))
        const issued = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value)
        for (const { reason } of outcomes.filter((o) => o.status === 'rejected'))
          assert.match(String(reason?.code), /^ERR_FLAKE_LEASE_/, String(reason))
        assert.ok(issued.length > 0, 'no lease issued an id')
        assert.equal(new Set(issued).size, issued.length)
      } finally {
        closes = await Promise.allSettled(generators.map((g) => g.close()))
      }
      // 500 releases at once: on a loaded machine some take longer than a store call may (ttl / 3),
      // and close() says so; those leases end at their ttl instead. Nothing else may fail.
      for (const { reason } of closes.filter((o) => o.status === 'rejected'))
        assert.equal(reason?.code, 'ERR_FLAKE_LEASE_STORE', String(reason))
    })
  }
})

/** Each failure of `outcomes` (Promise.allSettled's) as "code: message", with how many had it. */
function failures(outcomes) {
  const counted = {}
  for (const { reason } of outcomes.filter((o) => o.status === 'rejected')) {
    const why = `${reason?.code}: ${reason?.message}`
    counted[why] = (counted[why] ?? 0) + 1
  }
  return counted
}

// Issue 51: what fleets.md promises ("500 at once"), with no acquireTimeout given: it is the
// ttl, 5 s, for the 500, which go through 4 at a time (gate.js). Each new namespace waits
// ttl + skew before its first id: not counted, the acquires are done by then. MariaDB is not
// held to it: beside two CPU-bound processes its last acquire came after 5 s in one run of
// three, as fleets.md says.
describe('500 leasing at once at ttl 5 s, within the default acquireTimeout', { skip: noServers }, () => {
  const fleet = async (store, ns) => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 500 }, () => FlakeId.lease({ store, namespace: ns, layout: 'hazelcast', ttl: 5000 })),
    )
    const generators = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value)
    let closes
    try {
      assert.deepEqual(failures(outcomes), {}, `${generators.length} of 500 leased`)
      const ids = new Set(generators.map((g) => g.lease.id))
      assert.equal(ids.size, 500)
      const live = await held(store, ns)
      assert.deepEqual(
        live.map((r) => r.id).sort((a, b) => a - b),
        [...ids].sort((a, b) => a - b),
      )
    } finally {
      closes = await Promise.allSettled(generators.map((g) => g.close()))
    }
    // As in the fleet above: a release slower than a store call leaves its lease to expire.
    for (const { reason } of closes.filter((o) => o.status === 'rejected'))
      assert.equal(reason?.code, 'ERR_FLAKE_LEASE_STORE', String(reason))
  }

  it('postgres: on a new table, then on a second new namespace, every one leases an id of its own', LIMIT, async () => {
    // A table of its own (its schema first on the search path), as a new deployment has: its
    // rows are written as the fleet starts, before autovacuum's ANALYZE sees them (it comes up
    // to a minute later; here never, so that it cannot come early by chance). Made by a client
    // of its own, so that the fleet's checks the table itself.
    const schema = namespace('fleet_ttl5').replaceAll('-', '_')
    const options = `-c search_path=${schema}`
    await clients.postgres.query(`CREATE SCHEMA ${schema}`)
    const maker = new pg.Client({ connectionString: servers.postgres.url, options })
    await maker.connect()
    try {
      await storeFor(maker).time()
      await maker.query('ALTER TABLE flake_idgen_leases SET (autovacuum_enabled = false)')
    } finally {
      await maker.end()
    }
    const pool = new pg.Pool({ connectionString: servers.postgres.url, options, max: 10 })
    pool.on('error', () => {})
    closing.push(() => pool.end())
    await fleet(pool, namespace('first'))
    // Analyzed, as autovacuum has once that namespace has leased a while: the second is new to it.
    await pool.query('ANALYZE flake_idgen_leases')
    await fleet(pool, namespace('second'))
  })

  it('redis: every one leases an id of its own', LIMIT, async () => {
    await fleet(clients.redis, namespace('fleet-ttl5'))
  })
})

describe('a store stopped (SIGSTOP) longer than a store call during acquire', { skip: noServers }, () => {
  for (const name of STORES) {
    it(`${name}: the lease is had within acquireTimeout, and only its id is held`, LIMIT, async () => {
      const ns = namespace(`stopped-${name}`)
      const options = { store: clients[name], namespace: ns, ids: [0, 7], ttl: TTL }
      // The namespace exists and its pool is written: the stalled call is the acquire itself.
      const first = await FlakeId.lease(options)
      const before = first.nextBigInt()
      await first.close()
      const waits = []
      // What the message of a failure says: when the lease was had, and the server continued.
      let leasing, states, leasedAt, continuedAt
      const started = performance.now()
      try {
        states = await untilStopped(signalServer(name, 'SIGSTOP'))
        leasing = FlakeId.lease({ ...options, acquireTimeout: 60_000, onWait: (_ms, why) => waits.push(why) })
        // Stopped until an attempt timed out with its statement sent (a call's 667 ms): not for
        // a fixed time, which a loaded machine spends before the first attempt is even sent.
        leasing.then(
          () => (leasedAt = Math.round(performance.now() - started)),
          () => {},
        )
        for (let waited = 0; !waits.includes('store') && waited < 30_000; waited += 50) await sleep(50)
      } finally {
        signalServer(name, 'SIGCONT')
        continuedAt = Math.round(performance.now() - started)
      }
      const generator = await leasing
      try {
        assert.ok(
          waits.includes('store'),
          `waits: [${waits}]; leased ${leasedAt} ms after the stop, continued at ${continuedAt} ms; threads stopped: ${states}`,
        )
        assert.ok(generator.nextBigInt() > before)
        // An id taken by the attempt that timed out is released (owner none), not left to
        // expire (its owner kept): waited for, since a loaded machine may answer late.
        let owned
        for (let tries = 0; tries < 100; tries++) {
          const { records } = await storeFor(clients[name]).list({ namespace: ns })
          owned = records.filter((r) => r.owner !== null).map((r) => r.id)
          if (owned.length === 1) break
          await sleep(200)
        }
        assert.deepEqual(owned, [generator.lease.id])
      } finally {
        await generator.close()
      }
    })
  }
})

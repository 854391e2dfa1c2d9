'use strict'
// Leases in MySQL 8.0+ or MariaDB 10.6+ (InnoDB, SKIP LOCKED), through the user's mysql2 pool:
// one row per (namespace, id) in flake_idgen_leases, and the namespace's marker as the row with
// id -1, as in PostgreSQL (postgres.js). Rows are never deleted; only leases expire.
//
// MySQL has no statement that picks a row, writes it and says which: each operation is a
// transaction of its own, on a connection of its own taken from the pool and handed back after
// its COMMIT, so it never runs inside a transaction of the app's (and a START TRANSACTION never
// commits one), and a ceiling counts only once committed. Every time is the server's (UTC, so
// that no session time zone shifts it), and every ceiling the server's time plus `ahead`. Each
// statement reads one index, from its start: O(log n) in the pool.

const { checkResult } = require('./replies.js')
const { changeable } = require('./settings.js')
const { invalidOption } = require('../errors.js')

const TABLE = 'flake_idgen_leases'

// Binary strings: compared byte for byte, where a text collation would make 'Orders',
// 'orders' and 'orders ' one namespace. `held` is kept by the server, for the indexes.
const CREATE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  namespace VARBINARY(800) NOT NULL,
  id INT NOT NULL,
  owner VARBINARY(1024) NULL,
  expires BIGINT NOT NULL,
  ceiling BIGINT NOT NULL,
  meta BLOB NULL,
  pool_first INT NULL,
  pool_last INT NULL,
  held TINYINT AS (owner IS NOT NULL) STORED,
  PRIMARY KEY (namespace, id),
  KEY ${TABLE}_free (namespace, held, ceiling, id),
  KEY ${TABLE}_held (namespace, held, expires)
) ENGINE=InnoDB`

const NOW = `(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)`
const MARKER = `SELECT ${NOW} AS now, meta, ceiling, pool_first, pool_last FROM ${TABLE} WHERE namespace = ? AND id = -1`

// The free row of lowest ceiling (then id), and the lease that expired first: each the first
// entry of its index that no concurrent acquire has locked; of the two, the lower ceiling.
const FREE = `SELECT id, ceiling FROM ${TABLE} WHERE namespace = ? AND held = 0 AND id BETWEEN ? AND ?
ORDER BY ceiling, id LIMIT 1 FOR UPDATE SKIP LOCKED`
const EXPIRED = `SELECT id, ceiling FROM ${TABLE} WHERE namespace = ? AND held = 1 AND expires <= ? AND id BETWEEN ? AND ?
ORDER BY expires LIMIT 1 FOR UPDATE SKIP LOCKED`
const SOONEST = `SELECT MIN(expires) AS soonest FROM ${TABLE} WHERE namespace = ? AND held = 1 AND expires > ? AND id BETWEEN ? AND ?`
const TAKE = `UPDATE ${TABLE} SET owner = ?, expires = ?, ceiling = ? WHERE namespace = ? AND id = ?`

const LIST = `SELECT id, owner, expires, ceiling, meta FROM ${TABLE}
WHERE namespace = ? AND (id = -1 OR expires >= 0) ORDER BY id`

// Rows of a pool written per statement.
const CHUNK = 2000
// Acquire retries when a concurrent prepare, a settings change, a TRUNCATE or a deadlock came
// between its statements.
const ATTEMPTS = 5
// InnoDB's answers that the transaction was rolled back and may be run again.
const RETRY = new Set([1213, 1205])
const NO_TABLE = 1146

// Every value the way this file reads it, whatever the user's pool does by default: rows as
// objects, BIGINTs as exact strings, `?` placeholders.
const OPTIONS = {
  rowsAsArray: false,
  nestTables: false,
  typeCast: true,
  supportBigNumbers: true,
  bigNumberStrings: true,
  namedPlaceholders: false,
}

const num = (value) => (value === null || value === undefined ? null : Number(value))
const text = (value) => (value === null || value === undefined ? null : Buffer.from(value).toString())

// `execute` runs a statement prepared once per connection (mysql2 keeps them): an acquire's
// statements then cost the server no parse, a third or so of their time. `query` is for the
// rest: transaction control, and statements of a shape that is rarely run twice.

/** One connection of the pool, as promises: each method resolves with rows or the OK header. */
function promiseConnection(connection) {
  return {
    query: async (sql, values) => (await connection.query({ sql, values, ...OPTIONS }))[0],
    execute: async (sql, values) => (await connection.execute({ sql, values, ...OPTIONS }))[0],
    release: () => connection.release(),
    destroy: () => connection.destroy(),
  }
}

function callbackConnection(connection) {
  const promised = (method) => (sql, values) =>
    new Promise((resolve, reject) => {
      connection[method]({ sql, values, ...OPTIONS }, (error, result) => (error ? reject(error) : resolve(result)))
    })
  return {
    query: promised('query'),
    execute: promised('execute'),
    release: () => connection.release(),
    destroy: () => connection.destroy(),
  }
}

/**
 * A MySQL store over the user's mysql2 pool.
 * @param {() => Promise<{ query: Function, release: Function, destroy: Function }>} connect a
 *   connection of the pool's, its own until released
 * @returns {import('./stores.js').Store}
 */
function mysqlStore(connect) {
  let ready = null

  // Once per adapter; InnoDB takes two CREATE TABLE IF NOT EXISTS at once.
  function table(connection) {
    if (!ready) {
      ready = connection.query(CREATE).catch((error) => {
        ready = null
        throw error
      })
    }
    return ready
  }

  /** `work(connection)` in a transaction of its own, rolled back if it throws; its result once committed. */
  async function transaction(work, create = true) {
    const connection = await connect()
    let settled = false
    try {
      if (create) await table(connection)
      await connection.query('START TRANSACTION')
      const result = await work(connection)
      await connection.query('COMMIT')
      settled = true
      return result
    } catch (error) {
      if (!settled) {
        try {
          await connection.query('ROLLBACK')
          settled = true
        } catch {}
      }
      throw error
    } finally {
      // A connection left mid-transaction must not go back to the pool for the app.
      if (settled) connection.release()
      else connection.destroy()
    }
  }

  /** The marker's row, with the server's time; `lock` ' FOR UPDATE' or ' LOCK IN SHARE MODE'. */
  async function marker(connection, namespace, lock) {
    const rows = await connection.execute(`${MARKER}${lock}`, [namespace])
    if (rows.length > 0) return rows[0]
    const [{ now }] = await connection.query(`SELECT ${NOW} AS now`)
    return { now, meta: null }
  }

  // The marker, if there is none, then a row for each id from the lowest to the highest of the
  // pool's and [first, last] that has none, as postgres.js's PREPARE does.
  async function prepare({ namespace, first, last, meta, unknownMs }) {
    await transaction(async (connection) => {
      await connection.query(
        `INSERT IGNORE INTO ${TABLE} (namespace, id, owner, expires, ceiling, meta) VALUES (?, -1, NULL, 0, ${NOW} + ?, ?)`,
        [namespace, unknownMs, meta],
      )
    })
    await transaction(async (connection) => {
      const m = await marker(connection, namespace, ' FOR UPDATE')
      if (m.meta === null || text(m.meta) !== meta) return
      const lo = Math.min(num(m.pool_first) ?? first, first)
      const hi = Math.max(num(m.pool_last) ?? last, last)
      if (num(m.pool_first) === lo && num(m.pool_last) === hi) return
      for (let from = lo; from <= hi; from += CHUNK) {
        const to = Math.min(hi, from + CHUNK - 1)
        const values = []
        for (let id = from; id <= to; id++) values.push(namespace, id, m.ceiling)
        const rows = Array.from({ length: to - from + 1 }, () => '(?, ?, NULL, -1, ?)').join(', ')
        await connection.query(
          `INSERT IGNORE INTO ${TABLE} (namespace, id, owner, expires, ceiling) VALUES ${rows}`,
          values,
        )
      }
      await connection.query(`UPDATE ${TABLE} SET pool_first = ?, pool_last = ? WHERE namespace = ? AND id = -1`, [
        lo,
        hi,
        namespace,
      ])
    })
  }

  // The namespace's settings, changed to `meta` once no lease is live, every ceiling shifted by
  // the change of epoch (see postgres.js's CHANGE). The marker locked first: acquires and
  // renewals wait on it.
  function change(namespace, meta) {
    return transaction(async (connection) => {
      const m = await marker(connection, namespace, ' FOR UPDATE')
      const old = text(m.meta)
      if (old === meta) return true
      if (old === null || !changeable(old, meta)) return false
      const live = await connection.query(
        `SELECT 1 FROM ${TABLE} WHERE namespace = ? AND held = 1 AND expires > ? LIMIT 1 LOCK IN SHARE MODE`,
        [namespace, m.now],
      )
      if (live.length > 0) return false
      const shift = JSON.parse(meta).epoch - JSON.parse(old).epoch
      await connection.query(`UPDATE ${TABLE} SET ceiling = ceiling + ? WHERE namespace = ?`, [shift, namespace])
      await connection.query(`UPDATE ${TABLE} SET meta = ? WHERE namespace = ? AND id = -1`, [meta, namespace])
      return true
    })
  }

  /** One acquire: the answer, or 'prepare' or 'change' for what must come first. */
  function attempt({ namespace, first, last, owner, ttl, ahead, meta }) {
    return transaction(async (connection) => {
      const m = await marker(connection, namespace, ' LOCK IN SHARE MODE')
      const now = num(m.now)
      if (m.meta === null) return { next: 'prepare', now }
      const current = text(m.meta)
      if (current !== meta) return { next: 'change', meta: current }
      const range = [first, last]
      const [free] = await connection.execute(FREE, [namespace, ...range])
      // A free id whose ceiling has passed costs its holder no wait: no expired lease does better.
      const [expired] =
        free && num(free.ceiling) < now ? [] : await connection.execute(EXPIRED, [namespace, now, ...range])
      const [pick] = [free, expired]
        .filter(Boolean)
        .map((row) => ({ id: Number(row.id), ceiling: num(row.ceiling) }))
        .sort((a, b) => a.ceiling - b.ceiling || a.id - b.id)
      const covered = num(m.pool_first) !== null && num(m.pool_first) <= first && num(m.pool_last) >= last
      if (pick === undefined) {
        if (!covered) return { next: 'prepare', now }
        const [{ soonest }] = await connection.query(SOONEST, [namespace, now, ...range])
        return { status: 'exhausted', now, retryAt: soonest === null ? now : num(soonest) }
      }
      const ceiling = Math.max(pick.ceiling, now + ahead)
      await connection.execute(TAKE, [owner, now + ttl, ceiling, namespace, pick.id])
      return { status: 'acquired', id: pick.id, floor: pick.ceiling, ceiling, now }
    })
  }

  return {
    kind: 'mysql2',
    async time() {
      const connection = await connect()
      try {
        const [{ now }] = await connection.query(`SELECT ${NOW} AS now`)
        return checkResult('mysql2', 'time', { now: num(now) }).now
      } finally {
        connection.release()
      }
    },
    async acquire(args) {
      let changed = false
      for (let tries = 1; ; tries++) {
        let answer
        try {
          answer = await attempt(args)
          if (answer.next === 'prepare' && tries < ATTEMPTS) {
            await prepare(args)
            continue
          }
        } catch (error) {
          if (RETRY.has(error?.errno) && tries < ATTEMPTS) continue
          throw error
        }
        if (answer.next === 'change') {
          if (!changed && tries < ATTEMPTS && changeable(answer.meta, args.meta)) {
            changed = true
            if (await change(args.namespace, args.meta)) continue
          }
          return checkResult('mysql2', 'acquire', { status: 'mismatch', meta: answer.meta }, answer)
        }
        if (answer.next === 'prepare') answer = { status: 'exhausted', now: answer.now, retryAt: answer.now }
        return checkResult('mysql2', 'acquire', answer)
      }
    },
    async renew({ namespace, id, owner, ttl, ahead, meta }) {
      const answer = await transaction(async (connection) => {
        const m = await marker(connection, namespace, ' LOCK IN SHARE MODE')
        const now = num(m.now)
        if (text(m.meta) !== meta) return { status: 'lost', now }
        const [row] = await connection.execute(
          `SELECT ceiling FROM ${TABLE} WHERE namespace = ? AND id = ? AND id >= 0 AND owner = ? FOR UPDATE`,
          [namespace, id, owner],
        )
        if (row === undefined) return { status: 'lost', now }
        const ceiling = Math.max(num(row.ceiling), now + ahead)
        await connection.execute(`UPDATE ${TABLE} SET expires = ?, ceiling = ? WHERE namespace = ? AND id = ?`, [
          now + ttl,
          ceiling,
          namespace,
          id,
        ])
        return { status: 'renewed', ceiling, now }
      })
      return checkResult('mysql2', 'renew', answer)
    },
    async release({ namespace, id, owner, last }) {
      const { affectedRows } = await transaction((connection) =>
        connection.execute(
          `UPDATE ${TABLE} SET owner = NULL, expires = 0, ceiling = ? WHERE namespace = ? AND id = ? AND id >= 0 AND owner = ?`,
          [last, namespace, id, owner],
        ),
      )
      return { status: affectedRows === 1 ? 'released' : 'lost' }
    },
    async list({ namespace }) {
      // Read only: a monitoring user may lack CREATE, and a listing should not make the table.
      const connection = await connect()
      let rows
      let now
      try {
        ;[{ now }] = await connection.query(`SELECT ${NOW} AS now`)
        try {
          rows = await connection.query(LIST, [namespace])
        } catch (error) {
          if (error?.errno !== NO_TABLE) throw error
          rows = []
        }
      } finally {
        connection.release()
      }
      const result = { now: num(now), meta: null, floor: null, records: [] }
      for (const row of rows) {
        const id = Number(row.id)
        if (id === -1) {
          result.meta = text(row.meta)
          result.floor = num(row.ceiling)
        } else {
          result.records.push({ id, owner: text(row.owner), expires: num(row.expires), ceiling: num(row.ceiling) })
        }
      }
      return result
    },
    async close() {},
  }
}

/** A connection of `pool`, as recognise saw it: the promise API's or the callback API's. */
function connector(pool, api) {
  if (api === 'promise') return async () => promiseConnection(await pool.getConnection())
  return () =>
    new Promise((resolve, reject) => {
      pool.getConnection((error, connection) => (error ? reject(error) : resolve(callbackConnection(connection))))
    })
}

/** The MySQL store over the user's mysql2 `Pool` (`mysql2` or `mysql2/promise`). */
function make(client, { replicas }, recognised) {
  if (replicas > 0) {
    throw invalidOption(
      'replicas',
      '0 with MySQL (use semi-synchronous replication, rpl_semi_sync_master_wait_point = AFTER_SYNC)',
      replicas,
    )
  }
  // A transaction of the lease's on the app's own connection would first commit the app's.
  if (recognised === 'connection') {
    throw invalidOption(
      'store',
      'a mysql2 Pool (createPool), not one Connection: the lease runs transactions of its own',
      client,
    )
  }
  return mysqlStore(connector(client, recognised))
}

// The user's client is recognised by its shape, as Redis's is (redis.js). A mysql2 Connection
// also has pg's query() and connect(): this row comes before PostgreSQL's.
function recognise(client) {
  const has = (name) => typeof client[name] === 'function'
  if (!has('query') || !has('execute')) return undefined
  if (has('getConnection')) return typeof client.pool?.getConnection === 'function' ? 'promise' : 'callback'
  return has('beginTransaction') ? 'connection' : undefined
}

// For `flake-idgen lease list`: a pool of one connection, connected before the listing.
const mysql2 = {
  name: 'mysql2',
  connect(lib, url, timeoutMs) {
    const pool = lib.createPool({ uri: url, connectTimeout: timeoutMs, connectionLimit: 1, maxIdle: 0 })
    const end = () => new Promise((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve())))
    const client = Object.assign(pool, {
      connect: () =>
        new Promise((resolve, reject) => {
          pool.getConnection((error, connection) => {
            if (error) return reject(error)
            connection.release()
            resolve()
          })
        }),
    })
    return { client, close: end }
  },
}

/** MySQL's row of the lease stores (stores.js). */
module.exports = {
  name: 'mysql',
  describes: 'a mysql2 Pool',
  recognise,
  make,
  schemes: ['mysql:', 'mariadb:'],
  clients: [mysql2],
}

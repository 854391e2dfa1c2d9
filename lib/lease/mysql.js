'use strict'
// Leases in MySQL 8.0+ or MariaDB 10.6+ (InnoDB, SKIP LOCKED), through the user's mysql2 pool:
// one row per (namespace, id) in flake_idgen_leases, and the namespace's marker as the row with
// id -1, as in PostgreSQL (postgres.js). Rows are never deleted; only leases expire.
//
// MySQL has no statement that picks a row, writes it and says which: each operation is a
// transaction of its own, on a connection of its own taken from the pool and handed back after
// its COMMIT, so it never runs inside a transaction of the app's (and a START TRANSACTION never
// commits one), and a ceiling counts only once committed, as read back from its row after the
// write (a table that stores another value refuses the lease, and the transaction rolls back). Every time is the server's (UTC, so
// that no session time zone shifts it), and every ceiling the server's time plus `ahead`. Each
// statement reads one index, from its start: O(log n) in the pool.
//
// Every value goes to the server as a parameter of a statement it prepared (`execute`), never
// into the statement's text: mysql2's client-side escaping assumes backslash escapes, which a
// session with sql_mode NO_BACKSLASH_ESCAPES reads otherwise (a namespace with a quote would
// end its string). The table is checked at first use (schema.js's rules, below): one made by
// hand with a type that cannot hold a value exactly, or without its unique key, is refused.

const { checkResult, schemaError } = require('./replies.js')
const { changeable } = require('./settings.js')
const { invalidOption } = require('../errors/errors.js')

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
// What a write left in the row, read back in its transaction: a ceiling counts as stored.
const STORED = `SELECT owner, expires, ceiling FROM ${TABLE} WHERE namespace = ? AND id = ?`
const SOONEST = `SELECT MIN(expires) AS soonest FROM ${TABLE} WHERE namespace = ? AND held = 1 AND expires > ? AND id BETWEEN ? AND ?`
const TAKE = `UPDATE ${TABLE} SET owner = ?, expires = ?, ceiling = ? WHERE namespace = ? AND id = ?`

// The namespace's marker, and the span of ids its rows cover (prepare).
const INSERT_MARKER = `INSERT IGNORE INTO ${TABLE} (namespace, id, owner, expires, ceiling, meta) VALUES (?, -1, NULL, 0, ${NOW} + ?, ?)`
const SET_POOL = `UPDATE ${TABLE} SET pool_first = ?, pool_last = ? WHERE namespace = ? AND id = -1`
// A change of settings: refused while a lease is live, then every ceiling shifted, then the meta.
const LIVE = `SELECT 1 FROM ${TABLE} WHERE namespace = ? AND held = 1 AND expires > ? LIMIT 1 LOCK IN SHARE MODE`
const SHIFT = `UPDATE ${TABLE} SET ceiling = ceiling + ? WHERE namespace = ?`
const SET_META = `UPDATE ${TABLE} SET meta = ? WHERE namespace = ? AND id = -1`
const RESPELL = `UPDATE ${TABLE} SET meta = ? WHERE namespace = ? AND id = -1 AND meta = ?`
// A renewal locks the row its owner holds, then writes it.
const HELD = `SELECT ceiling FROM ${TABLE} WHERE namespace = ? AND id = ? AND id >= 0 AND owner = ? FOR UPDATE`
const RENEWED = `UPDATE ${TABLE} SET expires = ?, ceiling = ? WHERE namespace = ? AND id = ?`
const RELEASE = `UPDATE ${TABLE} SET owner = NULL, expires = 0, ceiling = ? WHERE namespace = ? AND id = ? AND id >= 0 AND owner = ?`

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
// Renewals and releases retry InnoDB's rollbacks this many times in all, a few ms apart.
const RETRIES = 8

// The table as CREATE makes it, checked once per adapter: what each column must be, and why.
// A narrower or inexact type loses values silently under sql_mode '' (and under INSERT IGNORE
// in any mode), and the holder would fence by a ceiling the table does not hold.
const SIGNED =
  (...types) =>
  (c) =>
    types.includes(c.type) && !/unsigned/i.test(c.full)
const BINARY = (length) => (c) => c.type === 'varbinary' && Number(c.length) >= length
const BLOB = (c) => ['blob', 'mediumblob', 'longblob'].includes(c.type)
const NULLABLE = (rule) => (c) => rule(c) && c.nullable === 'YES'
const COLUMNS = {
  namespace: [BINARY(800), 'VARBINARY(800) or longer'],
  id: [SIGNED('int', 'bigint'), 'INT or BIGINT, signed'],
  owner: [NULLABLE(BINARY(1024)), 'VARBINARY(1024) NULL or longer'],
  expires: [SIGNED('bigint'), 'BIGINT, signed'],
  ceiling: [SIGNED('bigint'), 'BIGINT, signed'],
  meta: [NULLABLE(BLOB), 'BLOB NULL (or MEDIUMBLOB, LONGBLOB)'],
  pool_first: [NULLABLE(SIGNED('int', 'bigint')), 'INT NULL or BIGINT NULL, signed'],
  pool_last: [NULLABLE(SIGNED('int', 'bigint')), 'INT NULL or BIGINT NULL, signed'],
  held: [
    (c) => /generated/i.test(c.extra) && c.expression.toLowerCase().replace(/[`()\s]/g, '') === 'ownerisnotnull',
    'TINYINT AS (owner IS NOT NULL) STORED',
  ],
}
// The unique key first: without it two rows of one id make two holders. The others are what
// each acquire reads instead of the whole pool.
const INDEXES = [
  { columns: ['namespace', 'id'], unique: true, add: 'PRIMARY KEY (namespace, id)' },
  { columns: ['namespace', 'held', 'ceiling', 'id'], add: `KEY ${TABLE}_free (namespace, held, ceiling, id)` },
  { columns: ['namespace', 'held', 'expires'], add: `KEY ${TABLE}_held (namespace, held, expires)` },
]
const TABLE_INFO = `SELECT ENGINE AS engine FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${TABLE}'`
const COLUMN_INFO = `SELECT COLUMN_NAME AS name, DATA_TYPE AS type, COLUMN_TYPE AS full, CHARACTER_MAXIMUM_LENGTH AS length,
  IS_NULLABLE AS nullable, EXTRA AS extra, COALESCE(GENERATION_EXPRESSION, '') AS expression
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${TABLE}'`
const INDEX_INFO = `SELECT INDEX_NAME AS name, NON_UNIQUE AS non_unique, COLUMN_NAME AS col, SUB_PART AS sub_part
FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${TABLE}'
ORDER BY INDEX_NAME, SEQ_IN_INDEX`

const WHERE = `table ${TABLE} (MySQL)`

/** Refuses (ERR_FLAKE_LEASE_SCHEMA) a table of other types or keys than CREATE's, naming what differs. */
async function checkSchema(connection) {
  await checkEngine(connection)
  checkColumns(await readColumns(connection))
  checkIndexes(await readIndexes(connection))
}

async function checkEngine(connection) {
  const [info] = await connection.query(TABLE_INFO)
  if (String(info?.engine).toLowerCase() !== 'innodb') {
    throw schemaError(
      'mysql2',
      `${WHERE} uses engine ${info?.engine}, not InnoDB: leases need its transactions and row locks`,
    )
  }
}

/** The table's columns by name, each as COLUMNS' rules read it. */
async function readColumns(connection) {
  const columns = new Map()
  for (const row of await connection.query(COLUMN_INFO)) {
    const c = { ...row, name: text(row.name), type: text(row.type).toLowerCase(), full: text(row.full) }
    c.extra = text(row.extra) ?? ''
    c.expression = text(row.expression) ?? ''
    c.nullable = text(row.nullable)
    columns.set(c.name, c)
  }
  return columns
}

function checkColumns(columns) {
  for (const [name, [ok, must]] of Object.entries(COLUMNS)) {
    const c = columns.get(name)
    if (c === undefined) throw schemaError('mysql2', `${WHERE} has no column \`${name}\`: it must be ${must}`)
    if (!ok(c)) {
      const is = `${c.full}${c.nullable === 'YES' ? ' NULL' : ' NOT NULL'}${c.expression ? ` AS (${c.expression})` : ''}`
      throw schemaError(
        'mysql2',
        `${WHERE} column \`${name}\` is ${is}, but must be ${must}: a type that cannot hold every value exactly would make the lease fence by a ceiling the table does not hold`,
      )
    }
  }
}

/** The table's indexes by name: whether unique, their columns in order, and whether one is a prefix. */
async function readIndexes(connection) {
  const indexes = new Map()
  for (const row of await connection.query(INDEX_INFO)) {
    const name = text(row.name)
    const index = indexes.get(name) ?? { unique: Number(row.non_unique) === 0, columns: [], prefix: false }
    index.columns.push(text(row.col))
    if (row.sub_part !== null) index.prefix = true
    indexes.set(name, index)
  }
  return indexes
}

function checkIndexes(indexes) {
  for (const { columns: wanted, unique, add } of INDEXES) {
    const same = (index) => index.columns.join() === wanted.join() && !index.prefix
    const found = [...indexes.values()].some((index) =>
      unique ? index.unique && same(index) : index.columns.slice(0, wanted.length).join() === wanted.join(),
    )
    if (!found) {
      throw schemaError(
        'mysql2',
        `${WHERE} has no ${unique ? 'unique key' : 'index'} on (${wanted.join(', ')})${unique ? ', whole columns' : ''}: it must have ${add}`,
      )
    }
  }
}

/** The backslash escapes mysql2 writes into a statement's text (its `escape`). */
const ESCAPES = {
  '\0': '\\0',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\x1a': '\\Z',
  '"': '\\"',
  "'": "\\'",
  '\\': '\\\\',
}
/**
 * `meta` as an earlier version of this file wrote it in a session with NO_BACKSLASH_ESCAPES:
 * every escape kept as text. No JSON reads so (a backslash outside a string), and no lease was
 * ever taken under it (each was refused as another meta): it is this meta, spelled wrong.
 */
const misescaped = (meta) => Array.from(meta, (c) => ESCAPES[c] ?? c).join('')

/** Runs `work` again when InnoDB rolled it back (a deadlock, a lock wait timeout), up to RETRIES times. */
async function retried(work) {
  for (let tries = 1; ; tries++) {
    try {
      return await work()
    } catch (error) {
      if (!RETRY.has(error?.errno) || tries >= RETRIES) throw error
      // Apart, so that the transactions that deadlocked do not meet again at once.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * tries))
    }
  }
}

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
// statements then cost the server no parse, a third or so of their time, and its values are
// parameters. `query` is for statements that carry no value: transaction control, the clock,
// CREATE and the schema's checks.

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

/** A connection of `pool`, as recognise saw it: the promise API's or the callback API's. */
function connector(pool, api) {
  if (api === 'promise') return async () => promiseConnection(await pool.getConnection())
  return () =>
    new Promise((resolve, reject) => {
      pool.getConnection((error, connection) => (error ? reject(error) : resolve(callbackConnection(connection))))
    })
}

// The pools whose table was made and checked (or is being), each with that promise.
const made = new WeakMap()

/**
 * `pool`'s table, made and checked on `connection`: once per pool, whatever number of leases
 * share it; InnoDB takes two CREATE TABLE IF NOT EXISTS at once. A table that is not CREATE's
 * is refused at each acquire until it is fixed.
 */
function table(pool, connection) {
  let ready = made.get(pool)
  if (ready === undefined) {
    ready = (async () => {
      await connection.query(CREATE)
      await checkSchema(connection)
    })().catch((error) => {
      made.delete(pool)
      throw error
    })
    made.set(pool, ready)
  }
  return ready
}

/**
 * `work(connection)` in a transaction of its own, on a connection of `connect`'s once `pool`'s
 * table is ready, rolled back if it throws; its result once committed.
 */
async function transaction(connect, pool, work) {
  const connection = await connect()
  let settled = false
  try {
    await table(pool, connection)
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

/** The server's time, ms since 1970, as the server sent it (a BIGINT's string). */
async function clock(connection) {
  const [{ now }] = await connection.query(`SELECT ${NOW} AS now`)
  return now
}

/** The marker's row, with the server's time; `lock` ' FOR UPDATE' or ' LOCK IN SHARE MODE'. */
async function marker(connection, namespace, lock) {
  const rows = await connection.execute(`${MARKER}${lock}`, [namespace])
  if (rows.length > 0) return rows[0]
  return { now: await clock(connection), meta: null }
}

/**
 * Refuses (ERR_FLAKE_LEASE_SCHEMA, so the transaction rolls back) a row that does not hold what
 * was written to it: a ceiling counts only as the table holds it.
 */
async function readBack(connection, namespace, id, wrote) {
  const [row] = await connection.execute(STORED, [namespace, id])
  const held = { owner: text(row?.owner), expires: row?.expires, ceiling: row?.ceiling }
  for (const [field, value] of Object.entries(wrote)) {
    const stored = held[field]
    if (value === null ? stored === null : stored !== null && String(stored) === String(value)) continue
    throw schemaError(
      'mysql2',
      `table ${TABLE} (MySQL) holds \`${field}\` ${JSON.stringify(stored ?? null)} for generator id ${id} of namespace ${JSON.stringify(namespace)}, not the ${JSON.stringify(value)} written: a column type or a trigger changes what the lease writes`,
    )
  }
}

// Each operation below runs in the transaction `run` gives it (transaction(), above), or on a
// connection of its own when it only reads.

// The marker, if there is none, then a row for each id from the lowest to the highest of the
// pool's and [first, last] that has none, as postgres.js's PREPARE does.
async function prepare(run, args) {
  await run((connection) => insertMarker(connection, args))
  await run((connection) => widenPool(connection, args))
}

async function insertMarker(connection, { namespace, meta, unknownMs }) {
  await connection.execute(INSERT_MARKER, [namespace, unknownMs, meta])
}

async function widenPool(connection, { namespace, first, last, meta, unknownMs }) {
  const m = await marker(connection, namespace, ' FOR UPDATE')
  if (m.meta === null || text(m.meta) !== meta) return
  const lo = Math.min(num(m.pool_first) ?? first, first)
  const hi = Math.max(num(m.pool_last) ?? last, last)
  if (num(m.pool_first) === lo && num(m.pool_last) === hi) return
  // A row missing inside the marker's pool was deleted (by hand: rows are never deleted),
  // maybe while held: its history is lost, so it starts as a new namespace's ids do.
  const deleted = (id) => m.pool_first !== null && id >= num(m.pool_first) && id <= num(m.pool_last)
  const unknown = String(Math.max(num(m.ceiling), num(m.now) + unknownMs))
  for (let from = lo; from <= hi; from += CHUNK) {
    const to = Math.min(hi, from + CHUNK - 1)
    await insertRows(connection, namespace, from, to, (id) => (deleted(id) ? unknown : m.ceiling))
  }
  await connection.execute(SET_POOL, [lo, hi, namespace])
}

/** A never-held row for each id from `from` to `to` that has none, of ceiling `ceilingOf(id)`. */
async function insertRows(connection, namespace, from, to, ceilingOf) {
  const values = []
  for (let id = from; id <= to; id++) values.push(namespace, id, ceilingOf(id))
  const rows = Array.from({ length: to - from + 1 }, () => '(?, ?, NULL, -1, ?)').join(', ')
  await connection.execute(
    `INSERT IGNORE INTO ${TABLE} (namespace, id, owner, expires, ceiling) VALUES ${rows}`,
    values,
  )
}

// The namespace's settings, changed to `meta` once no lease is live, every ceiling shifted by
// the change of epoch (see postgres.js's CHANGE). The marker locked first: acquires and
// renewals wait on it. Whether the namespace now has `meta`.
async function changeSettings(connection, namespace, meta) {
  const m = await marker(connection, namespace, ' FOR UPDATE')
  const old = text(m.meta)
  if (old === meta) return true
  if (old === null || !changeable(old, meta)) return false
  const live = await connection.execute(LIVE, [namespace, m.now])
  if (live.length > 0) return false
  const shift = JSON.parse(meta).epoch - JSON.parse(old).epoch
  await connection.execute(SHIFT, [shift, namespace])
  await connection.execute(SET_META, [meta, namespace])
  return true
}

// The marker an earlier version wrote with its escapes kept (see misescaped), spelled right.
function respell(connection, namespace, wrong, meta) {
  return connection.execute(RESPELL, [meta, namespace, wrong])
}

/** Takes an id as the Store's acquire does, each try in a transaction of its own. */
async function acquire(run, args) {
  let changed = false
  for (let tries = 1; ; tries++) {
    let answer
    try {
      answer = await run((connection) => attempt(connection, args))
      if (answer.next === 'prepare' && tries < ATTEMPTS) {
        await prepare(run, args)
        continue
      }
    } catch (error) {
      if (RETRY.has(error?.errno) && tries < ATTEMPTS) continue
      throw error
    }
    if (answer.next === 'respell' && tries < ATTEMPTS) {
      await run((connection) => respell(connection, args.namespace, answer.meta, args.meta))
      continue
    }
    if (answer.next === 'change' || answer.next === 'respell') {
      if (!changed && tries < ATTEMPTS && changeable(answer.meta, args.meta)) {
        changed = true
        if (await run((connection) => changeSettings(connection, args.namespace, args.meta))) continue
      }
      return checkResult('mysql2', 'acquire', { status: 'mismatch', meta: answer.meta }, answer)
    }
    if (answer.next === 'prepare') answer = { status: 'exhausted', now: answer.now, retryAt: answer.now }
    return checkResult('mysql2', 'acquire', answer)
  }
}

/** One acquire: the answer, or 'prepare', 'respell' or 'change' for what must come first. */
async function attempt(connection, { namespace, first, last, owner, ttl, ahead, meta }) {
  const m = await marker(connection, namespace, ' LOCK IN SHARE MODE')
  const now = num(m.now)
  if (m.meta === null) return { next: 'prepare', now }
  const current = text(m.meta)
  if (current !== meta) return { next: current === misescaped(meta) ? 'respell' : 'change', meta: current }
  const range = [first, last]
  const pick = await candidate(connection, namespace, range, now)
  const covered = num(m.pool_first) !== null && num(m.pool_first) <= first && num(m.pool_last) >= last
  if (pick === undefined) {
    if (!covered) return { next: 'prepare', now }
    const [{ soonest }] = await connection.execute(SOONEST, [namespace, now, ...range])
    return { status: 'exhausted', now, retryAt: soonest === null ? now : num(soonest) }
  }
  const ceiling = Math.max(pick.ceiling, now + ahead)
  await connection.execute(TAKE, [owner, now + ttl, ceiling, namespace, pick.id])
  await readBack(connection, namespace, pick.id, { owner, expires: now + ttl, ceiling })
  return { status: 'acquired', id: pick.id, floor: pick.ceiling, ceiling, now }
}

/** The id to take in `range`, locked: the free row or the expired lease of lower ceiling (then id), if any. */
async function candidate(connection, namespace, range, now) {
  const [free] = await connection.execute(FREE, [namespace, ...range])
  // A free id whose ceiling has passed costs its holder no wait: no expired lease does better.
  const [expired] = free && num(free.ceiling) < now ? [] : await connection.execute(EXPIRED, [namespace, now, ...range])
  const [pick] = [free, expired]
    .filter(Boolean)
    .map((row) => ({ id: Number(row.id), ceiling: num(row.ceiling) }))
    .sort((a, b) => a.ceiling - b.ceiling || a.id - b.id)
  return pick
}

async function renew(connection, { namespace, id, owner, ttl, ahead, meta }) {
  const m = await marker(connection, namespace, ' LOCK IN SHARE MODE')
  const now = num(m.now)
  if (text(m.meta) !== meta) return { status: 'lost', now }
  const [row] = await connection.execute(HELD, [namespace, id, owner])
  if (row === undefined) return { status: 'lost', now }
  const ceiling = Math.max(num(row.ceiling), now + ahead)
  await connection.execute(RENEWED, [now + ttl, ceiling, namespace, id])
  await readBack(connection, namespace, id, { owner, expires: now + ttl, ceiling })
  return { status: 'renewed', ceiling, now }
}

/** Frees `id` if `owner` holds it: the rows released (1 or 0). */
async function release(connection, { namespace, id, owner, last }) {
  const { affectedRows } = await connection.execute(RELEASE, [last, namespace, id, owner])
  // The ceiling it writes is the next holder's floor: read back as the others are.
  if (affectedRows === 1) await readBack(connection, namespace, id, { owner: null, expires: 0, ceiling: last })
  return affectedRows
}

async function serverTime(connect) {
  const connection = await connect()
  try {
    return checkResult('mysql2', 'time', { now: num(await clock(connection)) }).now
  } finally {
    connection.release()
  }
}

// Read only: a monitoring user may lack CREATE, and a listing should not make the table.
async function list(connect, namespace) {
  const connection = await connect()
  let rows
  let now
  try {
    now = await clock(connection)
    try {
      rows = await connection.execute(LIST, [namespace])
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
}

/**
 * A MySQL store over the user's mysql2 pool.
 * @param {() => Promise<{ query: Function, execute: Function, release: Function, destroy: Function }>} connect a
 *   connection of the pool's, its own until released
 * @param {object} pool the pool, whose table is checked once
 * @returns {import('./stores.js').Store}
 */
function mysqlStore(connect, pool) {
  const run = (work) => transaction(connect, pool, work)
  return {
    kind: 'mysql2',
    time: () => serverTime(connect),
    acquire: (args) => acquire(run, args),
    async renew(args) {
      const answer = await retried(() => run((connection) => renew(connection, args)))
      return checkResult('mysql2', 'renew', answer)
    },
    async release(args) {
      const released = await retried(() => run((connection) => release(connection, args)))
      return { status: released === 1 ? 'released' : 'lost' }
    },
    list: ({ namespace }) => list(connect, namespace),
    async close() {},
  }
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
  return mysqlStore(connector(client, recognised), client)
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

'use strict'
// Leases in PostgreSQL: one row per (namespace, id) in flake_idgen_leases, and the namespace's
// marker as the row with id -1 (its `ceiling` is the floor of ids never held, `meta` the meta,
// `pool_first` to `pool_last` the ids that have a row). Rows are never deleted; only leases
// expire. Every decision is one statement judged by the server's clock, so it holds with a Pool
// (each query on any connection) as with a Client; on a Client, a statement that ran inside a
// transaction the app opened counts as failed (the app's ROLLBACK would undo it). Every ceiling
// is the server's time plus `ahead` (see redis.js).
//
// Every statement an acquire, renewal or release runs costs O(log n) in the pool: two partial
// indexes hold the free rows by ceiling and the held ones by expiry, and the rows of a pool are
// written once, when the namespace is first leased (or a wider pool is).

const { checkResult, storeError, schemaError, shown } = require('./replies.js')
const { changeable } = require('./settings.js')
const { invalidOption } = require('../errors/errors.js')

const TABLE = 'flake_idgen_leases'

const CREATE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  namespace text NOT NULL,
  id integer NOT NULL,
  owner text,
  expires bigint NOT NULL,
  ceiling bigint NOT NULL,
  meta text,
  pool_first integer,
  pool_last integer,
  PRIMARY KEY (namespace, id)
)`

// A table made by an earlier version has neither the pool's columns nor the indexes: each is
// added once, when missing (DDL takes locks the leases' statements would queue behind).
const SCHEMA = `SELECT
  (SELECT count(*)::int FROM pg_attribute WHERE attrelid = to_regclass('${TABLE}')
     AND attname IN ('pool_first', 'pool_last') AND NOT attisdropped) AS columns,
  (SELECT count(*)::int FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
     WHERE i.indrelid = to_regclass('${TABLE}') AND c.relname IN ('${TABLE}_free', '${TABLE}_held')) AS indexes`
const MIGRATE = [
  `ALTER TABLE ${TABLE} ADD COLUMN IF NOT EXISTS pool_first integer, ADD COLUMN IF NOT EXISTS pool_last integer`,
  `CREATE INDEX IF NOT EXISTS ${TABLE}_free ON ${TABLE} (namespace, ceiling, id) WHERE owner IS NULL`,
  `CREATE INDEX IF NOT EXISTS ${TABLE}_held ON ${TABLE} (namespace, expires) WHERE owner IS NOT NULL`,
]

// The table's columns and whether it has a unique key on exactly (namespace, id), checked once
// a table is made or migrated: one made by hand with a type that cannot hold a value exactly
// (a ceiling in integer or real), or without that key, is refused (ERR_FLAKE_LEASE_SCHEMA).
const COLUMN_INFO = `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
FROM pg_attribute AS a WHERE a.attrelid = to_regclass('${TABLE}') AND a.attnum > 0 AND NOT a.attisdropped`
const KEY_INFO = `SELECT EXISTS (SELECT 1 FROM pg_index AS i
  JOIN pg_attribute AS n ON n.attrelid = i.indrelid AND n.attname = 'namespace'
  JOIN pg_attribute AS d ON d.attrelid = i.indrelid AND d.attname = 'id'
  WHERE i.indrelid = to_regclass('${TABLE}') AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
    AND i.indnatts = 2 AND i.indkey[0] = n.attnum AND i.indkey[1] = d.attnum) AS unique_key`
// Text of any length (bpchar pads, and 'a' and 'a ' would be one namespace); integers no narrower.
const TEXT = [(type) => type === 'text' || type.startsWith('character varying'), 'text']
const INT = [(type) => type === 'integer' || type === 'bigint', 'integer or bigint']
const BIGINT = [(type) => type === 'bigint', 'bigint']
const COLUMNS = {
  namespace: TEXT,
  id: INT,
  owner: TEXT,
  expires: BIGINT,
  ceiling: BIGINT,
  meta: TEXT,
  pool_first: INT,
  pool_last: INT,
}

// A statement that wrote another value than the one its row then holds (a trigger, a column
// type changed after the check) fails whole, with this mark, so that nothing of it counts:
// casting text that is no number raises 22P02 with the text.
const MISFIT = 'flake-idgen misfit:'
const misfit = (stored, wanted, id) =>
  `CASE WHEN (${stored})::text IS DISTINCT FROM (${wanted})::text THEN ('${MISFIT} ceiling of generator id ' || (${id})::text
    || ' holds ' || coalesce((${stored})::text, 'NULL') || ', not the ' || (${wanted})::text || ' written')::integer END`

const NOW = `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms`
// The statement's start, a little before NOW: stable within the statement, so an index can seek
// to it where NOW (volatile) would make it read every lease held.
const STATEMENT_MS = 'floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint'

// Idempotent: writes the marker if there is none, and, unless the marker's pool spans [$2, $3]
// already, a row for each id from the lowest to the highest of the pool's and [$2, $3] that has
// none, so that the statement that decides sees every candidate as a row it can lock; then
// records that span as the marker's pool. Rows written here have expires -1: never held (list
// leaves them out). Nothing is written when the marker's meta differs. The marker may be
// another transaction's, committed after this statement's snapshot: then nothing is written
// here, and ACQUIRE says the pool is not ready. So a fleet starting at once writes its pool once.
// `written` is 1 when this statement wrote the pool's rows.
// A row missing inside the marker's pool was deleted (by hand: rows are never deleted), maybe
// while held: its history is lost, so it starts as a new namespace's ids do, above now + $5.
const PREPARE = `WITH now AS (${NOW}),
inserted AS (
  INSERT INTO ${TABLE} (namespace, id, owner, expires, ceiling, meta, pool_first, pool_last)
  SELECT $1, -1, NULL, 0, now.ms + $5::bigint, $4::text, $2::integer, $3::integer FROM now
  ON CONFLICT (namespace, id) DO NOTHING
  RETURNING ceiling, pool_first, pool_last
),
m AS (
  SELECT ceiling, pool_first AS lo, pool_last AS hi, NULL::integer AS old_lo, NULL::integer AS old_hi FROM inserted
  UNION ALL
  SELECT ceiling, least(coalesce(pool_first, $2::integer), $2::integer), greatest(coalesce(pool_last, $3::integer), $3::integer),
    pool_first, pool_last
  FROM ${TABLE}
  WHERE namespace = $1 AND id = -1 AND meta = $4::text AND NOT coalesce(pool_first <= $2::integer AND pool_last >= $3::integer, false)
  LIMIT 1
),
rows AS (
  INSERT INTO ${TABLE} (namespace, id, owner, expires, ceiling, meta)
  SELECT $1, g, NULL, -1, CASE WHEN g BETWEEN m.old_lo AND m.old_hi THEN greatest(m.ceiling, now.ms + $5::bigint) ELSE m.ceiling END, NULL
  FROM m, now, generate_series(m.lo, m.hi) AS g
  ON CONFLICT (namespace, id) DO NOTHING
),
spans AS (UPDATE ${TABLE} AS l SET pool_first = m.lo, pool_last = m.hi FROM m WHERE l.namespace = $1 AND l.id = -1)
SELECT count(*)::int AS written FROM m`

// Takes the lease: the free row of lowest ceiling (then id), or the lease that expired first,
// whichever has the lower ceiling, each read from its index and locked with SKIP LOCKED so that
// concurrent acquirers never pick the same one, re-checked on its newest version by FOR UPDATE.
// `ready` is false while the marker is missing or its pool does not span [$2, $3] yet.
// The row taken is found by its whole key, whatever the statistics say of the namespace.
const ACQUIRE = `WITH now AS (${NOW}),
marker AS (SELECT meta, pool_first, pool_last FROM ${TABLE} WHERE namespace = $1 AND id = -1 FOR SHARE),
ready AS (SELECT 1 FROM marker WHERE meta = $4::text AND pool_first <= $2::integer AND pool_last >= $3::integer),
free AS (
  SELECT l.id, l.ceiling FROM ${TABLE} AS l
  WHERE l.namespace = $1 AND l.owner IS NULL AND l.id BETWEEN $2::integer AND $3::integer
    AND EXISTS (SELECT 1 FROM marker WHERE meta = $4::text)
  ORDER BY l.ceiling, l.id
  LIMIT 1
  FOR UPDATE OF l SKIP LOCKED
),
expired AS (
  SELECT l.id, l.ceiling FROM ${TABLE} AS l
  WHERE l.namespace = $1 AND l.owner IS NOT NULL AND l.expires <= ${STATEMENT_MS} AND l.id BETWEEN $2::integer AND $3::integer
    AND EXISTS (SELECT 1 FROM marker WHERE meta = $4::text)
  ORDER BY l.expires
  LIMIT 1
  FOR UPDATE OF l SKIP LOCKED
),
pick AS (SELECT id, ceiling FROM (SELECT * FROM free UNION ALL SELECT * FROM expired) AS c ORDER BY ceiling, id LIMIT 1),
taken AS (
  UPDATE ${TABLE} AS l SET owner = $5::text, expires = now.ms + $6::bigint, ceiling = greatest(pick.ceiling, now.ms + $7::bigint)
  FROM pick, now
  WHERE l.namespace = $1 AND l.id = (SELECT id FROM pick)
  RETURNING l.id, pick.ceiling AS floor, l.ceiling, greatest(pick.ceiling, now.ms + $7::bigint) AS wanted
)
SELECT now.ms AS now,
  (SELECT meta FROM marker) AS meta,
  EXISTS (SELECT 1 FROM ready) AS ready,
  taken.id, taken.floor, taken.ceiling,
  ${misfit('taken.ceiling', 'taken.wanted', 'taken.id')} AS misfit,
  CASE WHEN taken.id IS NULL THEN
    (SELECT min(expires) FROM ${TABLE} WHERE namespace = $1 AND owner IS NOT NULL AND expires > now.ms
       AND id BETWEEN $2::integer AND $3::integer)
  END AS retry_at
FROM now LEFT JOIN taken ON true`

// A holder of other settings than the namespace's (they changed meanwhile) has lost its lease.
const RENEW = `WITH now AS (${NOW}),
marker AS (SELECT 1 FROM ${TABLE} WHERE namespace = $1 AND id = -1 AND meta = $6::text FOR SHARE),
held AS (
  SELECT l.ceiling FROM ${TABLE} AS l
  WHERE l.namespace = $1 AND l.id = $2::integer AND l.id >= 0 AND l.owner = $3::text AND EXISTS (SELECT 1 FROM marker)
  FOR UPDATE
),
renewed AS (
  UPDATE ${TABLE} AS l SET expires = now.ms + $4::bigint, ceiling = greatest(held.ceiling, now.ms + $5::bigint)
  FROM now, held
  WHERE l.namespace = $1 AND l.id = $2::integer AND l.id >= 0 AND l.owner = $3::text
  RETURNING l.ceiling, greatest(held.ceiling, now.ms + $5::bigint) AS wanted
)
SELECT now.ms AS now, renewed.ceiling, ${misfit('renewed.ceiling', 'renewed.wanted', '$2::integer')} AS misfit
FROM now LEFT JOIN renewed ON true`

// The ceiling it writes is the next holder's floor: checked as acquire's and renew's are.
const RELEASE = `WITH released AS (
  UPDATE ${TABLE} SET owner = NULL, expires = 0, ceiling = $4::bigint
  WHERE namespace = $1 AND id = $2::integer AND id >= 0 AND owner = $3::text
  RETURNING ceiling
)
SELECT count(*)::int AS released,
  max(${misfit('released.ceiling', '$4::bigint', '$2::integer')}) AS misfit
FROM released`

// The namespace's settings, changed to $2 (its JSON $3) once no lease is live: every row locked first (a
// concurrent acquire or renewal waits on the marker), ceilings shifted by the change of epoch
// (an id's time is its timestamp minus the epoch). The layout never changes.
const CHANGE = `WITH now AS (${NOW}),
locked AS (SELECT id, owner, expires, meta FROM ${TABLE} WHERE namespace = $1 FOR UPDATE),
old AS (SELECT meta FROM locked WHERE id = -1),
ok AS (
  SELECT ($3::jsonb->>'epoch')::numeric - (old.meta::jsonb->>'epoch')::numeric AS shift FROM old
  WHERE old.meta IS DISTINCT FROM $2::text
    AND old.meta::jsonb->>'layout' = $3::jsonb->>'layout'
    AND jsonb_typeof(old.meta::jsonb->'epoch') = 'number'
    AND NOT EXISTS (SELECT 1 FROM locked, now WHERE locked.id >= 0 AND locked.owner IS NOT NULL AND locked.expires > now.ms)
)
UPDATE ${TABLE} AS l SET ceiling = l.ceiling + ok.shift::bigint, meta = CASE WHEN l.id = -1 THEN $2::text ELSE l.meta END
FROM ok WHERE l.namespace = $1`

const LIST = `WITH now AS (${NOW})
SELECT now.ms AS now, l.id, l.owner, l.expires, l.ceiling, l.meta
FROM now LEFT JOIN ${TABLE} AS l ON l.namespace = $1 AND (l.id = -1 OR l.expires >= 0)
ORDER BY l.id`

// Until ANALYZE has seen a namespace's rows (autovacuum's: up to a minute after they are
// written), the planner takes the namespace for a few rows, and ACQUIRE reads all of its free
// ones and sorts them instead of the first of its index: 25 ms at 65,536 ids instead of 0.2,
// and a fleet of 500 starting at once on a new namespace ran out of acquireTimeout (issue 51).
// A role that may not analyze the table is warned, not refused: its acquires wait for autovacuum.
const ANALYZE = `ANALYZE ${TABLE}`

// Acquire prepares and retries only when a concurrent PREPARE or a TRUNCATE came between its statements.
const ATTEMPTS = 5

// The clients whose table was made and checked (or is being): once per client, not per lease,
// since the 500 leases of a fleet starting at once on one Pool would each send the four catalog
// statements first, and those, not the acquires, filled the acquires' turns (issue 51).
const checked = new WeakMap()

const num = (value) => (value === null || value === undefined ? null : Number(value))

/**
 * A PostgreSQL store over the user's connected pg Pool or Client.
 * @param {{ query: Function, getTransactionStatus?: Function }} client
 * @returns {import('./stores.js').Store}
 */
function postgresStore(client) {
  // A Client says whether its last statement ran in a transaction of its own ('I' after it):
  // pg sets the status before it resolves the query. A Pool runs each query on a connection
  // nobody else uses meanwhile.
  const status = typeof client.getTransactionStatus === 'function' ? () => client.getTransactionStatus() : null

  // Once per client (checked); two processes creating the table or an index at once collide on
  // the catalogs, and the loser finds it made.
  const made = (error) => error && (error.code === '23505' || error.code === '42P07')
  async function schema() {
    await client.query(CREATE).catch((error) => {
      if (!made(error)) throw error
    })
    const { rows } = await client.query(SCHEMA)
    if (rows[0].columns !== 2 || rows[0].indexes !== 2) {
      for (const statement of MIGRATE) {
        await client.query(statement).catch((error) => {
          if (!made(error)) throw error
        })
      }
    }
    await checkSchema()
  }

  /** Refuses (ERR_FLAKE_LEASE_SCHEMA) a table of other types or keys than CREATE's, naming what differs. */
  async function checkSchema() {
    const where = `table ${TABLE} (PostgreSQL)`
    const { rows } = await client.query(COLUMN_INFO)
    if (!Array.isArray(rows) || !rows.every((row) => typeof row?.name === 'string' && typeof row.type === 'string')) {
      throw storeError('pg', `replied ${shown(rows)} to the query of its table's columns`)
    }
    const types = new Map(rows.map(({ name, type }) => [name, type]))
    for (const [name, [ok, must]] of Object.entries(COLUMNS)) {
      const type = types.get(name)
      if (type === undefined) throw schemaError('pg', `${where} has no column \`${name}\`: it must be ${must}`)
      if (!ok(type)) {
        throw schemaError(
          'pg',
          `${where} column \`${name}\` is ${type}, but must be ${must}: a type that cannot hold every value exactly would make the lease fence by a ceiling the table does not hold`,
        )
      }
    }
    const [key] = (await client.query(KEY_INFO)).rows
    if (typeof key?.unique_key !== 'boolean')
      throw storeError('pg', `replied ${shown(key)} to the query of its table's keys`)
    if (!key.unique_key) {
      throw schemaError('pg', `${where} has no unique key on (namespace, id): it must have PRIMARY KEY (namespace, id)`)
    }
  }
  function table() {
    let ready = checked.get(client)
    if (ready === undefined) {
      ready = schema().catch((error) => {
        if (checked.get(client) === ready) checked.delete(client)
        throw error
      })
      checked.set(client, ready)
    }
    return ready
  }

  async function query(text, values, answers = true) {
    await table()
    const result = await client.query(text, values).catch((error) => {
      // The table was dropped since it was checked: the next statement makes it again, and
      // finds its namespaces' markers gone, as after a TRUNCATE.
      if (error?.code === '42P01') checked.delete(client)
      const mark = error?.code === '22P02' ? String(error.message).indexOf(MISFIT) : -1
      if (mark < 0) throw error
      const what = String(error.message)
        .slice(mark + MISFIT.length)
        .replace(/"$/, '')
        .trim()
      throw schemaError(
        'pg',
        `table ${TABLE} (PostgreSQL): the ${what}: a column type or a trigger changes what the lease writes`,
      )
    })
    if (status !== null && status() !== 'I') {
      throw storeError(
        'pg',
        `ran a lease statement inside a transaction the app opened on this pg Client (status ${JSON.stringify(status())}): it counts only once durable, so it counts as failed; give the lease a Pool, or a Client of its own`,
      )
    }
    if (answers && (!Array.isArray(result?.rows) || result.rows.length === 0)) {
      throw storeError('pg', `answered a lease statement with ${result?.rows?.length ?? 'no'} rows`)
    }
    return result
  }

  const time = (value) => (value === null || value === undefined ? value : Number(value))

  return {
    kind: 'pg',
    async time() {
      return checkResult('pg', 'time', { now: time((await query(NOW)).rows[0].ms) }).now
    },
    async acquire({ namespace, first, last, owner, ttl, ahead, meta, unknownMs }) {
      let changed = false
      for (let attempt = 1; ; attempt++) {
        const { rows } = await query(ACQUIRE, [namespace, first, last, meta, owner, ttl, ahead])
        const row = rows[0]
        const now = time(row.now)
        if (row.id !== null) {
          const answer = { status: 'acquired', id: row.id, floor: time(row.floor), ceiling: time(row.ceiling), now }
          return checkResult('pg', 'acquire', answer, row)
        }
        if (row.meta !== null && row.meta !== meta) {
          if (!changed && attempt < ATTEMPTS && changeable(row.meta, meta)) {
            changed = true
            const { rowCount } = await client.query(CHANGE, [namespace, meta, meta])
            if (rowCount > 0) continue
          }
          return checkResult('pg', 'acquire', { status: 'mismatch', meta: row.meta }, row)
        }
        if (row.ready || attempt === ATTEMPTS) {
          // Null when the only leases in the way are being taken right now: try again at once.
          const answer = { status: 'exhausted', now, retryAt: row.retry_at === null ? now : time(row.retry_at) }
          return checkResult('pg', 'acquire', answer, row)
        }
        // A new namespace, one whose store lost its data, or a wider pool: its rows first.
        const { rows: prepared } = await query(PREPARE, [namespace, first, last, meta, unknownMs], false)
        // The one that wrote them has them counted at once (ANALYZE).
        if (prepared?.[0]?.written === 1) await client.query(ANALYZE).catch(() => {})
      }
    },
    async renew({ namespace, id, owner, ttl, ahead, meta }) {
      const { rows } = await query(RENEW, [namespace, id, owner, ttl, ahead, meta])
      const now = time(rows[0].now)
      const answer =
        rows[0].ceiling === null ? { status: 'lost', now } : { status: 'renewed', ceiling: time(rows[0].ceiling), now }
      return checkResult('pg', 'renew', answer, rows[0])
    },
    async release({ namespace, id, owner, last }) {
      const { rows } = await query(RELEASE, [namespace, id, owner, last])
      return { status: rows[0].released === 1 ? 'released' : 'lost' }
    },
    async list({ namespace }) {
      // Read only: a monitoring role may lack CREATE, and a listing should not make the table.
      let rows
      try {
        ;({ rows } = await client.query(LIST, [namespace]))
      } catch (error) {
        if (error?.code !== '42P01') throw error
        return { now: Number((await client.query(NOW)).rows[0].ms), meta: null, floor: null, records: [] }
      }
      const result = { now: Number(rows[0].now), meta: null, floor: null, records: [] }
      for (const row of rows) {
        if (row.id === null) continue
        if (row.id === -1) {
          result.meta = row.meta
          result.floor = num(row.ceiling)
        } else {
          result.records.push({ id: row.id, owner: row.owner, expires: num(row.expires), ceiling: num(row.ceiling) })
        }
      }
      return result
    },
    async close() {},
  }
}

/** The PostgreSQL store over the user's connected pg `Pool` or `Client`. */
function make(client, { replicas }) {
  if (replicas > 0) {
    throw invalidOption(
      'replicas',
      '0 with PostgreSQL (use its synchronous replication, synchronous_standby_names)',
      replicas,
    )
  }
  // A Client shared with the app may run a lease statement inside the app's transaction: one
  // that cannot say so is refused.
  if (typeof client.totalCount !== 'number' && typeof client.getTransactionStatus !== 'function') {
    throw invalidOption('store', 'a pg Pool, or a pg Client with getTransactionStatus() (pg 8.x)', client)
  }
  return postgresStore(client)
}

// For `flake-idgen lease list`.
const pg = {
  name: 'pg',
  connect(lib, url, timeoutMs) {
    const client = new lib.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs })
    return { client, close: () => client.end() }
  },
}

/** PostgreSQL's row of the lease stores (stores.js). */
module.exports = {
  name: 'postgres',
  describes: 'a pg Pool or Client',
  // The user's client is recognised by its shape, as Redis's is (redis.js).
  recognise: (client) => typeof client.query === 'function' && typeof client.connect === 'function',
  make,
  schemes: ['postgres:', 'postgresql:'],
  clients: [pg],
  // For the bench, which times the acquire statement with EXPLAIN ANALYZE (bench/leases.js).
  statements: { ACQUIRE },
}

'use strict'
// Leases in PostgreSQL: one row per (namespace, id) in flake_idgen_leases, and the namespace's
// marker as the row with id -1 (its `ceiling` is the floor of ids never held, `meta` the meta).
// Rows are never deleted; only leases expire. Every decision is one statement judged by the
// server's clock, so it holds with a Pool (each query on any connection) as with a Client; on a
// Client, a statement that ran inside a transaction the app opened counts as failed (the app's
// ROLLBACK would undo it). Every ceiling is the server's time plus `ahead` (see redis.js).

const { checkResult, storeError } = require('./replies.js')
const { invalidOption } = require('../errors.js')

const TABLE = 'flake_idgen_leases'

const CREATE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  namespace text NOT NULL,
  id integer NOT NULL,
  owner text,
  expires bigint NOT NULL,
  ceiling bigint NOT NULL,
  meta text,
  PRIMARY KEY (namespace, id)
)`

const NOW = `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms`

// Idempotent: writes the marker if there is none, and a record for each id of the range that
// has none, so that the statement that decides sees every candidate as a row it can lock.
// Records written here have expires -1: never held (list leaves them out). Nothing is written
// when the marker's meta differs. The marker may be another transaction's, committed after
// this statement's snapshot: then no record is written here, and ACQUIRE says so (`present`).
const PREPARE = `WITH now AS (${NOW}),
inserted AS (
  INSERT INTO ${TABLE} (namespace, id, owner, expires, ceiling, meta)
  SELECT $1, -1, NULL, 0, now.ms + $5::bigint, $4::text FROM now
  ON CONFLICT (namespace, id) DO NOTHING
  RETURNING ceiling, meta
),
marker AS (
  SELECT ceiling, meta FROM inserted
  UNION ALL SELECT ceiling, meta FROM ${TABLE} WHERE namespace = $1 AND id = -1
)
INSERT INTO ${TABLE} (namespace, id, owner, expires, ceiling, meta)
SELECT $1, g, NULL, -1, m.ceiling, NULL
FROM generate_series($2::integer, $3::integer) AS g, (SELECT ceiling, meta FROM marker LIMIT 1) AS m
WHERE m.meta = $4::text
ON CONFLICT (namespace, id) DO NOTHING`

// Takes the lease: the free record of lowest ceiling (then id), locked with SKIP LOCKED so that
// concurrent acquirers never pick the same one, re-checked on its newest version by FOR UPDATE.
const ACQUIRE = `WITH now AS (${NOW}),
marker AS (SELECT meta FROM ${TABLE} WHERE namespace = $1 AND id = -1 FOR SHARE),
pick AS (
  SELECT l.id, l.ceiling FROM ${TABLE} AS l, now
  WHERE l.namespace = $1 AND l.id BETWEEN $2::integer AND $3::integer
    AND (l.owner IS NULL OR l.expires <= now.ms)
    AND EXISTS (SELECT 1 FROM marker WHERE meta = $4::text)
  ORDER BY l.ceiling, l.id
  LIMIT 1
  FOR UPDATE OF l SKIP LOCKED
),
taken AS (
  UPDATE ${TABLE} AS l SET owner = $5::text, expires = now.ms + $6::bigint, ceiling = greatest(pick.ceiling, now.ms + $7::bigint)
  FROM pick, now
  WHERE l.namespace = $1 AND l.id = pick.id
  RETURNING l.id, pick.ceiling AS floor, l.ceiling
)
SELECT now.ms AS now,
  (SELECT meta FROM marker) AS meta,
  taken.id, taken.floor, taken.ceiling,
  (SELECT min(expires) FROM ${TABLE} WHERE namespace = $1 AND id BETWEEN $2::integer AND $3::integer
     AND owner IS NOT NULL AND expires > now.ms) AS retry_at,
  (SELECT count(*) FROM ${TABLE} WHERE namespace = $1 AND id BETWEEN $2::integer AND $3::integer) AS present
FROM now LEFT JOIN taken ON true`

// A holder of other settings than the namespace's (they changed meanwhile) has lost its lease.
const RENEW = `WITH now AS (${NOW}),
marker AS (SELECT 1 FROM ${TABLE} WHERE namespace = $1 AND id = -1 AND meta = $6::text FOR SHARE),
renewed AS (
  UPDATE ${TABLE} AS l SET expires = now.ms + $4::bigint, ceiling = greatest(l.ceiling, now.ms + $5::bigint)
  FROM now, marker
  WHERE l.namespace = $1 AND l.id = $2::integer AND l.id >= 0 AND l.owner = $3::text
  RETURNING l.ceiling
)
SELECT now.ms AS now, (SELECT ceiling FROM renewed) AS ceiling FROM now`

const RELEASE = `UPDATE ${TABLE} SET owner = NULL, expires = 0, ceiling = $4::bigint
WHERE namespace = $1 AND id = $2::integer AND id >= 0 AND owner = $3::text`

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

// Acquire retries only when a concurrent PREPARE or a TRUNCATE came between its two statements.
const ATTEMPTS = 5

/** Whether settings `from` may become `to` once no lease is live: both ours, of one layout. */
function changeable(from, to) {
  try {
    const [a, b] = [JSON.parse(from), JSON.parse(to)]
    return a?.layout === b?.layout && typeof a?.epoch === 'number' && typeof b?.epoch === 'number'
  } catch {
    return false
  }
}

const num = (value) => (value === null || value === undefined ? null : Number(value))

/**
 * A PostgreSQL store over the user's connected pg Pool or Client.
 * @param {{ query: Function, getTransactionStatus?: Function }} client
 * @returns {import('./stores.js').Store}
 */
function postgresStore(client) {
  let ready = null
  // A Client says whether its last statement ran in a transaction of its own ('I' after it):
  // pg sets the status before it resolves the query. A Pool runs each query on a connection
  // nobody else uses meanwhile.
  const status = typeof client.getTransactionStatus === 'function' ? () => client.getTransactionStatus() : null

  // Once per adapter; two processes creating the table at once collide on the catalogs.
  function table() {
    if (!ready) {
      ready = client.query(CREATE).catch((error) => {
        if (error && (error.code === '23505' || error.code === '42P07')) return
        ready = null
        throw error
      })
    }
    return ready
  }

  async function query(text, values, answers = true) {
    await table()
    const result = await client.query(text, values)
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
        await query(PREPARE, [namespace, first, last, meta, unknownMs], false)
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
        const complete = row.meta !== null && Number(row.present) === last - first + 1
        if (complete || attempt === ATTEMPTS) {
          // Null when the only leases in the way are being taken right now: try again at once.
          const answer = { status: 'exhausted', now, retryAt: row.retry_at === null ? now : time(row.retry_at) }
          return checkResult('pg', 'acquire', answer, row)
        }
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
      await table()
      const { rowCount } = await client.query(RELEASE, [namespace, id, owner, last])
      if (status !== null && status() !== 'I')
        throw storeError('pg', 'released a lease inside a transaction the app opened')
      return { status: rowCount === 1 ? 'released' : 'lost' }
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
}

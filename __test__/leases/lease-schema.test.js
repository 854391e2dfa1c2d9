'use strict'
// Issue 39, items 4, 7 and 8: a lease table made by hand is checked before it is used, a ceiling
// counts only as the store holds it, MySQL's values go as parameters whatever the session's
// sql_mode (NO_BACKSLASH_ESCAPES), and a release InnoDB rolls back (SERIALIZABLE) is retried.
// Against the real MariaDB and PostgreSQL servers.js starts.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const Redis = require('ioredis')
const mysql = require('mysql2/promise')
const pg = require('pg')
const FlakeId = require('../..')
const { storeFor } = require('../../lib/lease/store.js')
const { noServers, startRedis, startPostgres, startMariadb } = require('../support/servers.js')

// Store calls time out at ttl / 3: a ttl of 9 s leaves room for a loaded machine.
const LIMIT = { timeout: 120_000 }
const META = JSON.stringify({ layout: '42/10/12', epoch: 0, ttl: 10_000, maxClockSkewMs: 0 })
// The columns as CREATE makes them, for tables made by hand with one of them changed.
const MYSQL_COLUMNS = {
  namespace: 'VARBINARY(800) NOT NULL',
  id: 'INT NOT NULL',
  owner: 'VARBINARY(1024) NULL',
  expires: 'BIGINT NOT NULL',
  ceiling: 'BIGINT NOT NULL',
  meta: 'BLOB NULL',
  pool_first: 'INT NULL',
  pool_last: 'INT NULL',
  held: 'TINYINT AS (owner IS NOT NULL) STORED',
}
const MYSQL_KEYS = [
  'PRIMARY KEY (namespace, id)',
  'KEY flake_idgen_leases_free (namespace, held, ceiling, id)',
  'KEY flake_idgen_leases_held (namespace, held, expires)',
]
const PG_COLUMNS = {
  namespace: 'text NOT NULL',
  id: 'integer NOT NULL',
  owner: 'text',
  expires: 'bigint NOT NULL',
  ceiling: 'bigint NOT NULL',
  meta: 'text',
  pool_first: 'integer',
  pool_last: 'integer',
}

let mariadb, postgres, redisServer, redis
const closing = []
let count = 0
const unique = (what) => `${what}_${count++}`

before(async () => {
  if (noServers) return
  ;[mariadb, postgres, redisServer] = await Promise.all([startMariadb(), startPostgres(), startRedis()])
  redis = new Redis(redisServer.url)
  closing.push(() => redis.disconnect())
}, LIMIT)

after(async () => {
  for (const close of closing.reverse()) await Promise.resolve(close()).catch(() => {})
  await Promise.all([mariadb?.stop(), postgres?.stop(), redisServer?.stop()])
}, LIMIT)

/** A mysql2 pool on a database of its own (so a table of its own), made after `sqlMode` was set globally. */
async function mysqlPool(
  columns = {},
  { keys = MYSQL_KEYS, engine = 'InnoDB', sqlMode, after: extra = '', connections = 8 } = {},
) {
  const db = unique('lease_schema')
  const definition = Object.entries({ ...MYSQL_COLUMNS, ...columns })
    .filter(([, type]) => type !== null)
    .map(([name, type]) => `${name} ${type}`)
  mariadb.sql(
    `CREATE DATABASE ${db}; CREATE TABLE ${db}.flake_idgen_leases (${[...definition, ...keys].join(', ')}) ENGINE=${engine}; ${extra.replaceAll('$DB', db)}`,
  )
  const pool = mysql.createPool({ uri: `${mariadb.url.replace(/\/flake$/, `/${db}`)}`, connectionLimit: connections })
  closing.push(() => pool.end())
  if (sqlMode !== undefined) {
    // Every connection of the pool, as a server whose global sql_mode it is.
    pool.pool.on('connection', (connection) => connection.query(`SET SESSION sql_mode = '${sqlMode}'`))
  }
  return { pool, db }
}

/** A pg Pool whose search_path is a schema of its own, where a table was made by hand. */
async function pgPool(columns = {}, { key = 'PRIMARY KEY (namespace, id)', extra = '' } = {}) {
  const schema = unique('lease_schema')
  const admin = new pg.Client({ connectionString: postgres.url })
  await admin.connect()
  const definition = Object.entries({ ...PG_COLUMNS, ...columns }).map(([name, type]) => `${name} ${type}`)
  await admin.query(
    `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.flake_idgen_leases (${[...definition, ...(key ? [key] : [])].join(', ')}); ${extra.replaceAll('$S', schema)}`,
  )
  await admin.end()
  const pool = new pg.Pool({ connectionString: postgres.url, options: `-c search_path=${schema}`, max: 4 })
  closing.push(() => pool.end())
  return pool
}

/** FlakeId.lease over `store` rejects with ERR_FLAKE_LEASE_SCHEMA, its message matching `pattern`. */
async function refused(store, pattern) {
  await assert.rejects(FlakeId.lease({ store, namespace: unique('ns'), ttl: 9000, maxClockSkewMs: 0 }), (error) => {
    assert.equal(error.code, 'ERR_FLAKE_LEASE_SCHEMA', error.stack)
    assert.match(error.message, pattern)
    return true
  })
}

function args(namespace, over = {}) {
  return { namespace, first: 0, last: 0, owner: 'a', ttl: 10_000, ahead: 0, meta: META, unknownMs: 0, ...over }
}

describe('MySQL transactions rolled back by InnoDB', { skip: noServers }, () => {
  it(
    'a release InnoDB rolls back (its lock wait timed out under an app’s transaction) is run again, and resolves',
    LIMIT,
    async () => {
      // A lock wait timeout of a second for the pool's sessions (mysql2's `pool.on('connection')`),
      // and an app's transaction on the same pool that holds the lease's row for longer: InnoDB
      // rolls the release's statement back (1205), as it does a deadlock's victim (1213); the
      // release runs again once the app commits.
      const { pool } = await mysqlPool()
      pool.pool.on('connection', (connection) => connection.query('SET SESSION innodb_lock_wait_timeout = 1'))
      const store = storeFor(pool)
      const namespace = unique('ns')
      const lease = await store.acquire(args(namespace))
      const app = await pool.getConnection()
      try {
        await app.query('START TRANSACTION')
        await app.execute('SELECT * FROM flake_idgen_leases WHERE namespace = ? AND id = ? FOR UPDATE', [
          namespace,
          lease.id,
        ])
        const release = store.release({ namespace, id: lease.id, owner: 'a', last: lease.ceiling })
        await new Promise((resolve) => setTimeout(resolve, 1500))
        await app.query('COMMIT')
        assert.deepEqual(await release, { status: 'released' })
      } finally {
        app.release()
      }
    },
  )

  it('every release of many holders closing at once resolves, deadlocks retried', LIMIT, async () => {
    mariadb.sql('SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE')
    try {
      const { pool } = await mysqlPool({}, { connections: 100 })
      const store = storeFor(pool)
      const namespace = unique('ns')
      const holders = 160
      const held = []
      for (let i = 0; i < holders; i++) {
        held.push({
          lease: await store.acquire(args(namespace, { last: 2 * holders - 1, owner: `h${i}` })),
          owner: `h${i}`,
        })
      }
      // Each round, every holder closes while as many newcomers lease: InnoDB rolls some back.
      for (let round = 0; round < 3; round++) {
        const [released, taken] = await Promise.all([
          Promise.allSettled(
            held.map(({ lease, owner }) => store.release({ namespace, id: lease.id, owner, last: lease.floor + 1 })),
          ),
          Promise.allSettled(
            held.map((_, i) => store.acquire(args(namespace, { last: 2 * holders - 1, owner: `r${round}-${i}` }))),
          ),
        ])
        const failed = released.filter(({ status }) => status === 'rejected').map(({ reason }) => reason.message)
        assert.deepEqual(failed, [], `round ${round}: ${failed.length} of ${holders} releases rejected`)
        assert.ok(released.every(({ value }) => value.status === 'released'))
        // The newcomers that got an id hold the next round's.
        held.splice(0, held.length)
        taken.forEach(({ status, value }, i) => {
          if (status === 'fulfilled' && value.status === 'acquired')
            held.push({ lease: value, owner: `r${round}-${i}` })
        })
      }
    } finally {
      mariadb.sql('SET GLOBAL TRANSACTION ISOLATION LEVEL REPEATABLE READ')
    }
  })
})

describe('a MySQL table made by hand', { skip: noServers }, () => {
  it("`expires INT, ceiling INT` under sql_mode '' is refused, naming the column", LIMIT, async () => {
    const { pool } = await mysqlPool({ expires: 'INT NOT NULL', ceiling: 'INT NOT NULL' }, { sqlMode: '' })
    await refused(pool, /table flake_idgen_leases \(MySQL\) column `expires` is int\(11\) NOT NULL, but must be BIGINT/)
  })

  it('`ceiling FLOAT` under strict mode is refused, naming the column', LIMIT, async () => {
    const { pool } = await mysqlPool({ ceiling: 'FLOAT NOT NULL' }, { sqlMode: 'STRICT_ALL_TABLES' })
    await refused(pool, /column `ceiling` is float NOT NULL, but must be BIGINT, signed/)
  })

  it(
    'unsigned, narrow or text columns, a `held` that is not generated, MyISAM, a missing key: each refused by name',
    LIMIT,
    async () => {
      const cases = [
        [{ ceiling: 'BIGINT UNSIGNED NOT NULL' }, {}, /column `ceiling` is bigint\(20\) unsigned/],
        [{ namespace: 'VARBINARY(20) NOT NULL' }, {}, /column `namespace` is varbinary\(20\)/],
        [{ owner: 'VARCHAR(1024) NULL' }, {}, /column `owner` is varchar\(1024\)/],
        [{ held: 'TINYINT NOT NULL DEFAULT 0' }, {}, /column `held` is tinyint\(4\) NOT NULL, but must be TINYINT AS/],
        [{ pool_last: null }, {}, /has no column `pool_last`/],
        [{}, { engine: 'MyISAM' }, /uses engine MyISAM, not InnoDB/],
        [
          {},
          { keys: MYSQL_KEYS.slice(1) },
          /has no unique key on \(namespace, id\), whole columns: it must have PRIMARY KEY/,
        ],
        [
          {},
          { keys: ['PRIMARY KEY (namespace(10), id)', ...MYSQL_KEYS.slice(1)] },
          /has no unique key on \(namespace, id\), whole columns/,
        ],
        [{}, { keys: MYSQL_KEYS.slice(0, 2) }, /has no index on \(namespace, held, expires\)/],
      ]
      for (const [columns, options, pattern] of cases) {
        const { pool } = await mysqlPool(columns, options)
        await refused(pool, pattern)
      }
    },
  )

  it('a table as CREATE makes it, made by hand, is used', LIMIT, async () => {
    const { pool } = await mysqlPool()
    assert.equal((await storeFor(pool).acquire(args(unique('ns')))).status, 'acquired')
  })

  it('a trigger that changes the ceiling written: refused, and nothing of the acquire stays', LIMIT, async () => {
    const trigger = `CREATE TRIGGER $DB.lower BEFORE UPDATE ON $DB.flake_idgen_leases FOR EACH ROW
      SET NEW.ceiling = IF(NEW.id >= 0 AND NEW.owner IS NOT NULL, NEW.ceiling - 1000, NEW.ceiling)`
    const { pool } = await mysqlPool({}, { after: trigger })
    const store = storeFor(pool)
    const namespace = unique('ns')
    await assert.rejects(store.acquire(args(namespace)), {
      code: 'ERR_FLAKE_LEASE_SCHEMA',
      message: /holds `ceiling` "\d+" for generator id 0 of namespace "ns_\d+", not the \d+ written/,
    })
    // Rolled back: the id is free, never held.
    const listed = await store.list({ namespace })
    assert.deepEqual(listed.records, [])
  })

  it('a column changed after first use: the read-back refuses the lossy ceiling', LIMIT, async () => {
    const { pool, db } = await mysqlPool({}, { sqlMode: '' })
    const store = storeFor(pool)
    const namespace = unique('ns')
    const first = await store.acquire(args(namespace, { last: 1, ahead: 10_000 }))
    assert.equal(first.status, 'acquired')
    // The check ran once for this pool; the column goes lossy behind it (INT clamps, sql_mode '').
    mariadb.sql(`SET SESSION sql_mode = ''; ALTER TABLE ${db}.flake_idgen_leases MODIFY ceiling INT NOT NULL`)
    await assert.rejects(store.acquire(args(namespace, { last: 1, owner: 'b', ahead: 10_000 })), {
      code: 'ERR_FLAKE_LEASE_SCHEMA',
      message: /holds `ceiling` "?2147483647"? for generator id 1 .* not the \d+ written/,
    })
    await assert.rejects(store.renew({ ...args(namespace), id: first.id, ahead: 10_000 }), {
      code: 'ERR_FLAKE_LEASE_SCHEMA',
    })
  })
})

describe('a PostgreSQL table made by hand', { skip: noServers }, () => {
  it('`ceiling integer` and `ceiling real` are refused, naming the column', LIMIT, async () => {
    await refused(
      await pgPool({ ceiling: 'integer NOT NULL' }),
      /table flake_idgen_leases \(PostgreSQL\) column `ceiling` is integer, but must be bigint/,
    )
    await refused(await pgPool({ ceiling: 'real NOT NULL' }), /column `ceiling` is real, but must be bigint/)
  })

  it('char(n) text, a narrow id, no unique key: each refused by name', LIMIT, async () => {
    await refused(
      await pgPool({ namespace: 'char(200) NOT NULL' }),
      /column `namespace` is character\(200\), but must be text/,
    )
    await refused(await pgPool({ id: 'smallint NOT NULL' }), /column `id` is smallint, but must be integer or bigint/)
    await refused(await pgPool({}, { key: null }), /has no unique key on \(namespace, id\)/)
    await refused(await pgPool({}, { key: 'PRIMARY KEY (id, namespace)' }), /has no unique key on \(namespace, id\)/)
  })

  it('a table as CREATE makes it, made by hand, is used', LIMIT, async () => {
    assert.equal((await storeFor(await pgPool()).acquire(args(unique('ns')))).status, 'acquired')
  })

  it('a trigger that changes the ceiling written: refused, and nothing of the statement stays', LIMIT, async () => {
    const trigger = `CREATE FUNCTION $S.lower() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id >= 0 THEN NEW.ceiling := NEW.ceiling - 1000; END IF; RETURN NEW; END $$;
      CREATE TRIGGER lower BEFORE UPDATE ON $S.flake_idgen_leases FOR EACH ROW EXECUTE FUNCTION $S.lower();`
    const store = storeFor(await pgPool({}, { extra: trigger }))
    const namespace = unique('ns')
    await assert.rejects(store.acquire(args(namespace)), {
      code: 'ERR_FLAKE_LEASE_SCHEMA',
      message: /the ceiling of generator id 0 holds \d+, not the \d+ written/,
    })
    assert.deepEqual((await store.list({ namespace })).records, [])
  })
})

describe('MySQL with NO_BACKSLASH_ESCAPES', { skip: noServers }, () => {
  it('a namespace with a quote and a backslash is leased, listed and released, bytes as given', LIMIT, async () => {
    const { pool } = await mysqlPool({}, { sqlMode: 'STRICT_ALL_TABLES,NO_BACKSLASH_ESCAPES' })
    const namespace = `it's a \\ "test" ${unique('ns')}`
    const generator = await FlakeId.lease({ store: pool, namespace, ttl: 3000 })
    try {
      assert.equal(generator.lease.namespace, namespace)
      assert.equal(typeof generator.nextBigInt(), 'bigint')
      const listed = await storeFor(pool).list({ namespace })
      assert.equal(listed.meta, JSON.stringify(JSON.parse(listed.meta)), 'the meta is the JSON written')
      assert.equal(listed.records.length, 1)
      const [[row]] = await pool.query(
        "SELECT HEX(namespace) AS hex FROM flake_idgen_leases WHERE id = -1 AND namespace LIKE 'it%'",
      )
      assert.equal(row.hex, Buffer.from(namespace).toString('hex').toUpperCase())
    } finally {
      await generator.close()
    }
    const listed = await storeFor(pool).list({ namespace })
    assert.equal(listed.records[0].owner, null, 'released')
  })

  it('a marker an earlier version wrote with its escapes kept is spelled right, and leased', LIMIT, async () => {
    const { pool } = await mysqlPool({}, { sqlMode: 'NO_BACKSLASH_ESCAPES' })
    const namespace = unique('ns')
    const wrong = META.replaceAll('"', '\\"')
    await pool.execute(
      'INSERT INTO flake_idgen_leases (namespace, id, owner, expires, ceiling, meta) VALUES (?, -1, NULL, 0, 0, ?)',
      [namespace, wrong],
    )
    const store = storeFor(pool)
    assert.equal((await store.acquire(args(namespace))).status, 'acquired')
    assert.equal((await store.list({ namespace })).meta, META)
  })

  it("a namespace of SQL (' OR 1=1 -- ) reads only its own rows", LIMIT, async () => {
    const { pool } = await mysqlPool({}, { sqlMode: 'NO_BACKSLASH_ESCAPES' })
    const store = storeFor(pool)
    assert.equal((await store.acquire(args(unique('other')))).status, 'acquired')
    const listed = await store.list({ namespace: "' OR 1=1 -- " })
    assert.deepEqual([listed.meta, listed.records], [null, []])
  })
})

describe('PostgreSQL with standard_conforming_strings off', { skip: noServers }, () => {
  it('a namespace with a quote and a backslash is leased and listed, bytes as given', LIMIT, async () => {
    const pool = new pg.Pool({ connectionString: postgres.url, options: '-c standard_conforming_strings=off', max: 2 })
    closing.push(() => pool.end())
    const store = storeFor(pool)
    const namespace = `it's a \\ "test" ${unique('ns')}`
    assert.equal((await store.acquire(args(namespace))).status, 'acquired')
    const listed = await store.list({ namespace })
    assert.deepEqual([listed.meta, listed.records.length], [META, 1])
    assert.deepEqual((await store.list({ namespace: "' OR 1=1 -- " })).records, [])
  })
})

describe('a Redis hash written by hand', { skip: noServers }, () => {
  // Redis has no table: its schema is the record each field holds, checked as it is read.
  it('a record or floor of another type is refused by the script, not coerced, naming the field', LIMIT, async () => {
    const store = storeFor(redis)
    const cases = [
      ['0', JSON.stringify({ e: 0, c: String(Date.now() + 60_000) }), /at field 0, not what the lease writes/],
      ['0', JSON.stringify({ o: 'x', e: String(Date.now() + 60_000), c: 5 }), /at field 0/],
      ['0', JSON.stringify({ e: 0, c: 1.5 }), /at field 0/],
      ['0', JSON.stringify({ o: 7, e: 0, c: 5 }), /at field 0/],
      ['0', 'garbage', /holds "garbage" at field 0/],
      ['floor', '0x10', /holds "0x10" at field floor/],
    ]
    for (const [field, value, pattern] of cases) {
      const namespace = unique('ns')
      const key = `flake-idgen:{${namespace}}`
      const first = await store.acquire(args(namespace, { last: 1 }))
      assert.equal(
        (await store.release({ namespace, id: first.id, owner: 'a', last: first.ceiling })).status,
        'released',
      )
      await redis.hset(key, field, value)
      for (const call of [
        () => store.acquire(args(namespace, { last: 0, owner: 'b' })),
        () => store.list({ namespace }),
        ...(field === '0'
          ? [
              () => store.renew({ ...args(namespace), id: 0 }),
              () => store.release({ namespace, id: 0, owner: 'x', last: 1 }),
            ]
          : []),
      ]) {
        await assert.rejects(call(), (error) => {
          assert.equal(error.code, 'ERR_FLAKE_LEASE_SCHEMA', `${field} ${value}: ${error.stack}`)
          assert.match(error.message, pattern)
          return true
        })
      }
    }
  })

  it('records as the scripts write them are read', LIMIT, async () => {
    const store = storeFor(redis)
    const namespace = unique('ns')
    const lease = await store.acquire(args(namespace, { last: 1 }))
    assert.equal((await store.renew({ ...args(namespace), id: lease.id })).status, 'renewed')
    assert.equal((await store.list({ namespace })).records.length, 1)
    assert.equal((await store.release({ namespace, id: lease.id, owner: 'a', last: lease.ceiling })).status, 'released')
    assert.equal((await store.acquire(args(namespace, { last: 1, owner: 'b' }))).status, 'acquired')
  })
})

describe('a held row deleted by hand', { skip: noServers }, () => {
  // The namespace's floor is its first acquire's; the row of id 0 is deleted while its holder's
  // ceiling is a minute ahead. Made again (for a wider pool), it must start above that ceiling.
  const sql = {
    mysql: async () => {
      const { pool } = await mysqlPool()
      return {
        store: storeFor(pool),
        remove: (namespace) =>
          pool.execute('DELETE FROM flake_idgen_leases WHERE namespace = ? AND id = 0', [namespace]),
      }
    },
    postgres: async () => {
      const pool = await pgPool()
      return {
        store: storeFor(pool),
        remove: (namespace) =>
          pool.query('DELETE FROM flake_idgen_leases WHERE namespace = $1 AND id = 0', [namespace]),
      }
    },
  }
  for (const [name, make] of Object.entries(sql)) {
    it(`${name}: its id is made again above what its holder may still issue`, LIMIT, async () => {
      const { store, remove } = await make()
      const namespace = unique('ns')
      const held = await store.acquire(args(namespace, { ahead: 60_000 }))
      assert.equal(held.id, 0)
      await remove(namespace)
      const taken = []
      for (let i = 0; i < 2; i++)
        taken.push(await store.acquire(args(namespace, { last: 1, owner: `b${i}`, unknownMs: 60_000 })))
      const again = taken.find((lease) => lease.id === 0) ?? assert.fail(JSON.stringify(taken))
      assert.ok(again.floor >= held.ceiling, `floor ${again.floor} below the deleted holder's ceiling ${held.ceiling}`)
    })
  }
})

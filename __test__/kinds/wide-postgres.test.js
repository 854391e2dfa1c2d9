'use strict'
// Issue 24, item 4: 128-bit ids in a real PostgreSQL (servers.js starts the test's own).
// UUIDv7s of 4 processes in a `uuid` column sort in each process's issue order; base62 Flake128
// ids in a `text` column sort as their bytes do, under the collation docs/128-bit-ids.md names.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const pg = require('pg')
const { noServers, startPostgres } = require('../support/servers.js')
const { stateDir } = require('../support/state-files.js')
const { race, toBase62, fromBase62, bytesOf, MAX128, uuidBytes } = require('../support/wide-helpers.js')

// Room for a loaded machine: the server's start, 4 processes, 100,000 rows.
const LIMIT = { timeout: 120_000 }
const ROWS_PER_INSERT = 10_000

let server
let client

before(async () => {
  if (noServers) return
  server = await startPostgres()
  client = new pg.Client({ connectionString: server.url })
  await client.connect()
}, LIMIT)

after(async () => {
  await client?.end()
  await server?.stop()
}, LIMIT)

/** Inserts `columns` (arrays of one length) into `table` through unnest, ROWS_PER_INSERT rows a statement. */
async function insert(table, names, types, columns) {
  const list = names.join(', ')
  const unnest = types.map((type, k) => `$${k + 1}::${type}[]`).join(', ')
  for (let from = 0; from < columns[0].length; from += ROWS_PER_INSERT) {
    const slice = columns.map((column) => column.slice(from, from + ROWS_PER_INSERT))
    await client.query(`INSERT INTO ${table} (${list}) SELECT * FROM unnest(${unnest})`, slice)
  }
}

const byBytes = (texts, bytesOf) =>
  texts
    .map((text) => [bytesOf(text), text])
    .sort(([a], [b]) => Buffer.compare(a, b))
    .map(([, text]) => text)

test('100,000 UUIDv7s of 4 processes: no duplicate key, ORDER BY id is issue order', {
  ...LIMIT,
  skip: noServers,
}, async () => {
  const dir = stateDir('pg-uuid')
  const { lists, log } = await race(assert, { dir, processes: 4, count: 25_000, form: 'string', lockEvery: 25 })
  await client.query('CREATE TABLE uuids (id uuid PRIMARY KEY, child int NOT NULL, position int NOT NULL)')
  // Last issued first, the children interleaved: the table's order is not the one to find.
  const ids = []
  const children = []
  const positions = []
  for (let position = 24_999; position >= 0; position--) {
    for (const [child, list] of lists.entries()) {
      ids.push(list[position])
      children.push(child)
      positions.push(position)
    }
  }
  // A repeated id fails here, with a duplicate key error.
  await insert('uuids', ['id', 'child', 'position'], ['uuid', 'int', 'int'], [ids, children, positions])

  const { rows } = await client.query('SELECT id, child, position FROM uuids ORDER BY id')
  assert.equal(rows.length, 100_000)
  const next = [0, 0, 0, 0]
  for (const [k, { id, child, position }] of rows.entries()) {
    if (position !== next[child]) {
      assert.fail(`row ${k}: ${id} is child ${child}'s id ${position}, where its id ${next[child]} was due`)
    }
    next[child]++
  }
  assert.deepEqual(
    rows.map((row) => row.id),
    byBytes(ids, uuidBytes),
  )
  // Across processes too, where the order is known: ids taken one after another under a lock.
  const rank = new Map(rows.map((row, k) => [row.id.replaceAll('-', ''), k]))
  assert.equal(log.length, 4000)
  for (let k = 1; k < log.length; k++) {
    if (rank.get(log[k - 1].id) >= rank.get(log[k].id)) {
      assert.fail(`lock entry ${k}: child ${log[k].child}'s ${log[k].id} sorts before ${log[k - 1].id}`)
    }
  }
})

test('base62 Flake128 ids in a text COLLATE "C" column (and as bytea): ORDER BY is byte order', {
  ...LIMIT,
  skip: noServers,
}, async (t) => {
  const dir = stateDir('pg-flake128')
  const { lists } = await race(assert, {
    dir,
    processes: 2,
    count: 10_000,
    kind: 'flake128',
    options: { worker: 0xabcdef },
    form: 'string',
  })
  const ids = lists.flat()
  // Ids whose digits differ only in case or across the digit/letter boundaries, and the edges.
  const extra = new Set([toBase62(MAX128)])
  const sample = ids[0]
  for (const char of '09AZaz') {
    extra.add(`${sample.slice(0, 21)}${char}`).add(`${sample.slice(0, 15)}${char}${sample.slice(16)}`)
  }
  for (let k = 0n; 62n ** k <= MAX128; k++) extra.add(toBase62(62n ** k)).add(toBase62(62n ** k - 1n))
  for (const id of ids) extra.delete(id)
  ids.push(...extra)
  await client.query('CREATE TABLE flakes (id text COLLATE "C" PRIMARY KEY)')
  // Last first; a repeated id fails here, with a duplicate key error.
  await insert('flakes', ['id'], ['text'], [[...ids].reverse()])

  const expected = byBytes(ids, (text) => Buffer.from(text, 'latin1'))
  assert.deepEqual(
    expected,
    byBytes(ids, (text) => bytesOf(fromBase62(text))),
    'byte order of the base62 strings is not the numeric order',
  )
  const ordered = async (collation) =>
    (await client.query(`SELECT id FROM flakes ORDER BY id${collation ? ` COLLATE "${collation}"` : ''}`)).rows.map(
      (row) => row.id,
    )
  assert.deepEqual(await ordered(), expected)
  assert.deepEqual(await ordered('C'), expected)
  // The same ids as their 16 bytes in a bytea column sort the same.
  await client.query('CREATE TABLE flake_bytes (id bytea PRIMARY KEY, base62 text NOT NULL)')
  const raw = ids.map((id) => bytesOf(fromBase62(id)))
  await insert('flake_bytes', ['id', 'base62'], ['bytea', 'text'], [raw, ids])
  const { rows: byBytea } = await client.query('SELECT base62 FROM flake_bytes ORDER BY id')
  assert.deepEqual(
    byBytea.map((row) => row.base62),
    expected,
  )

  const { rows } = await client.query('SELECT datcollate FROM pg_database WHERE datname = current_database()')
  const { datcollate } = rows[0]
  const underDefault = await ordered('default')
  const sameUnderDefault = underDefault.every((id, k) => id === expected[k])
  t.diagnostic(`database collation ${datcollate}: ORDER BY ${sameUnderDefault ? 'is' : 'is not'} byte order`)
  if (['C', 'POSIX'].includes(datcollate)) assert.ok(sameUnderDefault)

  // A linguistic collation, as most databases' default is (en_US.UTF-8 and the like), sorts
  // 'a' before 'B': the docs must say COLLATE "C".
  const icu = await client.query(`SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'`)
  if (icu.rowCount === 0) {
    t.diagnostic('no ICU collation in this PostgreSQL: the linguistic order is not checked')
    return
  }
  const linguistic = await ordered('und-x-icu')
  const moved = linguistic.filter((id, k) => id !== expected[k]).length
  t.diagnostic(`under "und-x-icu", ${moved} of ${expected.length} ids are out of byte order`)
  assert.ok(moved > 0, 'a linguistic collation sorted base62 ids in byte order')
})

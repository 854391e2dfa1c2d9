'use strict'
// lease-suite.js's tests of FlakeId.lease() on a real PostgreSQL through a pg Pool.

const { before, after } = require('node:test')
const pg = require('pg')
const { noServers, startPostgres } = require('../support/servers.js')
const { leaseSuite } = require('../support/lease-suite.js')

let pgServer
const store = {}
const closing = []

before(async () => {
  if (noServers) return
  pgServer = await startPostgres()
  const pool = new pg.Pool({ connectionString: pgServer.url, max: 4 })
  pool.on('error', () => {})
  closing.push(() => pool.end())
  Object.assign(store, { client: pool, url: pgServer.url, lose: () => pool.query('TRUNCATE flake_idgen_leases') })
})

after(async () => {
  for (const close of closing) await Promise.resolve(close()).catch(() => {})
  // The server is a child process: running, it keeps this process alive.
  await pgServer?.stop()
})

leaseSuite('pg', 'PostgreSQL (pg Pool)', store)

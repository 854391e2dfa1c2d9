'use strict'
// lease-suite.js's tests of FlakeId.lease() on a real MariaDB through a mysql2 Pool (its soak the
// longest, 150 s), then MariaDB killed and restarted on its data under live holders.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { setTimeout: sleep } = require('node:timers/promises')
const mysql = require('mysql2')
const FlakeId = require('../..')
const { noServers, startMariadb } = require('../support/servers.js')
const { leaseSuite, LIMIT, namespace, ids } = require('../support/lease-suite.js')

let mariadbServer
const store = {}
const closing = []

before(async () => {
  if (noServers) return
  mariadbServer = await startMariadb()
  const mysqlPool = mysql.createPool({ uri: mariadbServer.url, connectionLimit: 4 })
  mysqlPool.on('error', () => {})
  closing.push(() => new Promise((resolve) => mysqlPool.end(resolve)))
  Object.assign(store, {
    client: mysqlPool,
    url: mariadbServer.url,
    lose: () => mysqlPool.promise().query('TRUNCATE TABLE flake_idgen_leases'),
  })
})

after(async () => {
  for (const close of closing) await Promise.resolve(close()).catch(() => {})
  // The server is a child process: running, it keeps this process alive.
  await mariadbServer?.stop()
})

leaseSuite('mysql', 'MariaDB (mysql2 Pool)', store)

describe('MariaDB killed and restarted on its data', { skip: noServers }, () => {
  it('holders keep their leases and fences across the crash, and issue no id twice', LIMIT, async () => {
    const shared = {
      store: store.client,
      namespace: namespace('mariadb-restart'),
      ids: [0, 3],
      ttl: 3000,
      maxClockSkewMs: 200,
    }
    const lost = []
    const holders = []
    for (let k = 0; k < 3; k++) holders.push(await FlakeId.lease({ ...shared, onLost: (error) => lost.push(error) }))
    const fences = holders.map((holder) => holder.lease)
    const before = holders.flatMap((holder) => ids(holder, 100))
    await mariadbServer.restart()
    // Renewals fail while it is down, then reach the recovered rows: ceilings rise again.
    const deadline = Date.now() + 30_000
    while (holders.some((holder, k) => holder.lease.ceiling <= fences[k].ceiling) && Date.now() < deadline) {
      await sleep(100)
    }
    holders.forEach((holder, k) => {
      assert.ok(holder.lease.ceiling > fences[k].ceiling, 'renewed after the restart')
      assert.deepEqual([holder.lease.id, holder.lease.floor], [fences[k].id, fences[k].floor], 'the same lease')
    })
    const after = holders.flatMap((holder) => ids(holder, 100))
    assert.equal(new Set([...before, ...after].map(String)).size, 600)
    assert.deepEqual(lost, [])
    await Promise.all(holders.map((holder) => holder.close()))
    const successor = await FlakeId.lease(shared)
    assert.ok(ids(successor, 1)[0] > after.reduce((a, b) => (b > a ? b : a)), 'handed over above every id issued')
    await successor.close()
  })
})

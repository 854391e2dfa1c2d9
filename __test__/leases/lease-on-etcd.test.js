'use strict'
// lease-suite.js's tests of FlakeId.lease() on a real etcd through an etcd3 client (what only
// etcd has, its clock check among them: lease-etcd.test.js).

const { before, after } = require('node:test')
const { noServers, startEtcd } = require('../support/servers.js')
const { etcdClient } = require('../support/etcd-client.js')
const { leaseSuite } = require('../support/lease-suite.js')

let etcdServer
const store = {}
const closing = []

before(async () => {
  if (noServers) return
  etcdServer = await startEtcd()
  const client = etcdClient(etcdServer.hosts)
  closing.push(() => client.close())
  // Restarted without its data: every key and etcd lease gone.
  Object.assign(store, { client, url: etcdServer.hosts, lose: () => etcdServer.restart() })
})

after(async () => {
  for (const close of closing) await Promise.resolve(close()).catch(() => {})
  // The server is a child process: running, it keeps this process alive.
  await etcdServer?.stop()
})

leaseSuite('etcd', 'etcd (etcd3)', store)

'use strict'
// lease-suite.js's tests of FlakeId.lease() on a real ZooKeeper through node-zookeeper-client
// (what only ZooKeeper has, its sessions among them: lease-zookeeper.test.js).

const { before, after } = require('node:test')
const zookeeper = require('node-zookeeper-client')
const { noServers, startZookeeper } = require('../support/servers.js')
const { leaseSuite } = require('../support/lease-suite.js')

let zookeeperServer
const store = {}
const closing = []

before(async () => {
  if (noServers) return
  zookeeperServer = await startZookeeper()
  const client = zookeeper.createClient(zookeeperServer.hosts, { retries: 0 })
  const connected = new Promise((resolve) => client.once('connected', resolve))
  client.connect()
  await connected
  closing.push(() => client.close())
  // As a TRUNCATE: every znode of the lease's gone, the client's session kept (a server
  // restarted without its data ends every session: lease-zookeeper.test.js).
  // All at once, in one multi, as a TRUNCATE is: holders write meanwhile, and one that wrote
  // between the listing and the multi makes it fail, to be tried again.
  const children = (node) =>
    new Promise((resolve, reject) =>
      client.getChildren(node, (error, names) => (error ? reject(error) : resolve(names))),
    )
  const subtree = async (node) => [
    node,
    ...(await Promise.all((await children(node)).map((name) => subtree(`${node}/${name}`)))).flat(),
  ]
  const lose = async () => {
    for (let tries = 1; ; tries++) {
      const error = await subtree('/flake-idgen').then(
        (nodes) =>
          new Promise((resolve) =>
            nodes
              .reverse()
              .reduce((all, node) => all.remove(node), client.transaction())
              .commit(resolve),
          ),
        (error) => error,
      )
      if (!error || error.name === 'NO_NODE') return
      if (tries === 50) throw error
    }
  }
  Object.assign(store, { client, url: zookeeperServer.hosts, lose })
})

after(async () => {
  for (const close of closing) await Promise.resolve(close()).catch(() => {})
  // After the client's close. The server is a child process: running, it keeps this process alive.
  await zookeeperServer?.stop()
})

leaseSuite('zookeeper', 'ZooKeeper (node-zookeeper-client)', store)

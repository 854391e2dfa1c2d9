'use strict'
// An etcd3 client as an app makes one, for the lease tests of etcd (servers.js starts etcd).

const { Etcd3 } = require('etcd3')

/** An `Etcd3` of `hosts` (http://host:port), its default retries and circuit breaker kept. */
const etcdClient = (hosts) => new Etcd3({ hosts })

module.exports = { etcdClient }

'use strict'
// The lease stores, one row each: FlakeId.lease finds the store of the user's client here
// (store.js), and `flake-idgen lease list` each store's flag, URL schemes and client packages
// (lib/cli/lease-list.js), whose flags, options and usage lines are built from them
// (lib/cli/store-flags.js). Outside its own file and this list, nothing names a store.
//
// Adding a lease store:
// 1. A file in this folder that exports its row, an object of
//    - name: the command's flag (`lease list --<name> URL`)
//    - describes: the clients it takes, as the refusal of any other lists them ('a pg Pool or Client')
//    - recognise(client): which of them `client` (an object or a function) is, by its shape
//      alone (this package depends on no client, and the user's may be of any version): a
//      truthy value naming it, or a falsy one. Its shape is read there once: make is given
//      that value, not the client's properties again, which a getter could answer otherwise
//    - make(client, { replicas, waitMs }, recognised): the Store (below) over the client, as
//      recognise saw it; it throws invalidOption (../errors.js) for an option or client it
//      cannot serve
//    - schemes: the URL schemes of the command's flag, with their colon ('redis:')
//    - clients: the packages the command may connect with, from the user's project, in order of
//      preference: each { name, connect(lib, url, timeoutMs) } where `lib` is the package as
//      required; connect returns { client, close, destroy? }: a client not yet connected, with
//      connect() and an 'error' event, that gives up at its first failure, a close() that
//      ends it, and a destroy() for when close() throws
//    - value, form, address(text) (optional): what the command's flag takes where it is not a
//      URL ('HOSTS'), in words, and its reading of such text (undefined for text that is not one)
// 2. Its row in STORES, before any row whose recognise would take its clients too.
// 3. Its tests in __test__/leases/, against a real server started as the others' are: the
//    Store's operations, FlakeId.lease over each client, and `lease list --<name>`.

const redis = require('./redis.js')
const mysql = require('./mysql.js')
const postgres = require('./postgres.js')
const etcd = require('./etcd.js')
const zookeeper = require('./zookeeper.js')

/**
 * What every store's `make` returns.
 * @typedef {object} Store
 * @property {string} kind the client's package, in the messages of ERR_FLAKE_LEASE_STORE
 * @property {() => Promise<number>} time the store's clock, ms since 1970
 * @property {(a: { namespace: string, first: number, last: number, owner: string, ttl: number, ahead: number, meta: string, unknownMs: number }) => Promise<object>} acquire
 *   takes a free id with ceiling max(its floor, store time + `ahead`)
 * @property {(a: { namespace: string, id: number, owner: string, ttl: number, ahead: number, meta: string }) => Promise<object>} renew
 * @property {(a: { namespace: string, id: number, owner: string, last: number }) => Promise<object>} release
 * @property {(a: { namespace: string }) => Promise<{ now: number, meta: string | null, floor: number | null, records: { id: number, owner: string | null, expires: number, ceiling: number }[] }>} list
 * @property {() => Promise<void>} close closes the connections the store opened itself
 */

// In the order a client is recognised: a mysql2 Connection has the shape PostgreSQL's row takes.
const STORES = [redis, mysql, postgres, etcd, zookeeper]

module.exports = { STORES }

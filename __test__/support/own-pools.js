'use strict'
// Hostile namespaces ('__proto__', '..', '/', 'a' beside 'a/b', 200 characters) on the stores
// whose keys or paths are made of the namespace: lease-etcd.test.js, lease-zookeeper.test.js.

const assert = require('node:assert/strict')

/**
 * Leases id 0 of each namespace of `names` (hostile ones) through `store` (a storeFor()), each
 * for an owner of its own, with the acquire's arguments `argsOf(name, over)` makes: each lists
 * its own holder alone, a pool of its own.
 */
async function eachItsOwnPool(store, names, argsOf) {
  for (const [i, name] of names.entries()) {
    const answer = await store.acquire(argsOf(name, { owner: `o${i}`, ttl: 60_000 }))
    assert.deepEqual([answer.status, answer.id], ['acquired', 0], name)
  }
  for (const [i, name] of names.entries()) {
    const { records } = await store.list({ namespace: name })
    assert.deepEqual(
      records.map((r) => r.owner),
      [`o${i}`],
      name,
    )
    await store.release({ namespace: name, id: 0, owner: `o${i}`, last: Date.now() })
  }
}

module.exports = { eachItsOwnPool }

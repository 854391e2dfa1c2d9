'use strict'
// `flake-idgen serve --lease URL` on each store (members/lease-member.test.js, and the etcd and
// ZooKeeper files): it serves ids of the node id it leased, holds that id while it serves, and
// releases it on SIGTERM.

const assert = require('node:assert/strict')
const path = require('node:path')
const FlakeId = require('../..')
const { TOKEN, tokenDir, startServe } = require('../command/serve-process.js')

const ROOT = path.join(__dirname, '..', '..')
// The settings serve's lease writes: its defaults, ttl 10 s and skew 1 s.
const META = JSON.stringify({ layout: '42/10/12', epoch: 0, ttl: 10_000, maxClockSkewMs: 1000 })
const SEED = 'seed:1:a'

/** Starts `serve --lease url` on `namespace` of `store` (a storeFor()) and checks what it does with its lease. */
async function servesLeasedId(store, url, namespace) {
  // The namespace seeded as serve's lease writes it, its first id handed back at once: serve's
  // lease then starts now, not after ttl + skew.
  const base = { namespace, first: 0, last: 0, ttl: 10_000, ahead: 1, meta: META, unknownMs: 1 }
  const seeded = await store.acquire({ ...base, owner: SEED })
  assert.equal(seeded.status, 'acquired')
  await store.release({ namespace, id: seeded.id, owner: SEED, last: Date.now() })

  const { tokenFile, cleanup } = tokenDir()
  let member
  try {
    member = await startServe(['--lease', url, '--namespace', namespace, '--token-file', tokenFile], { cwd: ROOT })
    const client = FlakeId.client({ members: [member.url], token: TOKEN })
    try {
      assert.equal(FlakeId.decompose(await client.nextAsync()).id, member.node)
    } finally {
      client.close()
    }
    const recordOf = async () => (await store.list({ namespace })).records.find(({ id }) => id === member.node)
    assert.notEqual((await recordOf()).owner, null, 'held while it serves')
    member.child.kill('SIGTERM')
    assert.equal(await member.exited, 0, member.stderr())
    assert.equal((await recordOf()).owner, null, 'released')
  } finally {
    member?.kill()
    cleanup()
  }
}

module.exports = { servesLeasedId }

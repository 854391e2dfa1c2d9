'use strict'
// FlakeId.lease() against a real store, the same tests for each: __test__/leases/lease-on-*.test.js
// start its server (servers.js) and declare its describe here. Holders of one id never overlap,
// whatever closes, expiries, pauses, kills, clock skew and a store that loses its data do. Every
// check is on the ids themselves: duplicates, and each holder's ids within its fence (above its
// floor, at most its ceiling).

const { describe, it } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const FlakeId = require('../..')
const { noServers } = require('./servers.js')

const CHILD = path.join(__dirname, 'lease-child.js')
const LIMIT = { timeout: 90_000 }
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-lease-'))
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))

let namespaces = 0
const namespace = (what) => `${what}-${process.pid}-${namespaces++}`

/** The parts of an id (epoch 0). */
const parts = (id) => ({ time: Number(BigInt(id) >> 22n), node: Number((BigInt(id) >> 12n) & 0x3ffn) })

function ids(generator, count) {
  return Array.from({ length: count }, () => generator.nextBigInt())
}

/** Starts lease-child.js; resolves with it once its file shows a fence. */
function child(config) {
  const out = path.join(dir, `child-${namespaces++}.log`)
  fs.writeFileSync(out, '')
  const proc = spawn(process.execPath, [CHILD, JSON.stringify({ ...config, out })], {
    stdio: 'ignore',
  })
  proc.out = out
  proc.exited = new Promise((resolve) => proc.once('exit', resolve))
  return proc
}

async function untilFence(proc, ms = 20_000) {
  const deadline = Date.now() + ms
  while (!/^F /m.test(fs.readFileSync(proc.out, 'utf8'))) {
    if (Date.now() > deadline) throw new Error(`no lease in ${proc.out}: ${fs.readFileSync(proc.out, 'utf8')}`)
    await sleep(20)
  }
}

/** Terms (one per fence) with their ids, from child files and in-process holders. */
function terms(text) {
  const found = []
  // A child killed by SIGKILL mid-write leaves its last line cut short (a write is not atomic
  // against a fatal signal): only lines that end in a newline were written whole.
  for (const line of text.split('\n').slice(0, -1)) {
    const [kind, ...fields] = line.split(' ')
    if (kind === 'F' && fields.length === 3) found.push({ id: Number(fields[0]), floor: Number(fields[1]), ids: [] })
    else if (kind === 'I' && found.length > 0 && fields.length > 1) {
      const ceiling = Number(fields[0])
      for (const id of fields.slice(1))
        if (/^\d+$/.test(id)) found[found.length - 1].ids.push({ id: BigInt(id), ceiling })
    }
  }
  return found
}

/** Asserts no duplicates, each id in its fence, and holders of one id never overlapping. */
function checkFences(allTerms) {
  const seen = new Set()
  const byNode = new Map()
  for (const term of allTerms) {
    if (term.ids.length === 0) continue
    for (const { id, ceiling } of term.ids) {
      const key = id.toString()
      assert.ok(!seen.has(key), `id ${key} issued twice`)
      seen.add(key)
      const { time, node } = parts(id)
      assert.equal(node, term.id, `id ${key} has the fence's generator id`)
      assert.ok(time > term.floor, `id ${key} at ${time} is above its floor ${term.floor}`)
      assert.ok(time <= ceiling, `id ${key} at ${time} is within its ceiling ${ceiling}`)
    }
    const values = term.ids.map(({ id }) => id)
    const range = { min: values.reduce((a, b) => (b < a ? b : a)), max: values.reduce((a, b) => (b > a ? b : a)) }
    if (!byNode.has(term.id)) byNode.set(term.id, [])
    byNode.get(term.id).push(range)
  }
  for (const [node, ranges] of byNode) {
    ranges.sort((a, b) => (a.min < b.min ? -1 : 1))
    for (let k = 1; k < ranges.length; k++) {
      assert.ok(ranges[k - 1].max < ranges[k].min, `holders of generator id ${node} overlap`)
    }
  }
  return seen.size
}

// MySQL's is the store's first: a few minutes of it.
// FLAKE_IDGEN_SOAK_MS shortens every soak: .ci/platforms runs the suite again on other Node
// lines and targets, where a soak of minutes would prove nothing more about the store.
const SOAK_LIMIT_MS = Number(process.env.FLAKE_IDGEN_SOAK_MS) || Infinity
const SOAK_MS = Object.fromEntries(
  Object.entries({ redis: 16_000, pg: 16_000, mysql: 150_000, zookeeper: 16_000, etcd: 16_000 }).map(([kind, ms]) => [
    kind,
    Math.min(ms, SOAK_LIMIT_MS),
  ]),
)

/**
 * Declares `leases on <name>`: FlakeId.lease() over the store of `kind` (lease-child.js's kinds).
 * `target` is filled in by the file's before(), once its server runs: `client`, what the app
 * passes as `store`; `url`, what lease-child.js connects to; `lose()`, the store's data gone.
 */
function leaseSuite(kind, name, target) {
  describe(`leases on ${name}`, { skip: noServers }, () => {
    const options = (extra) => ({
      store: target.client,
      namespace: namespace(kind),
      ttl: 1000,
      maxClockSkewMs: 200,
      ...extra,
    })

    it('two leases on a pool of 1: the second waits for the first to close, and issues above it', LIMIT, async () => {
      const shared = options({ ids: [1, 1] })
      const first = await FlakeId.lease(shared)
      assert.ok(first instanceof FlakeId)
      assert.equal(first.id, 1)
      const a = ids(first, 100)
      let second
      const waiting = FlakeId.lease(shared).then((generator) => (second = generator))
      await sleep(300)
      assert.equal(second, undefined, 'the second waits while the first holds the id')
      await first.close()
      assert.throws(() => first.next(), { code: 'ERR_FLAKE_LEASE_CLOSED' })
      await waiting
      const b = ids(second, 100)
      assert.equal(new Set([...a, ...b].map(String)).size, 200)
      assert.ok(b[0] > a[a.length - 1])
      await second.close()
    })

    it(
      'a holder killed with SIGKILL: the next one waits for its lease to expire, and issues above it',
      LIMIT,
      async () => {
        const shared = options({ ids: [2, 2] })
        const holder = child({
          kind,
          url: target.url,
          namespace: shared.namespace,
          ids: [2, 2],
          ttl: 1000,
          maxClockSkewMs: 200,
          mode: 'soak',
        })
        await untilFence(holder)
        await sleep(200)
        holder.kill('SIGKILL')
        await holder.exited
        const started = Date.now()
        const next = await FlakeId.lease(shared)
        assert.ok(Date.now() - started >= 300, 'waited for the expiry')
        const mine = {
          id: 2,
          floor: next.lease.floor,
          ids: ids(next, 50).map((id) => ({ id, ceiling: next.lease.ceiling })),
        }
        assert.ok(checkFences([...terms(fs.readFileSync(holder.out, 'utf8')), mine]) > 50)
        await next.close()
      },
    )

    it(
      'a holder paused past its ttl issues only up to its ceiling, then throws; its successor issues above',
      LIMIT,
      async () => {
        const shared = options({ ids: [3, 3], ttl: 600 })
        const holder = child({
          kind,
          url: target.url,
          namespace: shared.namespace,
          ids: [3, 3],
          ttl: 600,
          maxClockSkewMs: 200,
          mode: 'pause',
          pauseMs: 2000,
        })
        await untilFence(holder)
        const successor = await FlakeId.lease(shared)
        const after = ids(successor, 50)
        await holder.exited
        const [count, last, ceiling, code] = /^P (.*)$/m.exec(fs.readFileSync(holder.out, 'utf8'))[1].split(' ')
        assert.equal(code, 'ERR_FLAKE_LEASE_EXPIRED')
        assert.ok(Number(count) > 0)
        assert.ok(parts(last).time <= Number(ceiling), 'nothing past its ceiling')
        assert.ok(after[0] > BigInt(last), 'the successor is above everything the paused holder issued')
        await successor.close()
      },
    )

    it('clocks 2 s behind and ahead alternate on one id: no duplicate, skew costs only waiting', LIMIT, async () => {
      const shared = options({ ids: [4, 4], maxClockSkewMs: 2500 })
      const all = []
      for (const offset of [-2000, 2000, -2000]) {
        const generator = await FlakeId.lease({ ...shared, clock: () => Date.now() + offset })
        const taken = ids(generator, 200)
        if (all.length > 0) assert.ok(taken[0] > all[all.length - 1], 'above the holder before')
        all.push(...taken)
        await generator.close()
      }
      assert.equal(new Set(all.map(String)).size, all.length)
    })

    it('a clock further from the store’s than maxClockSkewMs is refused at acquire', LIMIT, async () => {
      await assert.rejects(FlakeId.lease(options({ clock: () => Date.now() + 5000, maxClockSkewMs: 1000 })), {
        code: 'ERR_FLAKE_CLOCK_SKEW',
        message: /ahead of the lease store's/,
      })
    })

    it('a store that lost its data is detected: the next holder starts above now + ttl + skew', LIMIT, async () => {
      const shared = options({ ids: [5, 6], ttl: 800, maxClockSkewMs: 100 })
      const holder = await FlakeId.lease(shared)
      const before = ids(holder, 100)
      const lost = Date.now()
      await target.lose()
      const next = await FlakeId.lease(shared)
      const fresh = ids(next, 100)
      assert.ok(parts(fresh[0]).time > lost + 800 + 100, 'above now + ttl + skew when the data was lost')
      // The first holder's renewal finds its lease gone: it goes on under a new lease.
      const deadline = Date.now() + 10_000
      while (holder.lease.floor < lost && Date.now() < deadline) await sleep(50)
      assert.ok(holder.lease.floor >= lost + 800, 'the first holder re-leased above the loss too')
      const later = ids(holder, 100)
      assert.equal(new Set([...before, ...fresh, ...later].map(String)).size, 300)
      await Promise.all([holder.close(), next.close()])
    })

    it(`soak: 8 processes on a pool of 3 for ${SOAK_MS[kind] / 1000} s, killed and respawned, one store loss: no duplicate, every id in its fence`, {
      timeout: LIMIT.timeout + SOAK_MS[kind],
    }, async () => {
      const ns = namespace(`${kind}-soak`)
      const config = {
        kind,
        url: target.url,
        namespace: ns,
        ids: [10, 12],
        ttl: 500,
        maxClockSkewMs: 100,
        mode: 'soak',
      }
      const procs = Array.from({ length: 8 }, () => child(config))
      const files = procs.map((proc) => proc.out)
      const end = Date.now() + SOAK_MS[kind]
      let lost = false
      let kills = 0
      while (Date.now() < end) {
        await sleep(500 + Math.floor(Math.random() * 500))
        if (!lost && Date.now() > end - 8_000) {
          lost = true
          await target.lose()
          continue
        }
        const k = Math.floor(Math.random() * procs.length)
        procs[k].kill('SIGKILL')
        await procs[k].exited
        kills++
        procs[k] = child(config)
        files.push(procs[k].out)
      }
      for (const proc of procs) proc.kill('SIGKILL')
      await Promise.all(procs.map((proc) => proc.exited))
      const all = files.flatMap((file) => terms(fs.readFileSync(file, 'utf8')))
      const issued = checkFences(all)
      assert.ok(lost && kills >= 8)
      assert.ok(all.filter((term) => term.ids.length > 0).length >= 6, 'many holders came and went')
      assert.ok(issued > 1000, `${issued} ids`)
    })

    it(
      'a hazelcast layout leases its own node ids; a holder of another layout is refused, live or not',
      LIMIT,
      async () => {
        const shared = options({ layout: 'hazelcast', ids: [65530, 65535] })
        const first = await FlakeId.lease(shared)
        const second = await FlakeId.lease(shared)
        const holders = [first, second]
        assert.equal(first.layout.key, '41/seq6/node16')
        assert.notEqual(first.id, second.id)
        const all = []
        for (const holder of holders) {
          assert.ok(holder.id >= 65530 && holder.id <= 65535, `id ${holder.id} is of the pool`)
          const { floor, ceiling } = holder.lease
          // 64 ids a millisecond: a batch waits for the next one where next() would overflow.
          const batch = holder.nextBatch(200)
          for (let at = 0; at < batch.length; at += 8) {
            const id = batch.readBigUInt64BE(at)
            const parts = FlakeId.decompose(id, { layout: 'hazelcast' })
            assert.equal(parts.id, holder.id, `id ${id} has the leased node id`)
            assert.ok(parts.timestamp > floor && parts.timestamp <= ceiling, `id ${id} is within its fence`)
            all.push(id)
          }
        }
        assert.equal(new Set(all.map(String)).size, all.length)
        // The namespace records the layout's key: the default layout reads these ids differently.
        const mismatch = {
          code: 'ERR_FLAKE_LEASE_MISMATCH',
          message: /"layout":"41\/seq6\/node16".*"layout":"42\/10\/12"/,
        }
        await assert.rejects(FlakeId.lease({ ...shared, layout: undefined, ids: [0, 3] }), mismatch)
        await Promise.all(holders.map((holder) => holder.close()))
        // Settings change once no lease of the old ones is live; the layout never does.
        await assert.rejects(FlakeId.lease({ ...shared, layout: undefined, ids: undefined }), mismatch)
        const again = await FlakeId.lease(shared)
        const more = ids(again, 50)
        for (const id of more) assert.equal(FlakeId.decompose(id, { layout: 'hazelcast' }).id, again.id)
        assert.equal(new Set([...all, ...more].map(String)).size, all.length + more.length)
        await again.close()
      },
    )

    it('sonyflake’s 10 ms units: holders of one id hand over in later units, no id twice', LIMIT, async () => {
      const shared = options({ layout: 'sonyflake', ids: [7, 7] })
      const all = []
      for (let k = 0; k < 3; k++) {
        const holder = await FlakeId.lease(shared)
        // 256 ids per 10 ms: the batch spans units, up to the handover.
        const batch = holder.nextBatch(600)
        const ids = Array.from({ length: 600 }, (_, i) => batch.readBigUInt64BE(8 * i))
        if (all.length > 0) {
          const [before, first] = [all[all.length - 1], ids[0]].map((id) => FlakeId.decompose(id, holder))
          assert.ok(first.timestamp > before.timestamp, 'a later time unit than the holder before')
        }
        for (const id of ids) assert.equal(FlakeId.decompose(id, { layout: 'sonyflake' }).machineId, 7)
        all.push(...ids)
        await holder.close()
      }
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1] < all[i], 'ascending across holders')
    })

    it('bad options and a store of the wrong shape: clear errors', async () => {
      const store = target.client
      const cases = [
        [
          { store: {}, namespace: 'x' },
          /option `store` must be an ioredis client, a node-redis \(v4\/v5\) client, a mysql2 Pool, a pg Pool or Client, an etcd3 Etcd3 client, or a node-zookeeper-client Client, got an object/,
        ],
        [{ store, namespace: '' }, /option `namespace` must be a string of 1 to 200 characters, got ""/],
        [{ store, namespace: 'x', ids: [5, 2] }, /option `ids` must be a pair \[first, last\]/],
        [{ store, namespace: 'x', ids: [0, 1024] }, /option `ids` must be .* ≤ 1023, got \[0, 1024\]$/],
        [{ store, namespace: 'x', layout: 'bogus' }, /option `layout` must be one of 'flake-idgen', /],
        [{ store, namespace: 'x', layout: 'discord', process: 1 }, /option `process` must be left out/],
        [{ store, namespace: 'x', ttl: 50 }, /option `ttl` must be an integer from 100/],
        [{ store, namespace: 'x', maxClockSkewMs: -1 }, /option `maxClockSkewMs`/],
        [{ store, namespace: 'x', id: 3 }, /option `id` must be left out: a lease sets it, got 3/],
        [{ store, namespace: 'x', scope: 'cluster' }, /option `scope` must be 'host' or 'process', got "cluster"/],
        [{ store, namespace: 'x', signal: 'soon' }, /option `signal` must be an AbortSignal/],
        [{ store, namespace: 'x', onLost: 1 }, /option `onLost` must be a function/],
        [{ store, namespace: 'x', seqMask: 5 }, /option `seqMask` must be 2\^k - 1/],
        [{ store, namespace: 'x', epoch: Date.now() + 100_000 }, /option `epoch`/],
        [null, /options must be an object, got null/],
      ]
      for (const [bad, message] of cases) {
        await assert.rejects(FlakeId.lease(bad), { code: 'ERR_FLAKE_INVALID_OPTION', message }, String(message))
      }
      // The pool is the layout's node ids: 0 to 2^nodeBits - 1.
      const past = [
        [{ layout: 'hazelcast', ids: [65530, 65536] }, '65535'],
        [{ layout: 'instagram', ids: [0, 8192] }, '8191'],
        [{ layout: { timeBits: 63, nodeBits: 0, sequenceBits: 1 }, ids: [0, 1] }, '0'],
        [{ ids: [0, 1024] }, '1023'],
        [{ ids: [-1, 3] }, '1023'],
        [{ ids: [3, 2] }, '1023'],
      ]
      for (const [extra, max] of past) {
        await assert.rejects(FlakeId.lease({ store, namespace: 'x', ...extra }), (error) => {
          assert.ok(error instanceof RangeError, error.stack)
          assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
          assert.match(
            error.message,
            new RegExp(`^option \`ids\` must be .* ≤ ${max}, got \\[${extra.ids.join(', ')}\\]$`),
          )
          return true
        })
      }
      for (const ids of ['0-3', [0], [0, '3'], [0, 1, 2]]) {
        await assert.rejects(FlakeId.lease({ store, namespace: 'x', ids }), {
          name: 'TypeError',
          message: /option `ids`/,
        })
      }
    })
  })
}

module.exports = { leaseSuite, LIMIT, namespace, ids }

'use strict'
// What only the etcd store has, against a real etcd (servers.js): its clock check, since etcd has
// none (a holder's system clock stepped an hour ahead or behind, through the fakeclock shim, beside
// a holder whose clock is right), a record deleted by hand, the server paused past the ttl, its
// client's namespace(), and the command: `lease list --etcd` and `serve --lease etcd://`. The
// store's contract is lease-store.test.js's, FlakeId.lease over it lease-on-etcd.test.js's.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const FlakeId = require('../..')
const { noServers, startEtcd } = require('../support/servers.js')
const { etcdClient } = require('../support/etcd-client.js')
const { shims, shimEnv } = require('../support/clock-shims.js')
const { storeFor } = require('../../lib/lease/store.js')
const { servesLeasedId } = require('../support/leased-serve.js')
const { eachItsOwnPool } = require('../support/own-pools.js')

const CHILD = path.join(__dirname, '..', 'support', 'lease-child.js')
const LIMIT = { timeout: 90_000 }
const HOUR = 3_600_000
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-lease-etcd-'))
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))

let server, client
let count = 0
const namespace = (what) => `${what}-${process.pid}-${count++}`

before(async () => {
  if (noServers) return
  server = await startEtcd()
  client = etcdClient(server.hosts)
})

after(async () => {
  client?.close()
  await server?.stop()
})

/** The time of an id of the default layout (epoch 0). */
const timeOf = (id) => Number(BigInt(id) >> 22n)

/** Takes ids from `generator` every few ms into `into` until the returned stop() is called. */
function issue(generator, into) {
  let running = true
  const done = (async () => {
    while (running) {
      for (let i = 0; i < 20; i++) {
        try {
          into.push({ id: generator.nextBigInt(), ceiling: generator.lease.ceiling })
        } catch (error) {
          if (!/^ERR_FLAKE_(SEQUENCE_OVERFLOW|LEASE_EXPIRED|CLOCK_BACKWARDS)$/.test(error.code)) throw error
          break
        }
      }
      await sleep(3)
    }
  })()
  return () => {
    running = false
    return done
  }
}

function assertUnique(...lists) {
  const all = lists.flat().map(({ id }) => String(id))
  assert.equal(new Set(all).size, all.length, `${all.length - new Set(all).size} duplicates`)
}

/** lease-child.js under the fakeclock shim, its clock offset at `slot` of the shims' file. */
function steppedChild(config, slot) {
  const out = path.join(dir, `child-${count++}.log`)
  fs.writeFileSync(out, '')
  const env = { ...shimEnv('fakeclock'), FAKE_SLOT: String(slot) }
  const proc = spawn(process.execPath, [CHILD, JSON.stringify({ ...config, kind: 'etcd', url: server.hosts, out })], {
    stdio: 'ignore',
    env,
  })
  proc.out = out
  proc.exited = new Promise((resolve) => proc.once('exit', resolve))
  proc.lines = () => fs.readFileSync(out, 'utf8').split('\n').slice(0, -1)
  proc.step = (ms) => {
    const offsets = Buffer.alloc(8)
    offsets.writeBigInt64LE(BigInt(ms))
    const fd = fs.openSync(path.join(shims().out, 'offsets'), 'r+')
    fs.writeSync(fd, offsets, 0, 8, slot * 8)
    fs.closeSync(fd)
  }
  return proc
}

async function until(what, check, ms = 20_000) {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`)
    await sleep(20)
  }
}

/** The ids a child wrote, with the ceiling in force as each was issued. */
const idsOf = (lines) =>
  lines
    .filter((line) => line.startsWith('I '))
    .flatMap((line) => {
      const [, ceiling, ...ids] = line.split(' ')
      return ids.map((id) => ({ id: BigInt(id), ceiling: Number(ceiling) }))
    })

describe('etcd has no clock: a holder is judged by the others’ readings', { skip: noServers }, () => {
  const skip = noServers || shims().skip
  for (const [direction, offset] of [
    ['ahead', HOUR],
    ['behind', -HOUR],
  ]) {
    it(`a system clock stepped an hour ${direction} beside a right one: refused, no id or ceiling off the real time, back once it is right`, {
      ...LIMIT,
      skip,
    }, async () => {
      const ns = namespace(`step-${direction}`)
      const settings = { ttl: 1000, maxClockSkewMs: 200 }
      const right = await FlakeId.lease({ store: client, namespace: ns, ids: [0, 0], ...settings })
      const rightIds = []
      const stopRight = issue(right, rightIds)
      const stepped = steppedChild({ namespace: ns, ids: [1, 1], ...settings, mode: 'soak' }, 1)
      try {
        stepped.step(0)
        await until('a lease', () => stepped.lines().some((line) => line.startsWith('F ')))
        const steppedAt = Date.now()
        stepped.step(offset)
        await until('onLost', () => stepped.lines().includes('L ERR_FLAKE_CLOCK_SKEW'))
        // The stepped holder left no ceiling off the real time, and issued nothing there.
        const { records } = await storeFor(client).list({ namespace: ns })
        for (const { id, ceiling } of records)
          assert.ok(ceiling <= Date.now() + 1000 + 200, `id ${id}: ceiling ${ceiling - Date.now()} ms ahead`)
        for (const { id } of idsOf(stepped.lines()))
          assert.ok(Math.abs(timeOf(id) - steppedAt) < 60_000, `id ${id} is of ${new Date(timeOf(id)).toISOString()}`)
        // Right again: it leases again, and issues.
        const fences = stepped.lines().filter((line) => line.startsWith('F ')).length
        const issued = idsOf(stepped.lines()).length
        stepped.step(0)
        await until('a lease again', () => stepped.lines().filter((line) => line.startsWith('F ')).length > fences)
        await until('ids again', () => idsOf(stepped.lines()).length > issued)
        assert.ok(rightIds.length > 0)
        assert.equal(right.lease.id, 0, 'the right clock kept its lease')
      } finally {
        stepped.kill('SIGKILL')
        await stepped.exited
        stepped.step(0)
        await stopRight()
        await right.close()
      }
      assertUnique(rightIds, idsOf(stepped.lines()))
    })
  }

  it('a holder whose clock is an hour behind the others’ is refused at acquire, saying so', {
    ...LIMIT,
    skip,
  }, async () => {
    const ns = namespace('behind-acquire')
    const settings = { ttl: 1000, maxClockSkewMs: 200 }
    const right = await FlakeId.lease({ store: client, namespace: ns, ids: [0, 0], ...settings })
    const stepped = steppedChild({ namespace: ns, ids: [1, 1], ...settings, mode: 'soak' }, 2)
    stepped.step(-HOUR)
    try {
      await stepped.exited
      const [refusal] = stepped.lines().filter((line) => line.startsWith('X '))
      assert.match(refusal ?? '', /^X ERR_FLAKE_CLOCK_SKEW the clock reads \d+ ms behind the lease store's \(etcd3\)/)
      // It took nothing: id 1 is free, at no ceiling of its clock.
      const { records } = await storeFor(client).list({ namespace: ns })
      assert.deepEqual(
        records.filter((r) => r.owner !== null).map((r) => r.id),
        [0],
      )
    } finally {
      stepped.step(0)
      await right.close()
    }
  })
})

describe('etcd keys deleted by hand, and etcd paused', { skip: noServers }, () => {
  it(
    'a held record deleted: its id is leased again above now + ttl + 2 × skew, and no id is issued twice',
    LIMIT,
    async () => {
      const ns = namespace('deleted')
      const settings = { store: client, namespace: ns, ids: [0, 0], ttl: 1000, maxClockSkewMs: 200 }
      const lost = []
      const holder = await FlakeId.lease({ ...settings, onLost: (error) => lost.push(error.code) })
      const ids = []
      const stop = issue(holder, ids)
      await sleep(200)
      const deletedAt = Date.now()
      await client.delete().key(`flake-idgen/${encodeURIComponent(ns)}/id/00000`)
      // Its renewal finds the record gone: it issues up to its ceiling, and leases the id again,
      // above any ceiling the record could have held.
      await until('leased again', () => holder.lease.floor > deletedAt)
      assert.ok(holder.lease.floor >= deletedAt + 1000 + 2 * 200, `floor ${holder.lease.floor - deletedAt} ms on`)
      const before = ids.length
      await until('ids again', () => ids.length > before + 100)
      await stop()
      assert.deepEqual(lost, ['ERR_FLAKE_LEASE_EXPIRED'])
      assertUnique(ids)
      await holder.close()
    },
  )

  it('etcd paused past the ttl: holders stop at their ceilings, and hand over above them', LIMIT, async () => {
    const ns = namespace('paused')
    const settings = { store: client, namespace: ns, ids: [0, 0], ttl: 1000, maxClockSkewMs: 200 }
    const first = await FlakeId.lease(settings)
    const a = []
    const stopA = issue(first, a)
    await sleep(300)
    process.kill(server.pid, 'SIGSTOP')
    let second
    try {
      const waiting = FlakeId.lease({ ...settings, acquireTimeout: 20_000 }).then((g) => (second = g))
      await sleep(2500)
      await stopA()
      for (const { id, ceiling } of a) assert.ok(timeOf(id) <= ceiling, 'nothing past its ceiling')
      process.kill(server.pid, 'SIGCONT')
      await first.close()
      await waiting
    } finally {
      process.kill(server.pid, 'SIGCONT')
    }
    const b = []
    const stopB = issue(second, b)
    await sleep(300)
    await stopB()
    assert.ok(b.length > 0)
    assertUnique(a, b)
    assert.ok(b[0].id > a.at(-1).id, 'above the first holder')
    await second.close()
  })
})

describe('the etcd client', { skip: noServers }, () => {
  it('a namespace() of it leases the same pool: the keys are the lease’s own', LIMIT, async () => {
    const ns = namespace('prefixed')
    const settings = { namespace: ns, ids: [0, 0], ttl: 1000, maxClockSkewMs: 200 }
    const first = await FlakeId.lease({ ...settings, store: client.namespace('app/') })
    await assert.rejects(FlakeId.lease({ ...settings, store: client, acquireTimeout: 300 }), {
      code: 'ERR_FLAKE_NO_FREE_ID',
    })
    const a = first.nextBigInt()
    await first.close()
    const second = await FlakeId.lease({ ...settings, store: client })
    assert.ok(second.nextBigInt() > a)
    await second.close()
  })

  it('replicas are refused: a majority of etcd’s members acknowledges every write', () => {
    assert.equal(storeFor(client).kind, 'etcd3')
    assert.throws(() => storeFor(client, { replicas: 1 }), {
      name: 'TypeError',
      code: 'ERR_FLAKE_INVALID_OPTION',
      message:
        /^option `replicas` must be 0 with etcd \(its writes are acknowledged by a majority of its members\), got 1$/,
    })
  })
})

describe('the command on etcd', { skip: noServers }, () => {
  const ROOT = path.join(__dirname, '..', '..')
  const BIN = path.join(ROOT, 'bin', 'flake-idgen.js')
  const run = (args) => spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 15_000 })

  it("lease list --etcd: each id's holder, expiry and ceiling; a password never shown", async () => {
    const ns = namespace('listed')
    const store = storeFor(client)
    const meta = JSON.stringify({ layout: '42/10/12', epoch: 0, ttl: 60_000, maxClockSkewMs: 0 })
    const base = { namespace: ns, first: 0, last: 1, ttl: 60_000, ahead: 5000, meta, unknownMs: 0 }
    const held = await store.acquire({ ...base, owner: 'host-a:11:aaaa' })
    const freed = await store.acquire({ ...base, owner: 'host-b:22:bbbb' })
    await store.release({ namespace: ns, id: freed.id, owner: 'host-b:22:bbbb', last: freed.floor + 7 })
    const { status, stdout, stderr } = run(['lease', 'list', '--etcd', server.url, '--namespace', ns])
    assert.equal(status, 0, stderr)
    const lines = stdout.split('\n').filter(Boolean)
    assert.match(
      lines[0],
      new RegExp(
        `^namespace "${ns}" in etcd://127\\.0\\.0\\.1:${server.port} \\(etcd3\\) at \\S+ by its clock: meta .*"ttl":60000.*, floor \\S+$`,
      ),
    )
    assert.deepEqual(
      lines.slice(1).map((line) => line.split(/ {2,}/)),
      [
        ['id', 'holder', 'expires', 'ceiling'],
        ['0', 'host-a:11:aaaa', new Date(held.now + 60_000).toISOString(), new Date(held.ceiling).toISOString()],
        ['1', '-', 'free', new Date(freed.floor + 7).toISOString()],
      ],
    )
    const refused = run(['lease', 'list', '--etcd', 'etcd://user:s3cret@127.0.0.1:1', '--namespace', ns])
    assert.equal(refused.status, 1)
    assert.match(
      refused.stderr,
      /^flake-idgen: cannot connect to etcd:\/\/user:\*\*\*@127\.0\.0\.1:1 \(etcd3\): .*ECONNREFUSED/,
    )
    assert.doesNotMatch(refused.stdout + refused.stderr, /s3cret/)
    const wrong = run(['lease', 'list', '--etcd', 'redis://u:s3cret@h', '--namespace', ns])
    assert.deepEqual(
      [wrong.status, wrong.stderr],
      [2, 'flake-idgen: --etcd must be an etcd:// or etcds:// URL, got "redis://u:***@h"\n'],
    )
  })

  it('serve --lease etcd://: serves the leased node id, and releases it on SIGTERM', LIMIT, () =>
    servesLeasedId(storeFor(client), server.url, namespace('serve')),
  )
})

describe('etcd keys given wrong values by hand, and hostile namespaces', { skip: noServers }, () => {
  const META = JSON.stringify({ layout: '42/10/12', epoch: 0, ttl: 1000, maxClockSkewMs: 200 })
  const base = (ns, over = {}) => ({
    namespace: ns,
    first: 0,
    last: 0,
    owner: 'a',
    ttl: 1000,
    ahead: 1200,
    meta: META,
    unknownMs: 1200,
    ...over,
  })
  const keyOf = (ns, name) => `flake-idgen/${encodeURIComponent(ns)}/${name}`

  it('a clock, marker or index entry of other content: ERR_FLAKE_LEASE_SCHEMA naming the key', LIMIT, async () => {
    const store = storeFor(client)
    for (const [name, value] of [
      ['clock', 'x'],
      ['marker', '{"meta":1}'],
    ]) {
      const ns = namespace(`junk-${name}`)
      await store.acquire(base(ns))
      await client.put(keyOf(ns, name)).value(value)
      const misfit = { code: 'ERR_FLAKE_LEASE_SCHEMA', message: new RegExp(`${keyOf(ns, name)} holds`) }
      await assert.rejects(store.acquire(base(ns, { owner: 'b', last: 1 })), misfit)
      await assert.rejects(
        store.renew({ namespace: ns, id: 0, owner: 'a', ttl: 1000, ahead: 1200, meta: META }),
        misfit,
      )
      await assert.rejects(store.list({ namespace: ns }), misfit)
    }
    const ns = namespace('junk-entry')
    await store.acquire(base(ns, { ttl: 1 }))
    await sleep(20)
    const [entry] = await client.getAll().prefix(keyOf(ns, 'held/')).keys()
    await client.put(entry).value('junk')
    await assert.rejects(store.acquire(base(ns, { owner: 'b' })), {
      code: 'ERR_FLAKE_LEASE_SCHEMA',
      message: new RegExp(`${entry} holds "junk"`),
    })
  })

  it(
    'a record’s ceiling lowered by hand, its index entry not: the next holder starts above the ceiling granted',
    LIMIT,
    async () => {
      const store = storeFor(client)
      const ns = namespace('lowered')
      // Held a millisecond, with a ceiling a minute ahead: expired at once, fenced for a minute.
      const held = await store.acquire(base(ns, { ttl: 1, ahead: 60_000 }))
      const record = keyOf(ns, 'id/00000')
      const value = JSON.parse(await client.get(record).string())
      await client.put(record).value(JSON.stringify({ ...value, c: 0 }))
      await sleep(20)
      const next = await store.acquire(base(ns, { owner: 'b' }))
      assert.deepEqual([next.status, next.id], ['acquired', 0])
      assert.ok(next.floor >= held.ceiling, `floor ${next.floor} below the ceiling granted, ${held.ceiling}`)
    },
  )

  it(
    'a clock reading an hour ahead written by hand: holders refused with ERR_FLAKE_CLOCK_SKEW, back once it is deleted',
    LIMIT,
    async () => {
      const ns = namespace('clock-by-hand')
      const settings = { store: client, namespace: ns, ttl: 1000, maxClockSkewMs: 200 }
      const lost = []
      const holder = await FlakeId.lease({ ...settings, ids: [0, 0], onLost: (error) => lost.push(error.code) })
      // Written again until the holder is refused: a renewal that read the clock before it may
      // write its own reading over it.
      const deadline = Date.now() + 20_000
      while (!lost.includes('ERR_FLAKE_CLOCK_SKEW')) {
        assert.ok(Date.now() < deadline, 'onLost within 20 s')
        await client.put(keyOf(ns, 'clock')).value(JSON.stringify({ w: Date.now() + HOUR }))
        await sleep(100)
      }
      await assert.rejects(FlakeId.lease({ ...settings, ids: [1, 1], acquireTimeout: 2000 }), {
        code: 'ERR_FLAKE_CLOCK_SKEW',
        message: /the clock reads \d+ ms behind the lease store's \(etcd3\)/,
      })
      await client.delete().key(keyOf(ns, 'clock'))
      const again = await FlakeId.lease({ ...settings, ids: [1, 1], acquireTimeout: 20_000 })
      assert.equal(again.lease.id, 1)
      await again.close()
      await holder.close()
    },
  )

  it(
    "hostile namespaces ('__proto__', '..', '/', 'a' beside 'a/b' and 'a/id/00000', 200 characters): each its own pool",
    LIMIT,
    async () => {
      const store = storeFor(client)
      const tag = namespace('')
      const names = [
        '__proto__',
        '..',
        '/',
        'a',
        'a/b',
        'a/',
        'a%2Fb',
        'a/id/00000',
        'ü'.repeat(200),
        '😀'.repeat(100),
      ].map((name, i) => (i < 8 ? `${name}${tag}` : name))
      await eachItsOwnPool(store, names, base)
    },
  )

  it(
    'etcd paused past the ttl during a release: close() fails coded, the next holder leases above',
    LIMIT,
    async () => {
      const ns = namespace('paused-release')
      const settings = { store: client, namespace: ns, ids: [0, 0], ttl: 1000, maxClockSkewMs: 200 }
      const first = await FlakeId.lease(settings)
      const a = []
      const stopA = issue(first, a)
      await sleep(300)
      let closing
      process.kill(server.pid, 'SIGSTOP')
      try {
        await stopA()
        closing = first.close().then(
          () => 'closed',
          (error) => error.code,
        )
        await sleep(2500)
      } finally {
        process.kill(server.pid, 'SIGCONT')
      }
      assert.match(await closing, /^(closed|ERR_FLAKE_LEASE_STORE)$/)
      const second = await FlakeId.lease({ ...settings, acquireTimeout: 20_000 })
      const b = []
      const stopB = issue(second, b)
      await until('ids', () => b.length > 0)
      await stopB()
      assertUnique(a, b)
      assert.ok(b[0].id > a.at(-1).id, 'above the first holder')
      await second.close()
    },
  )
})

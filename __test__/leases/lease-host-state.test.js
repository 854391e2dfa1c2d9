'use strict'
// A leased generator shares its id's host state (issue 39, item 1): every generator of an id
// and layout on a host draws from one state, however it had the id (given, or leased from any
// namespace), and a leased one is also fenced by its own ceiling. Against a real redis-server;
// ids are written to files by the processes that issue them and counted here.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { setTimeout: sleep } = require('node:timers/promises')
const Redis = require('ioredis')
const FlakeId = require('../..')
const { noServers, startRedis } = require('../support/servers.js')

const CHILD = path.join(__dirname, '..', 'support', 'lease-host-child.js')
const FAKECLOCK = path.join(__dirname, '..', 'support', 'faults', 'fakeclock.c')
const LIMIT = { timeout: 120_000 }
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-lease-host-'))
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }))

let server
let redis
let made = 0
const fresh = (what) => `${what}-${process.pid}-${made++}`

before(async () => {
  if (noServers) return
  server = await startRedis()
  redis = new Redis(server.url, { maxRetriesPerRequest: 1 })
  redis.on('error', () => {})
})

after(async () => {
  redis?.disconnect()
  await server?.stop()
})

/** The time (ms since 1970) of a default-layout id. */
const timeOf = (id) => Number(BigInt(id) >> 22n)
const nodeOf = (id) => Number((BigInt(id) >> 12n) & 0x3ffn)

const take = (generator, count) => Array.from({ length: count }, () => generator.nextBigInt())

/** Starts lease-host-child.js with `config`, in state directory `stateDir`. */
function child(config, stateDir, env = {}) {
  const name = fresh('child')
  const files = {
    out: path.join(dir, name),
    ready: path.join(dir, `${name}.json`),
    go: path.join(dir, 'go', name),
  }
  const proc = spawn(process.execPath, [CHILD, JSON.stringify({ url: server.url, ...config, ...files })], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FLAKE_IDGEN_STATE_DIR: stateDir, ...env },
  })
  let stderr = ''
  proc.stderr.on('data', (chunk) => (stderr += chunk))
  proc.files = files
  proc.count = (config.leases?.length ?? 0) + (config.plain === null ? 0 : 1)
  proc.exited = new Promise((resolve) => proc.once('exit', (code) => resolve({ code, stderr })))
  return proc
}

/** The lines `proc` wrote to its ready file, once it wrote `lines`; throws what it failed with. */
async function lines(proc, count) {
  const deadline = Date.now() + 60_000
  for (;;) {
    const text = fs.existsSync(proc.files.ready) ? fs.readFileSync(proc.files.ready, 'utf8') : ''
    const written = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
    const failed = written.find((line) => line.error !== undefined)
    if (failed) throw new Error(`the child failed: ${failed.error}`)
    if (written.length >= count) return written
    if (Date.now() > deadline) throw new Error(`the child wrote no ready line: ${(await proc.exited).stderr}`)
    await sleep(20)
  }
}

/** Runs the children together: each gets ready (its leases had), then all issue at once. */
async function together(procs) {
  let ready
  try {
    ready = await Promise.all(procs.map((proc) => lines(proc, 1)))
  } catch (error) {
    // One failed: the others would wait for the word to go.
    for (const proc of procs) proc.kill('SIGKILL')
    throw error
  }
  fs.mkdirSync(path.join(dir, 'go'), { recursive: true })
  for (const proc of procs) fs.writeFileSync(proc.files.go, '')
  const exits = await Promise.all(procs.map((proc) => proc.exited))
  for (const { code, stderr } of exits) assert.equal(code, 0, stderr)
  const done = await Promise.all(procs.map((proc) => lines(proc, 2)))
  return procs.map((proc, k) => ({
    ready: ready[k][0],
    done: done[k][1],
    ids: Array.from({ length: proc.count }, (_, g) => readIds(`${proc.files.out}-${g}.bin`)),
  }))
}

/** The ids a child wrote (bigints in this machine's byte order). */
function readIds(file) {
  const bytes = fs.readFileSync(file)
  const ids = new BigUint64Array(bytes.length / 8)
  new Uint8Array(ids.buffer).set(bytes)
  return ids
}

/** How many of `lists`' ids repeat an id before them, all lists counted as one. */
function duplicates(...lists) {
  const all = new BigUint64Array(lists.reduce((sum, list) => sum + list.length, 0))
  let at = 0
  for (const list of lists) {
    all.set(list, at)
    at += list.length
  }
  all.sort()
  let repeated = 0
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) repeated++
  return repeated
}

/** Asserts every id of a lease's `ids` is of generator `id`, above `floor`, at most `ceiling`. */
function withinFence(ids, { id, floor, ceiling }) {
  for (const issued of ids) {
    assert.equal(nodeOf(issued), id)
    assert.ok(timeOf(issued) > floor, `id ${issued} is above its floor ${floor}`)
    assert.ok(timeOf(issued) <= ceiling, `id ${issued} is at most its last ceiling ${ceiling}`)
  }
}

describe('a leased generator shares its id’s host state', { skip: noServers }, () => {
  it(
    "issue 39: leases of id 0 from namespaces 'users' and 'orders' beside new FlakeId({ id: 0 }), and new FlakeId({ id: 0 }) in another process, in one state directory: no id twice",
    LIMIT,
    async () => {
      const stateDir = fs.mkdtempSync(path.join(dir, 'state-'))
      const leased = child(
        { id: 0, ms: 1000, leases: [{ namespace: 'users' }, { namespace: 'orders' }], plain: {} },
        stateDir,
      )
      const plain = child({ id: 0, ms: 1000, leases: [], plain: {} }, stateDir)
      const [a, b] = await together([leased, plain])
      const lists = [...a.ids, ...b.ids]
      for (const list of lists) assert.ok(list.length > 100, `each generator issued (${list.length} ids)`)
      const total = lists.reduce((sum, list) => sum + list.length, 0)
      assert.equal(duplicates(...lists), 0, `duplicates among ${total} ids`)
      assert.deepEqual(a.ready.scopes, ['host', 'host', 'host'])
      assert.deepEqual(b.ready.scopes, ['host'])
      // Each lease is still fenced by its own: above its floor, up to its ceiling.
      withinFence(a.ids[0], a.done.fences[0])
      withinFence(a.ids[1], a.done.fences[1])
    },
  )

  it(
    'two copies of the package’s JS in one thread (a lease in one, new FlakeId in the other) and another process: no id twice',
    LIMIT,
    async () => {
      const stateDir = fs.mkdtempSync(path.join(dir, 'state-'))
      const leased = child(
        { id: 1, ms: 600, leases: [{ namespace: fresh('copies') }], plain: {}, copy: true },
        stateDir,
      )
      const plain = child({ id: 1, ms: 600, leases: [], plain: {} }, stateDir)
      const [a, b] = await together([leased, plain])
      const lists = [...a.ids, ...b.ids]
      for (const list of lists) assert.ok(list.length > 100, `each generator issued (${list.length} ids)`)
      const total = lists.reduce((sum, list) => sum + list.length, 0)
      assert.equal(duplicates(...lists), 0, `duplicates among ${total} ids`)
      assert.deepEqual(a.ready.scopes, ['host', 'host'])
    },
  )

  it(
    "scope: 'process' opts out of host state: leases of the id from two namespaces and new FlakeId({ scope: 'process' }) share the process's state, and never repeat each other",
    LIMIT,
    async () => {
      const stateDir = fs.mkdtempSync(path.join(dir, 'state-'))
      const leases = [
        { namespace: fresh('users'), scope: 'process' },
        { namespace: fresh('orders'), scope: 'process' },
      ]
      const inProcess = child({ id: 2, ms: 600, leases, plain: { scope: 'process' } }, stateDir)
      const onHost = child({ id: 2, ms: 600, leases: [], plain: {} }, stateDir)
      const [a, b] = await together([inProcess, onHost])
      assert.deepEqual(a.ready.scopes, ['process', 'process', 'process'])
      for (const list of a.ids) assert.ok(list.length > 100, `each generator issued (${list.length} ids)`)
      assert.equal(duplicates(...a.ids), 0, 'one process state: no id twice among them')
      assert.equal(duplicates(...b.ids), 0)
      // Against the host's generators of the id they are unfenced, as documented: not asserted.
    },
  )

  it(
    'a lease on host state issues nothing past its ceiling once renewals stop, on every path; the id’s other generators go on',
    LIMIT,
    async () => {
      const id = 3
      const generator = await FlakeId.lease({
        store: redis,
        namespace: fresh('ceiling'),
        ids: [id, id],
        ttl: 600,
        maxClockSkewMs: 100,
      })
      const plain = new FlakeId({ id })
      assert.equal(generator.scope, 'host')
      const issued = []
      let expired
      let waiting
      // The store stops answering: no renewal is acknowledged, the ceiling stands.
      process.kill(server.pid, 'SIGSTOP')
      try {
        const deadline = Date.now() + 30_000
        while (expired === undefined && Date.now() < deadline) {
          const { ceiling } = generator.lease
          for (let i = 0; i < 50 && expired === undefined; i++) {
            try {
              issued.push({ id: generator.nextBigInt(), ceiling })
            } catch (error) {
              if (error.code === 'ERR_FLAKE_LEASE_EXPIRED') expired = error
              else if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
            }
          }
          // Ids of the same state, between the lease's: the state goes on past the lease's fence.
          issued.push({ id: plain.nextBigInt() })
          await sleep(2)
        }
        assert.ok(expired, 'next() threw ERR_FLAKE_LEASE_EXPIRED')
        const { ceiling } = generator.lease
        const leased = issued.filter((entry) => entry.ceiling !== undefined)
        assert.ok(leased.length > 0)
        for (const entry of leased) assert.ok(timeOf(entry.id) <= entry.ceiling, `id ${entry.id} within its ceiling`)
        const expiredCode = { code: 'ERR_FLAKE_LEASE_EXPIRED' }
        assert.throws(() => generator.next(), expiredCode)
        assert.throws(() => generator.nextString(), expiredCode)
        assert.throws(() => generator.nextBatch(10), expiredCode)
        // Waiting calls wait for a renewal, which the stopped store cannot give.
        waiting = Promise.all([
          generator.nextAsync(),
          new Promise((resolve, reject) => generator.next((error, id) => (error ? reject(error) : resolve(id)))),
          generator.nextBatchAsync(3),
        ])
        const raced = await Promise.race([waiting.then(() => 'issued'), sleep(200).then(() => 'waiting')])
        assert.equal(raced, 'waiting', 'nothing is issued past the ceiling while the store is stopped')
        // The plain generator of the id is not fenced by the lease: it issues past its ceiling.
        const after = plain.nextBigInt()
        assert.ok(timeOf(after) > ceiling)
        issued.push({ id: after })
      } finally {
        process.kill(server.pid, 'SIGCONT')
      }
      // A renewal (or a new lease above the old ceiling) lets the waiting calls go on.
      const [promised, called, batch] = await waiting
      const later = [promised, called].map((id) => id.readBigUInt64BE(0))
      for (let at = 0; at < batch.length; at += 8) later.push(batch.readBigUInt64BE(at))
      const { ceiling } = generator.lease
      for (const id of later) assert.ok(timeOf(id) <= ceiling)
      const all = [...issued.map((entry) => entry.id), ...later]
      assert.equal(new Set(all.map(String)).size, all.length)
      await generator.close()
    },
  )

  it('a release hands over the last id its holder issued, not a later one of the shared state', LIMIT, async () => {
    const id = 4
    const options = { store: redis, namespace: fresh('release'), ids: [id, id], ttl: 1000, maxClockSkewMs: 100 }
    const holder = await FlakeId.lease(options)
    const plain = new FlakeId({ id })
    const mine = take(holder, 100)
    const last = timeOf(mine[mine.length - 1])
    // The plain generator moves the shared state on, to later milliseconds than the holder's.
    await sleep(5)
    const theirs = take(plain, 100)
    assert.ok(timeOf(theirs[0]) > last)
    await holder.close()
    const next = await FlakeId.lease(options)
    assert.equal(next.lease.floor, last, "the successor's floor is the holder's own last id")
    const after = take(next, 100)
    for (const issued of after) assert.ok(timeOf(issued) > last)
    const all = [...mine, ...theirs, ...after, ...take(plain, 100)]
    assert.equal(new Set(all.map(String)).size, all.length)
    await next.close()
  })

  it('lease options scope and stateDir: checked as new FlakeId checks them', async () => {
    const cases = [
      [{ scope: 'cluster' }, /option `scope` must be 'host' or 'process', got "cluster"/],
      [{ stateDir: 'relative/dir' }, /option `stateDir` must be an absolute path/],
      [{ scope: 'process', stateDir: dir }, /option `stateDir` must be unset with scope 'process'/],
      [{ scope: 'host', clock: Date.now }, /option `scope` must be 'process' or unset with a `clock` option/],
    ]
    for (const [options, message] of cases) {
      await assert.rejects(FlakeId.lease({ store: redis, namespace: fresh('options'), ...options }), {
        code: 'ERR_FLAKE_INVALID_OPTION',
        message,
      })
    }
    // A stateDir of its own: the lease issues from that directory's state of its id.
    const stateDir = fs.mkdtempSync(path.join(dir, 'state-'))
    const generator = await FlakeId.lease({
      store: redis,
      namespace: fresh('dir'),
      ids: [5, 5],
      ttl: 1000,
      maxClockSkewMs: 100,
      stateDir,
    })
    assert.equal(generator.scope, 'host')
    assert.deepEqual(generator.options.stateDir, stateDir)
    take(generator, 10)
    assert.ok(
      fs.readdirSync(stateDir).some((name) => name.endsWith('.state')),
      'its state file is in stateDir',
    )
    await generator.close()
  })

  it(
    'a state directory that cannot be used fails the lease before its floor, and hands the id back at once',
    LIMIT,
    async () => {
      const options = { store: redis, namespace: fresh('unusable'), ids: [7, 7], ttl: 1000, maxClockSkewMs: 100 }
      const notDir = path.join(dir, fresh('a-file'))
      fs.writeFileSync(notDir, '')
      await assert.rejects(FlakeId.lease({ ...options, stateDir: notDir }), { code: /^ERR_FLAKE_STATE_/ })
      // Released, not left to expire: the only id of the pool is free within a short timeout.
      const generator = await FlakeId.lease({ ...options, acquireTimeout: 300 })
      assert.equal(generator.id, 7)
      await generator.close()
    },
  )
})

// fakeclock.c (the faults' per-process clock shifter) built here: a clock stepped back after the
// lease was installed, below its floor.
const gcc = (() => {
  if (process.platform !== 'linux') return undefined
  try {
    const out = path.join(dir, 'fakeclock.so')
    execFileSync('gcc', ['-O2', '-shared', '-fPIC', '-o', out, FAKECLOCK, '-ldl'], { stdio: 'ignore' })
    return out
  } catch {
    return undefined
  }
})()

describe('a floor above the clock', {
  skip: noServers || (gcc === undefined && 'needs gcc and Linux for the clock shim'),
}, () => {
  it(
    'holds on the shared state: a clock stepped back below the floor after the lease is had issues nothing at or below it',
    LIMIT,
    async () => {
      const stateDir = fs.mkdtempSync(path.join(dir, 'state-'))
      const offsets = path.join(dir, fresh('offsets'))
      fs.writeFileSync(offsets, Buffer.alloc(4096))
      const script = `
      const fs = require('node:fs')
      const FlakeId = require(${JSON.stringify(path.join(__dirname, '..', '..'))})
      const Redis = require('ioredis')
      const redis = new Redis(${JSON.stringify(server.url)}, { maxRetriesPerRequest: 1 })
      redis.on('error', () => {})
      const answer = (value) => { process.stdout.write(JSON.stringify(value)); process.exit(0) }
      const attempt = (generator) => { try { return String(generator.nextBigInt()) } catch (error) { return error.code } }
      // Made first, so that the state file starts (its start is its first mapping's clock) well
      // before the floor: the step back below lands after the file's start.
      const plain = new FlakeId({ id: 6 })
      FlakeId.lease({ store: redis, namespace: ${JSON.stringify(fresh('floor'))}, ids: [6, 6], ttl: 1000, maxClockSkewMs: 200 }).then((generator) => {
        const { floor } = generator.lease
        // Back to 600 ms below the floor, at once: this process's clock alone.
        const offset = Buffer.alloc(8)
        offset.writeBigInt64LE(BigInt(floor - 600 - Date.now()))
        const fd = fs.openSync(${JSON.stringify(offsets)}, 'r+')
        fs.writeSync(fd, offset, 0, 8, 0)
        fs.closeSync(fd)
        answer({ floor, now: Date.now(), leased: attempt(generator), plain: attempt(plain) })
      }, (error) => answer({ error: error.code + ' ' + error.message }))
    `
      const out = execFileSync(process.execPath, ['-e', script], {
        env: {
          ...process.env,
          FLAKE_IDGEN_STATE_DIR: stateDir,
          LD_PRELOAD: gcc,
          FAKE_OFFSET_FILE: offsets,
          FAKE_SLOT: '0',
        },
        timeout: 60_000,
      })
      const answer = JSON.parse(out)
      assert.equal(answer.error, undefined)
      assert.ok(answer.now < answer.floor, 'the clock stepped back below the floor')
      // The shared state was raised above the floor: its leased and plain generators alike refuse.
      assert.equal(answer.leased, 'ERR_FLAKE_CLOCK_BACKWARDS')
      assert.equal(answer.plain, 'ERR_FLAKE_CLOCK_BACKWARDS')
    },
  )
})

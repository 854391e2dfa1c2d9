'use strict'
// Issue 41: FlakeId.client() and flake-idgen-rs/client against real members on loopback: its
// options, sync ids from a prefetched batch only, one request in flight with callers answered
// in order, a refill before the batch runs out, batches dropped past their validity, a random
// member then the others, a coded error naming every member when none serves. The subpath loads
// no native binary: in Node run with --no-addons, in Deno without --allow-ffi, and in Bun.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const https = require('node:https')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile, execFileSync } = require('node:child_process')
const { promisify } = require('node:util')
const { setTimeout: sleep } = require('node:timers/promises')
const FlakeId = require('../..')
const client = require('../../client.js')
const { VIA } = require('../../lib/client/transport.js')
const { devRuntime } = require('../support/dev-runtime.js')
const { listening, deadUrl } = require('../support/loopback.js')

const ROOT = path.join(__dirname, '..', '..')

/** Why the `runtime` check cannot run here (its devDependency is Linux's, or missing), or false. */
const skipRuntime = (runtime) =>
  (process.platform !== 'linux' && `the ${runtime} devDependency is installed for Linux, where CI runs it`) ||
  devRuntime(runtime).skip ||
  false

const TOKEN = 'client-test-token'

/** A member of `generator` on a free loopback port; `seen` counts its requests, at most how many at once. */
async function member(generator, { delayMs = 0 } = {}) {
  const handler = generator.batchHandler({ token: TOKEN })
  const seen = { requests: 0, inFlight: 0, most: 0, counts: [] }
  const server = http.createServer((req, res) => {
    seen.requests++
    seen.most = Math.max(seen.most, ++seen.inFlight)
    seen.counts.push(Number(new URL(req.url, 'http://x').searchParams.get('count')))
    res.on('close', () => seen.inFlight--)
    if (delayMs > 0) setTimeout(() => handler(req, res), delayMs)
    else handler(req, res)
  })
  return { ...(await listening(server)), seen, handler }
}

/** Resolves once `check()` holds, polling; fails after `ms`. */
async function until(check, what, ms = 20_000) {
  const deadline = Date.now() + ms
  while (!check()) {
    assert.ok(Date.now() < deadline, `${what} within ${ms} ms`)
    await sleep(5)
  }
}

// Every behaviour through each transport: node:http, which Node uses, and fetch, which Deno, Bun
// and edge runtimes use (lib/client/transport.js).
for (const via of ['http', 'fetch'])
  describe(`FlakeId.client over ${via}`, { timeout: 60_000 }, () => {
    /** A client over `via`. */
    const make = (options) => client({ ...options, [VIA]: via })
    let generator, one, two
    before(async () => {
      generator = new FlakeId({ id: 40 })
      one = await member(generator)
      two = await member(new FlakeId({ id: 41 }))
    })
    after(() => {
      one.close()
      two.close()
    })

    it('checks its options, naming the option and the value', () => {
      const cases = [
        [undefined, TypeError, /options must be an object, got undefined/],
        [{}, TypeError, /option `members` must be a non-empty array of member URLs, got undefined/],
        [{ members: [] }, RangeError, /option `members` must be a non-empty array/],
        [
          { members: ['ftp://x/'] },
          RangeError,
          /option `members\[0\]` must be an http: or https: URL .*, got "ftp:\/\/x\/"/,
        ],
        [{ members: [5] }, TypeError, /option `members\[0\]` must be an http: or https: URL .*, got 5/],
        [
          { members: ['http://u:s3cret@127.0.0.1/'] },
          RangeError,
          /option `members\[0\]` must be .* with no user or password .*, got "http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1\/"$/,
        ],
        [{ members: [one.url], token: 5 }, TypeError, /option `token` must be a non-empty string, or left out, got 5/],
        [
          { members: [one.url], prefetchCount: 0 },
          RangeError,
          /option `prefetchCount` must be an integer from 1 to 100000, got 0/,
        ],
        [
          { members: [one.url], prefetchCount: '5' },
          TypeError,
          /option `prefetchCount` must be an integer .*, got "5"/,
        ],
        [
          { members: [one.url], prefetchValidityMs: -1 },
          RangeError,
          /option `prefetchValidityMs` must be an integer from 0/,
        ],
        [
          { members: [one.url], prefetchCont: 5 },
          TypeError,
          /^FlakeId\.client\(\) has no option "prefetchCont" \(did you mean "prefetchCount"\?\)$/,
        ],
      ]
      for (const [options, Kind, message] of cases) {
        assert.throws(
          () => FlakeId.client(options),
          (error) => {
            assert.ok(error instanceof Kind, `${error.name}: ${error.message}`)
            assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
            assert.match(error.message, message)
            return true
          },
        )
      }
      const c = make({ members: [one.url], token: TOKEN })
      assert.rejects(c.nextBatchAsync(0), { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' })
      assert.throws(() => c.next('cb'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
      c.close()
    })

    it('sync calls throw ERR_FLAKE_NO_PREFETCHED_ID until a batch is at hand, then issue from it', async () => {
      const c = make({ members: [one.url], token: TOKEN, prefetchCount: 50 })
      assert.throws(() => c.next(), { code: 'ERR_FLAKE_NO_PREFETCHED_ID' })
      assert.throws(() => c.nextBigInt(), { code: 'ERR_FLAKE_NO_PREFETCHED_ID' })
      // The failed sync call started the fetch.
      await until(() => c.stats().prefetched > 0, 'a batch')
      const id = c.next()
      assert.equal(id.length, 8)
      assert.equal(FlakeId.decompose(id).id, 40)
      assert.equal(typeof c.nextBigInt(), 'bigint')
      assert.match(c.nextString(), /^\d+$/)
      const viaCallback = await new Promise((resolve, reject) =>
        c.next((error, got) => (error ? reject(error) : resolve(got))),
      )
      assert.equal(viaCallback.length, 8)
      c.close()
      assert.throws(() => c.next(), { code: 'ERR_FLAKE_CLIENT_CLOSED' })
      await assert.rejects(c.nextAsync(), { code: 'ERR_FLAKE_CLIENT_CLOSED' })
    })

    it('close() ends the request in flight at once, not at timeoutMs, and its caller rejects', async () => {
      // A member that never answers.
      let inFlight = 0
      const silent = await listening(
        http.createServer((_req, res) => {
          inFlight++
          res.on('close', () => inFlight--)
        }),
      )
      try {
        const c = make({ members: [silent.url], token: TOKEN, timeoutMs: 120_000 })
        const pending = c.nextAsync()
        await until(() => inFlight === 1, 'the request at the member')
        c.close()
        await assert.rejects(pending, { code: 'ERR_FLAKE_CLIENT_CLOSED' })
        await until(() => inFlight === 0, 'the request ended by close()')
      } finally {
        silent.close()
      }
    })

    it('keeps one request in flight, answers waiting callers in order, and never issues an id twice', async () => {
      const slow = await member(new FlakeId({ id: 42 }), { delayMs: 20 })
      try {
        const c = make({ members: [slow.url], token: TOKEN, prefetchCount: 30 })
        const order = []
        const calls = []
        for (let k = 0; k < 200; k++) {
          const n = 1 + (k % 7)
          const call = k % 2 === 0 ? c.nextAsync() : c.nextBatchAsync(n)
          calls.push(
            call.then((ids) => {
              order.push(k)
              return ids
            }),
          )
        }
        const all = await Promise.all(calls)
        assert.deepEqual(
          order,
          Array.from({ length: 200 }, (_, k) => k),
          'answered in the order asked',
        )
        assert.equal(slow.seen.most, 1, 'one request in flight')
        const hex = all.flatMap((ids) =>
          Array.from({ length: ids.length / 8 }, (_, k) => ids.toString('hex', k * 8, k * 8 + 8)),
        )
        assert.equal(new Set(hex).size, hex.length)
        c.close()
      } finally {
        slow.close()
      }
    })

    it('a caller resumed by a batch that takes it all synchronously, then waits, is answered', {
      timeout: 15_000,
    }, async () => {
      const c = make({ members: [one.url], token: TOKEN, prefetchCount: 20 })
      let taken = 0
      while (taken < 500) {
        try {
          c.next()
          taken++
        } catch (error) {
          assert.equal(error.code, 'ERR_FLAKE_NO_PREFETCHED_ID')
          taken += (await c.nextBatchAsync(3)).length / 8
        }
      }
      c.close()
    })

    it('refills before the batch runs out: a steady caller finds its ids at hand', async () => {
      const c = make({ members: [one.url], token: TOKEN, prefetchCount: 100 })
      await c.nextAsync()
      const requests = one.seen.requests
      // Past half the batch, the next one is asked for while 49 ids are left.
      for (let k = 0; k < 51; k++) c.next()
      await until(() => one.seen.requests > requests && c.stats().prefetched > 100, 'a refill')
      assert.ok(c.stats().prefetched >= 149, `${c.stats().prefetched} left`)
      c.close()
    })

    it('drops a batch older than prefetchValidityMs; a fresh one is fetched', async () => {
      const c = make({ members: [one.url], token: TOKEN, prefetchCount: 1000, prefetchValidityMs: 100 })
      const first = await c.nextAsync()
      await sleep(200)
      assert.throws(() => c.next(), { code: 'ERR_FLAKE_NO_PREFETCHED_ID' })
      const fresh = await c.nextAsync()
      const at = (id) => Number(FlakeId.decompose(id).timestamp)
      assert.ok(at(fresh) - at(first) >= 100, 'the next id is from a batch taken after the old one expired')
      assert.ok(c.stats().dropped >= 998)
      c.close()
    })

    it('goes to another member when one fails; when all fail, names each', async () => {
      const dead = await deadUrl()
      const c = make({ members: [dead, two.url], token: TOKEN, prefetchCount: 1 })
      for (let k = 0; k < 30; k++) assert.equal(FlakeId.decompose(await c.nextAsync()).id, 41)
      assert.ok(c.stats().failovers > 0, 'the dead member was asked first at least once in 30')
      c.close()

      const wrongToken = make({ members: [dead, one.url], token: 'not-the-token' })
      await assert.rejects(wrongToken.nextAsync(), (error) => {
        assert.equal(error.code, 'ERR_FLAKE_MEMBERS_UNAVAILABLE')
        assert.ok(error.message.includes(dead) && error.message.includes(one.url), error.message)
        assert.match(error.message, /ERR_FLAKE_UNAUTHORIZED/)
        return true
      })
      wrongToken.close()
    })

    it('passes over a member of another layout than the first one served', async () => {
      const other = await member(new FlakeId({ id: 3, layout: 'hazelcast' }))
      try {
        const c = make({ members: [one.url, other.url], token: TOKEN, prefetchCount: 1 })
        const ids = []
        for (let k = 0; k < 30; k++) ids.push(await c.nextAsync())
        // Whichever member served first, every id is of its layout: the other is passed over.
        const nodes = (layout) => new Set(ids.map((id) => FlakeId.decompose(id, { layout }).id))
        const [flake, hazelcast] = [nodes('flake-idgen'), nodes('hazelcast')]
        assert.ok(
          (flake.size === 1 && flake.has(40)) || (hazelcast.size === 1 && hazelcast.has(3)),
          `one layout's ids: ${[...flake]} / ${[...hazelcast]}`,
        )
        assert.ok(c.stats().failovers > 0, 'the other member was asked first at least once in 30')
        c.close()
      } finally {
        other.close()
      }
    })

    it('passes over a member whose answer is cut off mid-body, at once, not at timeoutMs', async () => {
      // Headers that promise 64 bytes, 8 of them, then the connection reset: a member killed mid-answer.
      const cut = await listening(
        http.createServer((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/vnd.flake-idgen.batch', 'content-length': 64 })
          res.write(Buffer.alloc(8, 1))
          setImmediate(() => res.socket.destroy())
        }),
      )
      try {
        const c = make({ members: [cut.url, two.url], token: TOKEN, prefetchCount: 1, timeoutMs: 120_000 })
        for (let k = 0; k < 30; k++) assert.equal(FlakeId.decompose(await c.nextAsync()).id, 41)
        assert.ok(c.stats().failovers > 0, 'the cut-off member was asked first at least once in 30')
        c.close()

        const alone = make({ members: [cut.url], token: TOKEN, timeoutMs: 120_000 })
        await assert.rejects(alone.nextAsync(), (error) => {
          assert.equal(error.code, 'ERR_FLAKE_MEMBERS_UNAVAILABLE')
          assert.ok(error.message.includes(cut.url), error.message)
          assert.doesNotMatch(error.message, /timeout/i)
          return true
        })
        alone.close()
      } finally {
        cut.close()
      }
    })

    it('passes over a member that does not answer within timeoutMs; alone, says so', async () => {
      const silent = await listening(http.createServer(() => {}))
      try {
        const c = make({ members: [silent.url, two.url], token: TOKEN, prefetchCount: 1, timeoutMs: 200 })
        for (let k = 0; k < 10; k++) assert.equal(FlakeId.decompose(await c.nextAsync()).id, 41)
        c.close()

        const alone = make({ members: [silent.url], token: TOKEN, timeoutMs: 200 })
        await assert.rejects(alone.nextAsync(), (error) => {
          assert.equal(error.code, 'ERR_FLAKE_MEMBERS_UNAVAILABLE')
          assert.match(error.message, /no answer within the timeout/)
          return true
        })
        alone.close()
      } finally {
        silent.close()
      }
    })

    it('takes its batches from an https member whose certificate it trusts', async () => {
      const tls = path.join(__dirname, '..', 'support', 'tls')
      const handler = new FlakeId({ id: 45 }).batchHandler({ token: TOKEN })
      const secure = await listening(
        https.createServer(
          {
            key: fs.readFileSync(path.join(tls, 'loopback-key.pem')),
            cert: fs.readFileSync(path.join(tls, 'loopback-cert.pem')),
          },
          handler,
        ),
        'https',
      )
      // A child trusting the test's certificate (NODE_EXTRA_CA_CERTS is read at start-up only).
      const script = `const client = require(${JSON.stringify(path.join(ROOT, 'client.js'))});
      const { VIA } = require(${JSON.stringify(path.join(ROOT, 'lib', 'client', 'transport.js'))});
      const c = client({ members: [${JSON.stringify(secure.url)}], token: ${JSON.stringify(TOKEN)}, [VIA]: ${JSON.stringify(via)} });
      c.nextBatchAsync(5).then((ids) => { console.log(ids.toString('hex')); c.close() }, (error) => { console.error(error.message); process.exit(1) });`
      try {
        const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], {
          timeout: 30_000,
          env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(tls, 'loopback-cert.pem') },
        })
        const ids = Buffer.from(stdout.trim(), 'hex')
        assert.equal(ids.length, 40)
        for (let k = 0; k < 5; k++) assert.equal(FlakeId.decompose(ids.subarray(k * 8, k * 8 + 8)).id, 45)
      } finally {
        secure.close()
      }
    })
  })

describe('the client in Node asks members through node:http', { timeout: 60_000 }, () => {
  it('never calls fetch (a request through it cost more than the member spent serving it)', async () => {
    const m = await member(new FlakeId({ id: 46 }))
    const { fetch } = globalThis
    globalThis.fetch = () => {
      throw new Error('fetch was called')
    }
    try {
      const c = client({ members: [m.url], token: TOKEN, prefetchCount: 10 })
      const ids = await c.nextBatchAsync(25)
      assert.equal(ids.length, 200)
      c.close()
    } finally {
      globalThis.fetch = fetch
      m.close()
    }
  })
})

describe('flake-idgen-rs/client loads no native binary', { timeout: 60_000 }, () => {
  let m
  before(async () => {
    m = await member(new FlakeId({ id: 44 }))
  })
  after(() => m.close())

  // The binaries loaded: a .node, or binding.js, which alone loads the WebAssembly build (in a
  // checkout with both builds, the package under --no-addons loads that one instead).
  const BINDINGS = `Object.keys(require.cache).filter((file) => file.endsWith('.node') || file === ${JSON.stringify(path.join(ROOT, 'binding.js'))})`
  const script = (url) =>
    `const client = require(${JSON.stringify(path.join(ROOT, 'client.js'))});
     const c = client({ members: [${JSON.stringify(url)}], token: ${JSON.stringify(TOKEN)} });
     c.nextAsync().then((id) => {
       const native = ${BINDINGS};
       console.log(JSON.stringify({ length: id.length, native }));
       c.close();
     });`

  // Run asynchronously: the member answering them is in this process.
  const run = (binary, args) => promisify(execFile)(binary, args, { timeout: 30_000, cwd: ROOT })

  it('in Node with --no-addons, where loading one throws', async () => {
    const { stdout } = await run(process.execPath, ['--no-addons', '-e', script(m.url)])
    assert.deepEqual(JSON.parse(stdout), { length: 8, native: [] })
  })

  // Deno refuses a native addon without --allow-ffi: given only the network and reads, the
  // client runs. Bun loads addons freely: its require.cache shows none was.
  for (const [runtime, args] of [
    ['deno', ['run', '--allow-net', '--allow-read', '--allow-env']],
    ['bun', ['run']],
  ]) {
    it(`in ${runtime[0].toUpperCase()}${runtime.slice(1)}`, {
      skip: skipRuntime(runtime),
    }, async () => {
      const file = path.join(os.tmpdir(), `flake-idgen-client-${runtime}-${process.pid}.cjs`)
      fs.writeFileSync(file, script(m.url))
      try {
        const { stdout } = await run(devRuntime(runtime).binary, [...args, file])
        assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)), { length: 8, native: [] })
      } finally {
        fs.rmSync(file, { force: true })
      }
    })
  }

  it('the package itself does load one, so the check can fail', () => {
    const loads = `require(${JSON.stringify(ROOT)}); console.log(JSON.stringify(${BINDINGS}))`
    const printed = execFileSync(process.execPath, ['-e', loads], { encoding: 'utf8', cwd: ROOT })
    assert.notDeepEqual(JSON.parse(printed.trim().split('\n').at(-1)), [])
  })
})

'use strict'
// Issue 50, part 3: members that answer wrongly. Fake members (plain node:http servers) answer
// with an endless body, a body longer than any batch, an 8 MB error body with escape codes, and
// each redirect status to a real member on another origin; the client, through node:http and
// fetch in Node, and in Bun and Deno, ends each with a coded error, reads no more than the
// largest batch it asked for, quotes only a short escaped excerpt, and hands out no id of the
// redirect's target. A token that cannot be a header's value is refused as an option.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { promisify } = require('node:util')
const { setTimeout: sleep } = require('node:timers/promises')
const FlakeId = require('../..')
const client = require('../../client.js')
const { VIA } = require('../../lib/client/transport.js')
const { devRuntime } = require('../support/dev-runtime.js')
const { listening } = require('../support/loopback.js')

const ROOT = path.join(__dirname, '..', '..')
const TOKEN = 'client-transport-test-token'
const BATCH = 'application/vnd.flake-idgen.batch'
// What a fake endless member writes at most, should a client read on: enough to tell a capped
// read (a few KiB, plus what loopback's socket buffers hold) from one that reads on.
const ENDLESS_BYTES = 64 * 1024 * 1024
// What socket buffers may hold on loopback before a client's close is seen: well under ENDLESS_BYTES.
const BUFFERED_BYTES = 16 * 1024 * 1024
const REDIRECTS = [301, 302, 303, 307, 308]

/** Resolves once `check()` holds, polling; fails after `ms`. */
async function until(check, what, ms = 20_000) {
  const deadline = Date.now() + ms
  while (!check()) {
    assert.ok(Date.now() < deadline, `${what} within ${ms} ms`)
    await sleep(5)
  }
}

/**
 * A fake member answering each request with `head` (status, headers) and then `ENDLESS_BYTES` of
 * body, written as fast as the client reads; `seen.written` is what its sockets wrote when the
 * client closed them, `seen.open` the answers still being written.
 */
async function flooding(status, headers) {
  const seen = { written: 0, open: 0 }
  const chunk = Buffer.alloc(64 * 1024, 0x41)
  const server = http.createServer((req, res) => {
    req.resume()
    seen.open++
    let sent = 0
    const socket = res.socket
    res.on('close', () => {
      seen.open--
      seen.written = Math.max(seen.written, socket.bytesWritten)
    })
    res.writeHead(status, headers)
    const pump = () => {
      while (sent < ENDLESS_BYTES && !res.destroyed) {
        sent += chunk.length
        if (!res.write(chunk)) return res.once('drain', pump)
      }
      res.end()
    }
    pump()
  })
  return { ...(await listening(server)), seen }
}

/** A fake member answering every request with `status`, `headers` and `body` at once. */
async function answering(status, headers, body) {
  const server = http.createServer((req, res) => {
    req.resume()
    res.writeHead(status, headers)
    res.end(body)
  })
  return listening(server)
}

/** The fake members of each bad answer, and the real member a redirect points to. */
async function fakes() {
  // Another origin's member that serves anyone: fetch drops the Authorization header on a
  // redirect to another origin, and turns a POST into a GET after a 301, 302 or 303, so this one
  // takes every request as a POST with the token.
  const target = new FlakeId({ id: 47 }).batchHandler({ token: TOKEN })
  const served = { requests: 0 }
  const real = await listening(
    http.createServer((req, res) => {
      served.requests++
      req.headers.authorization = `Bearer ${TOKEN}`
      req.method = 'POST'
      target(req, res)
    }),
  )
  const escapes = '\u001b[2J\u001b]0;owned\u0007\u009b31m'
  const bad = {
    endless: await flooding(200, { 'content-type': BATCH }),
    huge: await flooding(200, { 'content-type': BATCH, 'content-length': String(2 ** 30) }),
    endlessError: await flooding(500, { 'content-type': 'text/plain' }),
    hugeError: await answering(503, { 'content-type': 'text/plain' }, `${escapes}${'x'.repeat(8 * 1024 * 1024)}`),
    escapedError: await answering(
      503,
      { 'content-type': 'application/json' },
      JSON.stringify({ error: { code: 'ERR_FLAKE_LEASE_EXPIRED', message: `${escapes} lease lost` } }),
    ),
    badCode: await answering(
      503,
      { 'content-type': 'application/json' },
      JSON.stringify({ error: { code: '\u001b[31mERR\nFORGED', message: 'no' } }),
    ),
  }
  // Each redirect to the same path and query on the other origin.
  for (const status of REDIRECTS)
    bad[`redirect${status}`] = await listening(
      http.createServer((req, res) => {
        req.resume()
        res.writeHead(status, { location: new URL(req.url, real.url).href, 'content-type': 'text/plain' })
        res.end('moved')
      }),
    )
  return {
    real,
    served,
    bad,
    close: () => {
      for (const server of [real, ...Object.values(bad)]) server.close()
    },
  }
}

/**
 * What a client made by `make` says about `url`: { code, message, took } of its rejection (the
 * ERR_FLAKE_MEMBERS_UNAVAILABLE that names the member), or { id } of an id it handed out.
 */
async function outcome(make, url) {
  const c = make({ members: [url], token: TOKEN, prefetchCount: 100, timeoutMs: 60_000 })
  const started = Date.now()
  try {
    const id = await c.nextAsync()
    return { id: id.toString('hex') }
  } catch (error) {
    return { code: error.code, message: error.message, took: Date.now() - started }
  } finally {
    c.close()
  }
}

/** Asserts that each of `names` in `results` (by name as in fakes()) is a short coded refusal, no id. */
function refused(results, names) {
  for (const name of names) {
    const result = results[name]
    assert.equal(result.id, undefined, `${name}: no id handed out`)
    assert.equal(result.code, 'ERR_FLAKE_MEMBERS_UNAVAILABLE', `${name}: ${result.message}`)
    // Ended by what it read, not by timeoutMs (60 s).
    assert.doesNotMatch(result.message, /timeout/i, name)
    assert.ok(result.message.length < 1000, `${name}: a message of ${result.message.length} characters`)
    assert.doesNotMatch(result.message, /\p{Cc}/u, `${name}: no control character`)
  }
}

// What each bad answer gave (`results`), and what the fakes saw, in three kinds.
const CHECKS = {
  'an endless or huge answer ends past the largest batch asked, the member having written little': async (
    results,
    { bad },
  ) => {
    refused(results, ['endless', 'huge', 'endlessError'])
    for (const name of ['endless', 'huge'])
      assert.match(results[name].message, /ERR_FLAKE_BAD_BATCH.*over \d+ bytes/, `${name}: capped`)
    // Every answer the client ended was closed, having written no more than socket buffers hold.
    await until(() => bad.endless.seen.open + bad.huge.seen.open + bad.endlessError.seen.open === 0, 'answers closed')
    for (const name of ['endless', 'huge', 'endlessError']) {
      const { written } = bad[name].seen
      assert.ok(written < BUFFERED_BYTES, `${name}: ${written} bytes written before the client closed`)
    }
  },
  'an error body is quoted as a short excerpt, its escape codes escaped': (results) => {
    refused(results, ['endlessError', 'hugeError', 'escapedError', 'badCode'])
    assert.match(results.endlessError.message, /HTTP 500.*"AAAA/, 'an error body quoted')
    assert.match(results.hugeError.message, /HTTP 503.*\\u001b\[2J\\u001b\]0;owned\\u0007\\u009b31m/, 'escaped')
    assert.match(results.escapedError.message, /ERR_FLAKE_LEASE_EXPIRED.*"\\u001b\[2J.* lease lost"/, 'escaped')
    assert.match(results.badCode.message, /HTTP 503/, 'a forged code is not shown as one')
  },
  'a redirect of each status is refused, and no id of its target handed out': (results, { served }) => {
    const names = REDIRECTS.map((status) => `redirect${status}`)
    const handedOut = names.filter((name) => results[name].id !== undefined)
    assert.deepEqual(handedOut, [], "no id of the target's handed out")
    assert.equal(served.requests, 0, 'no request reached the redirect target')
    refused(results, names)
    for (const status of REDIRECTS)
      assert.match(results[`redirect${status}`].message, new RegExp(`ERR_FLAKE_REDIRECT_REFUSED: ${status} `))
  },
}

for (const via of ['http', 'fetch'])
  describe(`a client over ${via} refuses members that answer wrongly`, { timeout: 60_000 }, () => {
    let members
    const results = {}
    before(async () => {
      members = await fakes()
      const make = (options) => client({ ...options, [VIA]: via })
      for (const [name, fake] of Object.entries(members.bad)) results[name] = await outcome(make, fake.url)
    })
    after(() => members.close())

    for (const [what, check] of Object.entries(CHECKS)) it(what, () => check(results, members))
  })

for (const [runtime, args] of [
  ['deno', ['run', '--allow-net', '--allow-read', '--allow-env']],
  ['bun', ['run']],
])
  describe(`in ${runtime} (fetch), a client refuses members that answer wrongly`, {
    timeout: 90_000,
    skip: devRuntime(runtime).skip ?? false,
  }, () => {
    let members
    let results
    const file = path.join(os.tmpdir(), `flake-idgen-client-transport-${runtime}-${process.pid}.cjs`)
    before(async () => {
      members = await fakes()
      const urls = Object.fromEntries(Object.entries(members.bad).map(([name, fake]) => [name, fake.url]))
      fs.writeFileSync(
        file,
        `const client = require(${JSON.stringify(path.join(ROOT, 'client.js'))});
         const TOKEN = ${JSON.stringify(TOKEN)};
         ${outcome.toString()}
         (async () => {
           const results = {};
           for (const [name, url] of Object.entries(${JSON.stringify(urls)})) results[name] = await outcome(client, url);
           console.log(JSON.stringify(results));
         })();`,
      )
      // Asynchronously: the fake members answering it are in this process.
      const { stdout } = await promisify(execFile)(devRuntime(runtime).binary, [...args, file], {
        timeout: 60_000,
        cwd: ROOT,
        maxBuffer: 64 * 1024 * 1024,
      })
      results = JSON.parse(stdout.trim().split('\n').at(-1))
    })
    after(() => {
      fs.rmSync(file, { force: true })
      members?.close()
    })

    for (const [what, check] of Object.entries(CHECKS)) it(what, () => check(results, members))
  })

describe('a token that cannot be a header value', () => {
  it('is refused as an option, with a code, its kind of character named and the token not shown', () => {
    const secret = 's3cret-part'
    const cases = [
      [`${secret}\r\nX-Injected: 1`, /a line break \(CR or LF\) at character 12/],
      [`${secret}\n`, /a line break/],
      [`${secret}\u001b[31m`, /a control character at character 12/],
      [`${secret}\u0000`, /a control character/],
      [`${secret}\u007f`, /a control character/],
      [`${secret}é`, /a character outside ASCII at character 12/],
      [`${secret}\u2028`, /a character outside ASCII/],
      [` ${secret}`, /a space or tab at an end at character 1/],
      [`${secret} `, /a space or tab at an end/],
      [`${secret}\tmore`, /a tab/],
    ]
    for (const [token, why] of cases) {
      assert.throws(
        () => client({ members: ['http://127.0.0.1:1/'], token }),
        (error) => {
          assert.ok(error instanceof RangeError, `${error.name}: ${error.message}`)
          assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
          assert.match(error.message, /^option `token` must be printable ASCII .*, got "\*\*\*"/)
          assert.match(error.message, why)
          assert.ok(!error.message.includes(secret), `the token is not shown: ${error.message}`)
          return true
        },
      )
    }
    assert.throws(() => client({ members: ['http://127.0.0.1:1/'], token: '' }), {
      name: 'RangeError',
      code: 'ERR_FLAKE_INVALID_OPTION',
    })
    // Spaces inside are a header value's, and a member's token may have them.
    client({ members: ['http://127.0.0.1:1/'], token: 'a long random secret' }).close()
  })
})

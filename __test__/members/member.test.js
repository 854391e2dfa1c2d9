'use strict'
// Issue 41: generator.batchHandler() and `flake-idgen serve`, on real loopback servers. Batches
// are answered in the versioned binary ranges or JSON; every bad request (a wrong or missing
// token, a count of 0, negative, over maxCount or garbage, a wrong method, oversized headers or
// body, a slow client) gets a 4xx and a coded JSON error, and the member's own ids go on
// unaffected, never overlapping what it served.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const net = require('node:net')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const readline = require('node:readline')
const FlakeId = require('../..')
const wire = require('../../lib/wire/batch-wire.js')
const { assertUsageErrors } = require('../support/helpers.js')

const TOKEN = 'member-test-token'
const AUTH = { authorization: `Bearer ${TOKEN}` }

/** A server of `handler` on a free loopback port: its base URL and port. */
async function listen(handler, options = {}) {
  const server = http.createServer(options, handler)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  return { server, port, url: `http://127.0.0.1:${port}/` }
}

/** `request` (a raw HTTP/1.1 request's text, or a function given the socket) answered: status and JSON body. */
function raw(port, request) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk) => {
      text += chunk
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1])
      const body = text.slice(text.indexOf('\r\n\r\n') + 4)
      let json
      try {
        json = JSON.parse(body)
      } catch {}
      resolve({ status, json, text })
    })
    socket.on('connect', () => (typeof request === 'function' ? request(socket) : socket.write(request)))
  })
}

/** The ids in a binary answer, as hex. */
function idsOf(bytes) {
  const batch = wire.decode(bytes)
  const ids = Buffer.alloc(wire.countOf(batch.ranges) * 8)
  wire.writeIds(batch, ids, 0)
  const hex = []
  for (let offset = 0; offset < ids.length; offset += 8) hex.push(ids.toString('hex', offset, offset + 8))
  return { batch, hex }
}

describe('batchHandler', { timeout: 60_000 }, () => {
  let generator, handler, member
  before(async () => {
    generator = new FlakeId({ id: 21 })
    handler = generator.batchHandler({ token: TOKEN, maxCount: 5000, requestTimeoutMs: 300 })
    member = await listen(handler)
  })
  after(() => {
    member.server.close()
    member.server.closeAllConnections()
  })

  it('refuses to be made without a token, unless told; checks its options by name', () => {
    assert.throws(() => generator.batchHandler(), { code: 'ERR_FLAKE_INVALID_OPTION' })
    assert.throws(() => generator.batchHandler({}), {
      name: 'TypeError',
      code: 'ERR_FLAKE_INVALID_OPTION',
      message: /option `token` must be a non-empty string, got undefined/,
    })
    assert.throws(() => generator.batchHandler({ token: '' }), { name: 'RangeError', message: /option `token`/ })
    assert.throws(() => generator.batchHandler({ token: TOKEN, maxCount: 0 }), {
      name: 'RangeError',
      message: /option `maxCount` must be an integer from 1 to 16777216, got 0/,
    })
    assert.throws(() => generator.batchHandler({ token: TOKEN, allowNoToken: 'yes' }), /option `allowNoToken`/)
    assert.throws(() => generator.batchHandler({ tokn: TOKEN }), {
      message: /^generator\.batchHandler\(\) has no option "tokn" \(did you mean "token"\?\)$/,
    })
    assert.equal(typeof generator.batchHandler({ allowNoToken: true }), 'function')
  })

  it('serves a batch in binary ranges, and as JSON for Accept: application/json', async () => {
    const binary = await fetch(`${member.url}?count=3000`, { method: 'POST', headers: AUTH })
    assert.equal(binary.status, 200)
    assert.equal(binary.headers.get('content-type'), wire.MEDIA_TYPE)
    const { batch, hex } = idsOf(new Uint8Array(await binary.arrayBuffer()))
    assert.equal(hex.length, 3000)
    assert.equal(batch.node, 21)
    assert.deepEqual(batch.layout, { ...wire.layoutOf(generator.layout) })
    assert.deepEqual([...hex].sort(), hex, 'ascending')
    assert.equal(new Set(hex).size, 3000)

    const json = await fetch(`${member.url}?count=2`, {
      method: 'POST',
      headers: { ...AUTH, accept: 'application/json' },
    })
    assert.equal(json.headers.get('content-type'), 'application/json')
    const body = await json.json()
    assert.equal(body.version, 1)
    assert.equal(body.node, 21)
    assert.equal(body.ids.length, 2)
    assert.equal(FlakeId.decompose(body.ids[0]).id, 21)
  })

  it('refuses each bad request with a 4xx and a coded JSON error; the member issues on, never overlapping', async () => {
    const before = handler.stats()
    const post = (query, init = {}) =>
      fetch(`${member.url}${query}`, { method: 'POST', ...init, headers: { ...AUTH, ...init.headers } })
    const cases = [
      [() => post('?count=1', { headers: { authorization: 'Bearer wrong' } }), 401, 'ERR_FLAKE_UNAUTHORIZED'],
      [() => post('?count=1', { headers: { authorization: `Bearer ${TOKEN}x` } }), 401, 'ERR_FLAKE_UNAUTHORIZED'],
      [() => post('?count=1', { headers: { authorization: TOKEN } }), 401, 'ERR_FLAKE_UNAUTHORIZED'],
      [() => fetch(`${member.url}?count=1`, { method: 'POST' }), 401, 'ERR_FLAKE_UNAUTHORIZED'],
      [() => post('?count=0'), 400, 'ERR_FLAKE_BATCH_COUNT'],
      [() => post('?count=-5'), 400, 'ERR_FLAKE_BATCH_COUNT'],
      [() => post('?count=5001'), 400, 'ERR_FLAKE_BATCH_COUNT'],
      [() => post('?count=1e3'), 400, 'ERR_FLAKE_BATCH_COUNT'],
      [() => post('?count=%00%ff'), 400, 'ERR_FLAKE_BATCH_COUNT'],
      [() => post('?count=99999999999999999999999'), 400, 'ERR_FLAKE_BATCH_COUNT'],
      [() => post(''), 400, 'ERR_FLAKE_BATCH_COUNT'],
      [() => post('?count=1', { method: 'GET' }), 405, 'ERR_FLAKE_METHOD'],
      [() => post('?count=1', { method: 'PUT' }), 405, 'ERR_FLAKE_METHOD'],
      [() => post('?count=1', { body: 'x'.repeat(5000) }), 413, 'ERR_FLAKE_BODY_TOO_LARGE'],
      [() => post('?count=1', { headers: { 'x-pad': 'y'.repeat(9000) } }), 431, 'ERR_FLAKE_HEADERS_TOO_LARGE'],
    ]
    let refused = 0
    for (const [send, status, code] of cases) {
      const response = await send()
      const body = await response.json()
      assert.equal(response.status, status, `${code}: ${JSON.stringify(body)}`)
      assert.equal(body.error.code, code)
      assert.equal(typeof body.error.message, 'string')
      refused++
    }
    // A body sent in chunks past the limit, with no length announced.
    const chunked = await raw(member.port, (socket) => {
      socket.write(
        `POST /?count=1 HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ntransfer-encoding: chunked\r\n\r\n`,
      )
      for (let k = 0; k < 4; k++) socket.write(`400\r\n${'z'.repeat(0x400)}\r\n`)
      socket.end('0\r\n\r\n')
    })
    assert.equal(chunked.status, 413, chunked.text)
    assert.equal(chunked.json.error.code, 'ERR_FLAKE_BODY_TOO_LARGE')
    // A slow client: a body announced and never sent holds no batch (requestTimeoutMs: 300).
    const slow = await raw(member.port, (socket) =>
      socket.write(
        `POST /?count=1 HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TOKEN}\r\ncontent-length: 10\r\n\r\nab`,
      ),
    )
    assert.equal(slow.status, 408, slow.text)
    assert.equal(slow.json.error.code, 'ERR_FLAKE_REQUEST_TIMEOUT')
    refused += 2

    const stats = handler.stats()
    assert.equal(stats.refused - before.refused, refused)
    assert.equal(stats.batches, before.batches, 'no batch was taken for a bad request')
    assert.equal(stats.refusedBy.ERR_FLAKE_UNAUTHORIZED - (before.refusedBy.ERR_FLAKE_UNAUTHORIZED ?? 0), 4)

    // The member's own ids and what it serves next: one sequence, no overlap.
    const own = []
    for (let k = 0; k < 100; k++) own.push(generator.next().toString('hex'))
    const served = await post('?count=100')
    const { hex } = idsOf(new Uint8Array(await served.arrayBuffer()))
    for (let k = 0; k < 100; k++) own.push(generator.next().toString('hex'))
    assert.equal(new Set([...own, ...hex]).size, 300)
    assert.ok(hex[0] > own[99] && hex[99] < own[100], 'served between the ids before and after')
  })

  it('answers requests past the run-ahead later, never refuses them: concurrent batches are disjoint', async () => {
    // 12 × 5000 ids is ~15 ms of one id's ids: past allowedFutureMs (0), each waits its turn.
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => fetch(`${member.url}?count=5000`, { method: 'POST', headers: AUTH })),
    )
    const all = []
    for (const answer of answers) {
      assert.equal(answer.status, 200)
      all.push(...idsOf(new Uint8Array(await answer.arrayBuffer())).hex)
    }
    assert.equal(new Set(all).size, 60_000)
    const { timestamp } = FlakeId.decompose(`0x${all.sort().at(-1)}`)
    assert.ok(Number(timestamp) <= Date.now(), 'no id ahead of the clock')
  })

  it('a member whose host state file is removed refuses with 503 ERR_FLAKE_STATE_LOST, its clients going elsewhere', {
    // Unix file semantics: Windows refuses to remove a file a process has mapped.
    skip: process.platform === 'win32' && 'removes a file this process has open and mapped, which Windows refuses',
  }, async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-member-state-'))
    const lost = new FlakeId({ id: 23, stateDir })
    const { server, url } = await listen(lost.batchHandler({ token: TOKEN }))
    // Another member of its own: the client's refills must not land in the other tests' counts.
    const other = await listen(new FlakeId({ id: 24 }).batchHandler({ token: TOKEN }))
    try {
      const ask = () => fetch(`${url}?count=10`, { method: 'POST', headers: AUTH })
      assert.equal((await ask()).status, 200)
      for (const file of fs.readdirSync(stateDir)) fs.rmSync(path.join(stateDir, file))
      let answer
      const deadline = Date.now() + 20_000
      do {
        assert.ok(Date.now() < deadline, 'the member noticed its lost state within 20 s')
        answer = await ask()
        if (answer.status === 200) await answer.arrayBuffer()
      } while (answer.status === 200)
      assert.equal(answer.status, 503)
      assert.equal((await answer.json()).error.code, 'ERR_FLAKE_STATE_LOST')
      const client = FlakeId.client({ members: [url, other.url], token: TOKEN, prefetchCount: 1 })
      for (let k = 0; k < 5; k++) assert.equal(FlakeId.decompose(await client.nextAsync()).id, 24)
      client.close()
    } finally {
      for (const { server: each } of [{ server }, other]) {
        each.close()
        each.closeAllConnections()
      }
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  })

  it('counts batches and ids served in stats()', async () => {
    const before = handler.stats()
    await fetch(`${member.url}?count=7`, { method: 'POST', headers: AUTH })
    const after = handler.stats()
    assert.equal(after.batches, before.batches + 1)
    assert.equal(after.ids, before.ids + 7)
  })
})

describe('flake-idgen serve', { timeout: 60_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-serve-'))
  const tokenFile = path.join(dir, 'token')
  fs.writeFileSync(tokenFile, `${TOKEN}\n`)
  let child, port
  before(async () => {
    const bin = path.join(__dirname, '..', '..', 'bin', 'flake-idgen.js')
    child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--id', '33', '--token-file', tokenFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const line = await new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve))
    port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)\/ as node id 33$/.exec(line)?.[1])
    assert.ok(port > 0, line)
  })
  after(() => {
    child.kill('SIGKILL')
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('serves batches of its node id to a client holding the token', async () => {
    const client = FlakeId.client({ members: [`http://127.0.0.1:${port}/`], token: TOKEN, prefetchCount: 10 })
    const id = await client.nextAsync()
    assert.equal(FlakeId.decompose(id).id, 33)
    client.close()
  })

  it("answers what Node's parser refuses (oversized headers, not HTTP) with a coded JSON error", async () => {
    const big = await raw(port, `POST /?count=1 HTTP/1.1\r\nhost: x\r\nx-pad: ${'a'.repeat(10_000)}\r\n\r\n`)
    assert.equal(big.status, 431, big.text)
    assert.equal(big.json.error.code, 'ERR_FLAKE_HEADERS_TOO_LARGE')
    const garbage = await raw(port, 'GARBAGE\r\n\r\n')
    assert.equal(garbage.status, 400, garbage.text)
    assert.equal(garbage.json.error.code, 'ERR_FLAKE_BAD_REQUEST')
  })

  it('bad arguments: status 2 and one line naming the problem; a token file it cannot use: status 1', () => {
    const bin = path.join(__dirname, '..', '..', 'bin', 'flake-idgen.js')
    const run = (args) => spawnSync(process.execPath, [bin, 'serve', ...args], { encoding: 'utf8', timeout: 15_000 })
    const token = ['--token-file', tokenFile]
    assertUsageErrors(
      (args) => run(args),
      [
        [[...token], 'serve needs --port P (see --help)'],
        [['--port', '0'], 'serve needs --token-file F (see --help)'],
        [['--port', '70000', ...token], '--port must be an integer from 0 to 65535, got "70000"'],
        [['--port', 'http', ...token], '--port must be an integer from 0 to 65535, got "http"'],
        [['--port', '0', '--id', '1', '--lease', 'redis://x', ...token], 'serve takes --id or --lease, not both'],
        [['--port', '0', '--lease', 'redis://127.0.0.1:1', ...token], 'serve --lease URL needs --namespace N'],
        [
          ['--port', '0', '--lease', 'ftp://x/', '--namespace', 'n', ...token],
          /^--lease must be a redis:\/\/, rediss:\/\/, .*postgres:\/\/.* URL, got "ftp:\/\/x\/"$/,
        ],
        [['--port', '0', '--id', '1024', ...token], '--id must be an integer from 0 to 1023, got "1024"'],
        [['--port', '0', '--max-count', '0', ...token], '--max-count must be an integer from 1 to 16777216, got "0"'],
        [['--port', '0', '--count', '3', ...token], '--count does not apply to serve'],
      ],
    )
    const missing = run(['--port', '0', '--token-file', path.join(dir, 'none')])
    assert.equal(missing.status, 1)
    assert.match(missing.stderr, /^flake-idgen: cannot read --token-file ".*none": ENOENT\n$/)
    fs.writeFileSync(path.join(dir, 'empty'), '\n')
    const empty = run(['--port', '0', '--token-file', path.join(dir, 'empty')])
    assert.equal(empty.status, 1)
    assert.match(empty.stderr, /must hold the token on one line, not empty/)
  })

  it('stops on SIGTERM', {
    skip: process.platform === 'win32' && 'Windows has no SIGTERM: a kill ends the process',
  }, async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    assert.equal(await exited, 0)
  })
})

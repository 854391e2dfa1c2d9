'use strict'

// What the edge-runtime tests share (client-edge*.test.js): a real member on loopback, the Workers
// recipe of docs/clients.md bundled as the docs say, and a run of many requests through a client
// kept across them, checked as the issue asks: every request answered, all ids distinct, none
// older than its validity.

const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const http = require('node:http')
const os = require('node:os')
const path = require('node:path')
const FlakeId = require('../..')
const { linkPackage } = require('../support/package-copy.js')
const { removeAtExit } = require('../support/remove-at-exit.js')
const { freePort } = require('../support/loopback.js')

const ROOT = path.join(__dirname, '..', '..')
const BIN = path.join(ROOT, 'node_modules', '.bin')
const TOKEN = 'client-edge-token'
// The recipe's own: 100 ids a batch, used for 60 s at most.
const VALIDITY_MS = 60_000
const PREFETCH = 100
// 1,100 requests: 11 batches of the recipe's 100 (the first asks 101).
const REQUESTS = 1100
// Requests in flight at once: callers of several requests wait on one refill.
const LANES = 8

/** A member (batchHandler on node:http) of node id `id` on a free loopback port: { url, handler, close }. */
async function startMember(id) {
  const handler = new FlakeId({ id }).batchHandler({ token: TOKEN })
  const server = http.createServer(handler)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    handler,
    close() {
      server.close()
      server.closeAllConnections()
    },
  }
}

/** The docs' Workers recipe: its worker.js block and its esbuild command. */
function recipe() {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'clients.md'), 'utf8')
  const section = text.slice(text.indexOf('## Cloudflare Workers, Vercel Edge and Deno Deploy'))
  const worker = /```js\n(\/\/ worker\.js\n[\s\S]*?)```/.exec(section)?.[1]
  const bundle = /```sh\n(npx esbuild worker\.js [^\n]*)\n```/.exec(section)?.[1]
  assert.ok(worker && bundle, 'docs/clients.md has the worker.js block and its esbuild command')
  return { worker, bundle }
}

/**
 * A directory with the recipe's worker.js, `flake-idgen-rs` resolving to this checkout, bundled by
 * the docs' command (its extra `args` appended) into dist/worker.js. Returns the directory.
 */
function bundled(args = []) {
  const { worker, bundle } = recipe()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-edge-'))
  removeAtExit(dir)
  fs.mkdirSync(path.join(dir, 'node_modules'))
  linkPackage(dir, 'flake-idgen-rs')
  fs.writeFileSync(path.join(dir, 'worker.js'), worker)
  // As written, but for `npx`: this checkout's esbuild, so that nothing is fetched.
  const command = `${bundle.replace(/^npx /, '')} ${args.join(' ')}`
  execFileSync('sh', ['-c', command], {
    cwd: dir,
    env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH}` },
    stdio: 'pipe',
  })
  return dir
}

/** Polls `url` until it answers (any status), or fails after `ms` naming `what`. */
async function answering(url, what, ms = 20_000) {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      await (await fetch(url, { method: 'HEAD' })).arrayBuffer()
      return
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} did not answer at ${url} within ${ms} ms: ${error.message}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}

/**
 * REQUESTS requests to `url`, LANES at a time, each answered `{ id }` by a client kept across them.
 * Asserts each is a 200, the ids distinct, each of `member`'s node id and no older than the
 * validity when it came, and that the member served at least 10 batches.
 */
async function manyRequests(url, member, node) {
  const batchesBefore = member.handler.stats().batches
  const ids = new Set()
  let next = 0
  const lane = async () => {
    while (next < REQUESTS) {
      const n = next++
      const response = await fetch(url)
      const body = await response.text()
      assert.equal(response.status, 200, `request ${n + 1}: ${response.status} ${body.slice(0, 500)}`)
      const { id } = JSON.parse(body)
      const parts = FlakeId.decompose(BigInt(id))
      assert.equal(parts.id, node, `request ${n + 1}: id ${id} is of the member's node id`)
      const age = Date.now() - parts.timestamp
      assert.ok(age <= VALIDITY_MS, `request ${n + 1}: id ${id} is ${age} ms old, past the validity`)
      ids.add(id)
    }
  }
  await Promise.all(Array.from({ length: LANES }, lane))
  assert.equal(ids.size, REQUESTS, 'every id distinct')
  const batches = member.handler.stats().batches - batchesBefore
  assert.ok(batches >= 10, `${batches} batches served, at least 10`)
}

module.exports = { TOKEN, PREFETCH, REQUESTS, startMember, bundled, freePort, answering, manyRequests, ROOT, BIN }

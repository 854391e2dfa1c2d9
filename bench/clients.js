'use strict'
// The clients part of `npm run bench` (BENCH_ONLY=clients, issue 41): a client of members
// (FlakeId.client) beside a local generator, and a member's throughput and latency over loopback.
// The member is `flake-idgen serve` in a process of its own, as users run it; the clients are
// in this one.
//
// - sync `next()` from a prefetched batch, and `nextAsync()` with ids at hand, side by side with
//   a local generator's, in interleaved rounds (ratios within each round, then the median);
// - BENCH_CLIENT_REQUESTS requests of 1,000 ids one after the other, through the client's own
//   requests (lib/client/members.js), twice: their latency, p50 and p99 once warmed up, and the
//   p99 of the first ones;
// - 8 clients taking batches of 1,000 at once for BENCH_CLIENTS_MS: the member's ids per second,
//   as a share of the layout's 4.096 M.

const { spawn } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const readline = require('node:readline')
const { performance } = require('node:perf_hooks')
const FlakeId = require('..')
const client = require('../client.js')
const { Members } = require('../lib/client/members.js')
const freshMillisecond = require('./millisecond.js')
const { median, quantile } = require('./stats.js')

const ROUNDS = Number(process.env.BENCH_CLIENT_ROUNDS || 21)
const THROUGHPUT_MS = Number(process.env.BENCH_CLIENTS_MS || 3000)
const REQUESTS = Number(process.env.BENCH_CLIENT_REQUESTS || 5000)
const TOKEN = 'bench-clients-token'
// Per sample: 20 runs of 1,000 calls, each local run from a fresh millisecond (under 4,096 ids).
const RUNS = 20
const CALLS = 1000
const LIMIT_PER_MS = 4096

const progress = () => process.stderr.isTTY && process.stderr.write('.')
let _sink

/** `flake-idgen serve` on a free port, node id `id`: its URL, and stop(). */
async function serve(id, dir) {
  const tokenFile = path.join(dir, 'token')
  fs.writeFileSync(tokenFile, TOKEN)
  const bin = path.join(__dirname, '..', 'bin', 'flake-idgen.js')
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--id', String(id), '--token-file', tokenFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const line = await new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve))
  const url = /listening on (\S+) /.exec(line)?.[1]
  if (url === undefined) throw new Error(`serve said: ${line}`)
  return { url, stop: () => child.kill('SIGTERM') }
}

/** ns per call of `fn`, RUNS runs of CALLS calls; `before()` runs untimed before each run. */
async function sample(fn, before) {
  let ns = 0
  for (let run = 0; run < RUNS; run++) {
    await before()
    const t0 = process.hrtime.bigint()
    for (let k = 0; k < CALLS; k++) _sink = fn()
    ns += Number(process.hrtime.bigint() - t0)
  }
  return ns / (RUNS * CALLS)
}

/** As sample, for a function returning a promise, awaited one at a time. */
async function sampleAsync(fn, before) {
  let ns = 0
  for (let run = 0; run < RUNS; run++) {
    await before()
    const t0 = process.hrtime.bigint()
    for (let k = 0; k < CALLS; k++) _sink = await fn()
    ns += Number(process.hrtime.bigint() - t0)
  }
  return ns / (RUNS * CALLS)
}

async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-bench-clients-'))
  const member = await serve(90, dir)
  const local = new FlakeId({ id: 91 })
  const ids = client({ members: [member.url], token: TOKEN, prefetchCount: 100_000 })
  try {
    // Enough at hand for a run, without a refill in it (a refill's response lands between runs).
    const atHand = async () => {
      while (ids.stats().prefetched < CALLS * 2) await ids.nextBatchAsync(1)
    }
    const fresh = async () => freshMillisecond()
    const samples = { clientNext: [], localNext: [], clientAsync: [], localAsync: [] }
    for (let round = 0; round <= ROUNDS; round++) {
      // Round 0 is not kept: it compiles what the others time.
      const order = round % 2 === 0 ? ['client', 'local'] : ['local', 'client']
      const got = {}
      for (const which of order) {
        if (which === 'client') {
          got.clientNext = await sample(() => ids.next(), atHand)
          got.clientAsync = await sampleAsync(() => ids.nextAsync(), atHand)
        } else {
          got.localNext = await sample(() => local.next(), fresh)
          got.localAsync = await sampleAsync(() => local.nextAsync(), fresh)
        }
      }
      if (round > 0) for (const key of Object.keys(samples)) samples[key].push(got[key])
      progress()
    }
    ids.close()

    // Requests of 1,000 ids one after the other, as a client makes them: their latency, timed
    // twice. While both processes warm up (their first few thousand requests: the member's
    // code is compiled by these requests, on the same 2 cores), p99 is over 2 ms; after, it is
    // the steady state a long-running service sees (bench/README.md has both). Timed before the
    // 8 clients: right after them, both heaps are large and their collectors' threads share the
    // 2 cores for seconds.
    const members = new Members({ members: [member.url], token: TOKEN, timeoutMs: 5000 })
    const timeRequests = async () => {
      const latencies = []
      for (let k = 0; k < REQUESTS; k++) {
        const t0 = performance.now()
        _sink = await members.fetch(1000)
        latencies.push(performance.now() - t0)
      }
      return latencies
    }
    const warming = await timeRequests()
    const latencies = await timeRequests()
    members.close()
    progress()

    // 8 clients at once, batches of 1,000: the member's ids per second, once both sides ran a
    // second untimed (the member is a process of its own, its code compiled by these requests).
    const eight = Array.from({ length: 8 }, () =>
      client({ members: [member.url], token: TOKEN, prefetchCount: 1000, prefetchValidityMs: 0 }),
    )
    const takeFor = async (ms) => {
      let taken = 0
      const start = performance.now()
      const end = start + ms
      await Promise.all(
        eight.map(async (c) => {
          while (performance.now() < end) {
            _sink = await c.nextBatchAsync(1000)
            taken += 1000
          }
        }),
      )
      return taken / (performance.now() - start)
    }
    await takeFor(1000)
    const idsPerMs = await takeFor(THROUGHPUT_MS)
    for (const c of eight) c.close()
    progress()

    return { samples, idsPerMs, warming, latencies }
  } finally {
    member.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The part's table (with `printTable`, the bench's), and its targets. */
function print({ samples, idsPerMs, warming, latencies }, printTable) {
  const ratio = (a, b) => median(samples[a].map((x, round) => x / samples[b][round]))
  const share = idsPerMs / LIMIT_PER_MS
  console.log()
  printTable([
    ['clients (issue 41)', 'ns/call, ids/ms or ms', '× local generator or share of 4.096 M ids/s'],
    [
      'client `next()` from a prefetched batch',
      `${median(samples.clientNext).toFixed(1)} ns`,
      ratio('clientNext', 'localNext').toFixed(2),
    ],
    ['local generator `next()`', `${median(samples.localNext).toFixed(1)} ns`, '1.00'],
    [
      'client `nextAsync()`, ids at hand',
      `${median(samples.clientAsync).toFixed(1)} ns`,
      ratio('clientAsync', 'localAsync').toFixed(2),
    ],
    ['local generator `nextAsync()`', `${median(samples.localAsync).toFixed(1)} ns`, '1.00'],
    [
      'one member, 8 clients, batches of 1,000',
      `${Math.round(idsPerMs).toLocaleString('en')} ids/ms`,
      `${(share * 100).toFixed(0)} %`,
    ],
    ['a request of 1,000 ids: p50', `${quantile(latencies, 0.5).toFixed(2)} ms`, ''],
    ['a request of 1,000 ids: p99', `${quantile(latencies, 0.99).toFixed(2)} ms`, ''],
    [
      `the same, p99 of the first ${REQUESTS.toLocaleString('en')} (warming up)`,
      `${quantile(warming, 0.99).toFixed(2)} ms`,
      '',
    ],
  ])
  const targets = [
    ['client `next()` from a batch ≤ 1.1 × a local `next()`', ratio('clientNext', 'localNext'), 1.1, 'max'],
    [
      'client `nextAsync()`, ids at hand, ≤ 1.2 × a local `nextAsync()`',
      ratio('clientAsync', 'localAsync'),
      1.2,
      'max',
    ],
    ['one member serving 8 clients ≥ 90 % of 4.096 M ids/s', share, 0.9, 'min'],
    ['a 1,000-id batch request: p99 ≤ 2 ms (warmed up)', quantile(latencies, 0.99), 2, 'max'],
  ]
  console.log()
  for (const [what, value, target, kind] of targets) {
    const met = kind === 'max' ? value <= target : value >= target
    const shown = kind === 'min' ? `${(value * 100).toFixed(0)} %` : value.toFixed(2)
    console.log(`target: ${what}: ${shown} ${met ? 'met' : 'MISSED'}`)
  }
}

module.exports = { run, print }

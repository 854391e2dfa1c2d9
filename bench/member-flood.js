'use strict'
// `node bench/member-flood.js` (issue 50, 4): a member (generator.batchHandler on node:http, in a
// process of its own) under a flood of max-count requests, with a 1-id request asked every few
// ms beside it. The target: that small request's p99 at most 50 ms. Reported with the member's
// RSS growth, its event loop's lag (p99, max), the flood's ids per second and its 503s.
//
// BENCH_FLOOD concurrent clients (default 300), each asking count=BENCH_FLOOD_COUNT (default
// 100,000) again as soon as it is answered (after a 503, once its Retry-After has passed, as a
// client that fails over to another member would come back), for BENCH_FLOOD_MS (default 5,000).
// BENCH_BEFORE=<checkout>: that build's member measured the same way first, and the ratios.

const { fork } = require('node:child_process')
const http = require('node:http')
const path = require('node:path')
const { performance } = require('node:perf_hooks')
const { quantile } = require('./stats.js')

const FLOOD = Number(process.env.BENCH_FLOOD || 300)
const COUNT = Number(process.env.BENCH_FLOOD_COUNT || 100_000)
const DURATION_MS = Number(process.env.BENCH_FLOOD_MS || 5000)
const PROBE_EVERY_MS = 10
const TARGET_P99_MS = 50
const TOKEN = 'bench-member-flood-token'
const HEADERS = { authorization: `Bearer ${TOKEN}` }

function post(url, agent) {
  return new Promise((resolve) => {
    const request = http.request(url, { method: 'POST', headers: HEADERS, agent }, (response) => {
      response.resume()
      response.on('end', () => resolve({ status: response.statusCode, retryAfter: response.headers['retry-after'] }))
      response.on('error', () => resolve({ status: 0 }))
    })
    request.on('error', () => resolve({ status: 0 }))
    request.end()
  })
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The flood and the probe against the member of the package at `root`: what was measured. */
async function measure(root) {
  const child = fork(path.join(__dirname, 'member-flood-child.js'), [root, JSON.stringify({ token: TOKEN })])
  const message = () => new Promise((resolve) => child.once('message', resolve))
  const { port } = await message()
  const base = `http://127.0.0.1:${port}/?count=`
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
  const end = performance.now() + DURATION_MS
  const statuses = {}
  let ids = 0
  const flooder = async () => {
    while (performance.now() < end) {
      const { status, retryAfter } = await post(base + COUNT, agent)
      statuses[status] = (statuses[status] ?? 0) + 1
      if (status === 200) ids += COUNT
      else await pause(Math.min(end - performance.now(), retryAfter === undefined ? 50 : Number(retryAfter) * 1000))
    }
  }
  const probes = []
  const probeStatuses = {}
  const prober = async () => {
    await pause(200)
    while (performance.now() < end) {
      const start = performance.now()
      const { status } = await post(`${base}1`, agent)
      probes.push(performance.now() - start)
      probeStatuses[status] = (probeStatuses[status] ?? 0) + 1
      await pause(PROBE_EVERY_MS)
    }
  }
  const started = performance.now()
  await Promise.all([prober(), ...Array.from({ length: FLOOD }, flooder)])
  const seconds = (performance.now() - started) / 1000
  child.send('report')
  const { baseRss, peakRss, lags } = await message()
  child.disconnect()
  agent.destroy()
  return {
    probeP50: quantile(probes, 0.5),
    probeP99: quantile(probes, 0.99),
    probes: probes.length,
    probeStatuses,
    rssGrowthMB: (peakRss - baseRss) / 2 ** 20,
    lagP99: quantile(lags, 0.99),
    lagMax: Math.max(...lags),
    idsPerSecond: ids / seconds,
    statuses,
  }
}

const row = (name, r) =>
  `${name.padEnd(8)} 1-id p50 ${r.probeP50.toFixed(1).padStart(7)} ms  p99 ${r.probeP99.toFixed(1).padStart(7)} ms (${r.probes}, ${JSON.stringify(r.probeStatuses)})  RSS +${r.rssGrowthMB.toFixed(0).padStart(4)} MB  lag p99 ${r.lagP99.toFixed(1).padStart(6)} max ${r.lagMax.toFixed(0).padStart(5)} ms  ${(r.idsPerSecond / 1e6).toFixed(2)} M ids/s  ${JSON.stringify(r.statuses)}`

async function main() {
  console.log(
    `member flood: ${FLOOD} clients of count=${COUNT} for ${DURATION_MS} ms, a 1-id request every ${PROBE_EVERY_MS} ms`,
  )
  const before = process.env.BENCH_BEFORE ? await measure(path.resolve(process.env.BENCH_BEFORE)) : undefined
  if (before) console.log(row('before', before))
  const now = await measure(path.resolve(__dirname, '..'))
  console.log(row('this', now))
  if (before) {
    const ratio = (key) => (before[key] / now[key]).toFixed(1)
    console.log(
      `before/this: 1-id p99 ×${ratio('probeP99')}, RSS growth ×${ratio('rssGrowthMB')}, lag max ×${ratio('lagMax')}, ids/s ×${(now.idsPerSecond / before.idsPerSecond).toFixed(2)} (this/before)`,
    )
  }
  const verdict = now.probeP99 <= TARGET_P99_MS ? 'met' : 'NOT met'
  console.log(`target: a 1-id request's p99 ≤ ${TARGET_P99_MS} ms beside the flood: ${verdict}`)
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})

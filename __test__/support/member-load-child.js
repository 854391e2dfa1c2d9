'use strict'
// A member for the member-load tests and bench: node member-load-child.js OPTIONS_JSON. Serves
// batches of generator 42's ids on a free loopback port (sent as { port } over IPC), sampling
// its RSS and its event loop's lag meanwhile; a 'report' message is answered with
// { baseRss, peakRss, maxLagMs, stats }.

const http = require('node:http')
const FlakeId = require('../..')

const options = JSON.parse(process.argv[2] ?? '{}')
const generator = new FlakeId({ id: 42, scope: 'process' })
const handler = generator.batchHandler({ token: 'member-load-token', ...options })
const server = http.createServer({ keepAliveTimeout: 30_000 }, handler)

const SAMPLE_MS = 5
global.gc?.()
const baseRss = process.memoryUsage.rss()
let peakRss = baseRss
let maxLagMs = 0
let last = performance.now()
setInterval(() => {
  const now = performance.now()
  maxLagMs = Math.max(maxLagMs, now - last - SAMPLE_MS)
  last = now
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, SAMPLE_MS).unref()

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
process.on('message', (message) => {
  if (message === 'report') process.send({ baseRss, peakRss, maxLagMs, stats: handler.stats() })
  if (message === 'exit') process.exit(0)
})
process.on('disconnect', () => process.exit(0))

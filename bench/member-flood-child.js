'use strict'
// The member of bench/member-flood.js: node member-flood-child.js ROOT OPTIONS_JSON. Serves
// batches of generator 43's ids from the package at ROOT (this checkout, or BENCH_BEFORE's) on a
// free loopback port, sent as { port } over IPC, sampling its RSS and its event loop's lag; a
// 'report' message is answered with { baseRss, peakRss, lags }.

const http = require('node:http')
const FlakeId = require(process.argv[2])

const options = JSON.parse(process.argv[3] ?? '{}')
const generator = new FlakeId({ id: 43, scope: 'process' })
const server = http.createServer({ keepAliveTimeout: 60_000 }, generator.batchHandler(options))

const SAMPLE_MS = 5
const baseRss = process.memoryUsage.rss()
let peakRss = baseRss
const lags = []
let last = performance.now()
setInterval(() => {
  const now = performance.now()
  lags.push(now - last - SAMPLE_MS)
  last = now
  peakRss = Math.max(peakRss, process.memoryUsage.rss())
}, SAMPLE_MS).unref()

server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
process.on('message', (message) => {
  if (message === 'report') process.send({ baseRss, peakRss, lags })
})
process.on('disconnect', () => process.exit(0))

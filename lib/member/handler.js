'use strict'

// generator.batchHandler(): a member, serving batches of its generator's ids to clients that hold
// no generator id (lib/client/). A batch is taken by nextBatchAsync, the compare-and-swap of the
// generator's own ids on its state: it never overlaps the member's ids, those of the host's other
// processes on the same id, or another client's batch; and its ids count as another generator's,
// so the generator's own next() waits out a millisecond batches used up rather than throw. Its
// run-ahead is the generator's (allowedFutureMs): past it, nextBatchAsync waits for the clock, so
// a big request is answered later. At most maxQueued requests are served at once, a slice at a
// time (batch-queue.js); past that a request is refused (503, Retry-After) for another member. A
// leased member issues nothing past its acknowledged ceiling (the native fence), and refuses once
// its lease is lost, so that clients go to another member.

const { setTimeout, clearTimeout } = require('node:timers')
const wire = require('../wire/batch-wire.js')
const batchQueue = require('./batch-queue.js')
const { checkOptions, authorized } = require('./options.js')
const { refuse, refusals } = require('./refusals.js')

// Bytes of a request's body read and ignored (a POST from some clients carries an empty JSON
// object); more is refused, so that no client makes a member buffer its upload.
const MAX_BODY_BYTES = 1024
// What each refusal of drain() says: its limit.
const DETAILS = {
  ERR_FLAKE_BODY_TOO_LARGE: () => MAX_BODY_BYTES,
  ERR_FLAKE_REQUEST_TIMEOUT: (config) => config.requestTimeoutMs,
  ERR_FLAKE_BAD_REQUEST: () => 'its body was cut short',
}

/**
 * The member of `generator` (its lease, if leased), with `options` checked, taking its ids by
 * `takeRuns(count, { signal }, add)` (the generator's runs, see batch-queue.js).
 */
function batchHandler(generator, options, lease, takeRuns) {
  const config = checkOptions(options)
  const layout = wire.layoutOf(generator.layout)
  const counts = { batches: 0, ids: 0, refused: 0, byCode: {} }
  const queue = batchQueue(takeRuns, layout, lease, config.maxQueued)

  const fail = (res, code, detail) => {
    counts.refused++
    counts.byCode[code] = (counts.byCode[code] ?? 0) + 1
    refuse(res, code, detail)
  }

  async function serve(req, res) {
    // Node refuses headers past its maxHeaderSize (16 KiB) itself; a member needs far fewer.
    let headerBytes = 0
    for (const part of req.rawHeaders) headerBytes += part.length + 2
    if (headerBytes > config.maxHeaderBytes) return fail(res, 'ERR_FLAKE_HEADERS_TOO_LARGE', config.maxHeaderBytes)
    if (req.method !== 'POST') return fail(res, 'ERR_FLAKE_METHOD', req.method)
    if (!authorized(config, req.headers.authorization)) return fail(res, 'ERR_FLAKE_UNAUTHORIZED')
    const count = countOf(req.url, config.maxCount)
    if (count === undefined) return fail(res, 'ERR_FLAKE_BATCH_COUNT', { max: config.maxCount, url: req.url })
    const length = Number(req.headers['content-length'] ?? 0)
    if (!(length <= MAX_BODY_BYTES)) return fail(res, 'ERR_FLAKE_BODY_TOO_LARGE', MAX_BODY_BYTES)
    const body = await drain(req, config.requestTimeoutMs)
    if (body !== 'ok') return fail(res, body, DETAILS[body](config))
    const refusal = lease?.refusal
    if (refusal !== undefined) return fail(res, refusal.code, refusal.message)

    const taken = queue.take(count, res)
    if (taken === undefined)
      return fail(res, 'ERR_FLAKE_MEMBER_BUSY', { max: config.maxQueued, retryAfter: queue.retryAfter() })
    const served = await taken
    if (served instanceof Error) {
      if (served.code === 'ABORT_ERR' && res.destroyed) return undefined
      const why = served.code === 'ABORT_ERR' ? lease?.refusal : served
      return fail(res, why?.code ?? 'ERR_FLAKE_MEMBER', why?.message ?? String(served))
    }
    const { node, ranges } = served
    const batch = { layout, node, ranges }
    counts.batches++
    counts.ids += served.count
    const json = /\bapplication\/json\b/.test(req.headers.accept ?? '')
    // The JSON text is sent as it is (ASCII), not copied into a Buffer: one encoded answer held.
    const payload = json ? JSON.stringify(wire.toJSON(batch)) : wire.encode(batch)
    res.writeHead(200, {
      'content-type': json ? 'application/json' : wire.MEDIA_TYPE,
      'content-length': payload.length,
      'cache-control': 'no-store',
    })
    res.end(payload)
  }

  const handler = (req, res) => {
    serve(req, res).catch((error) => {
      if (!res.headersSent) fail(res, 'ERR_FLAKE_MEMBER', error?.message ?? String(error))
      else res.destroy()
    })
  }
  handler.stats = () => ({ batches: counts.batches, ids: counts.ids, refused: counts.refused, ...refusals(counts) })
  return handler
}

/** `count` of the request's query: a whole number from 1 to `max`, else undefined. */
function countOf(url, max) {
  const query = url.indexOf('?')
  if (query === -1) return undefined
  const text = new URLSearchParams(url.slice(query + 1)).get('count')
  if (text === null || !/^[1-9][0-9]{0,15}$/.test(text)) return undefined
  const count = Number(text)
  return count <= max ? count : undefined
}

/**
 * Reads and drops the request's body: 'ok' once it ended, or the code of why not (a body past
 * MAX_BODY_BYTES, or one not sent within `ms`: a slow client does not hold a batch's ids).
 */
function drain(req, ms) {
  if (req.readableEnded || req.complete) return Promise.resolve('ok')
  return new Promise((resolve) => {
    let bytes = 0
    const done = (outcome) => {
      clearTimeout(timer)
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      // Whatever is still coming is read and dropped, not left in the socket's buffers.
      if (outcome !== 'ok') req.resume()
      resolve(outcome)
    }
    const onData = (chunk) => {
      bytes += chunk.length
      if (bytes > MAX_BODY_BYTES) done('ERR_FLAKE_BODY_TOO_LARGE')
    }
    const onEnd = () => done('ok')
    // A request cut short (its connection reset mid-body) takes no ids.
    const onError = () => done('ERR_FLAKE_BAD_REQUEST')
    const timer = setTimeout(() => done('ERR_FLAKE_REQUEST_TIMEOUT'), ms)
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
  })
}

module.exports = batchHandler

'use strict'

// How a client's request reaches a member: `post(url, headers, signal, maxBytes)` resolves to the
// answer as { status, statusText, type, location, opaqueRedirect, body } (body a Uint8Array), or
// rejects; aborted by `signal`, it rejects with the signal's reason, as fetch does. A 200 longer
// than `maxBytes` (the largest batch of the ids asked) is refused, its request ended.
//
// In Node, through node:http with a keep-alive agent of the client's own: on loopback a request
// through the global fetch cost the client more CPU than the member spent serving it, and one
// member serving 8 clients in one process reached 61-84 % of its layout's 4.096 M ids/s, where
// through node:http it reaches 96-97 % (bench/clients.js). Everywhere else (Deno, Bun, edge
// runtimes), the global fetch: node:http is never required there, so the client runs wherever
// fetch does.
//
// A member is trusted with ids, not with the client's memory or its requests (docs/clients.md,
// "What a client trusts"): a 200 is read up to the largest batch of the ids asked, anything else
// up to ERROR_BYTES, and no redirect is followed.

const codedError = require('../errors/coded-error.js')

/**
 * Whether this runtime ties each I/O to the request being served, and cancels what is left of it
 * once that request is answered: Cloudflare's workerd, and Vercel's Edge runtime, built on its
 * rules (index.js fetches there only for a caller that waits, in its own request).
 */
const REQUEST_SCOPED =
  globalThis.navigator?.userAgent === 'Cloudflare-Workers' || typeof globalThis.EdgeRuntime === 'string'

/**
 * Whether this runtime is Node itself: Bun, Deno, workerd (whose `process` is there by its
 * compatibility date or nodejs_compat) and Vercel's Edge runtime say they are Node too.
 */
const isNode =
  globalThis.process?.release?.name === 'node' &&
  globalThis.Bun === undefined &&
  globalThis.Deno === undefined &&
  !REQUEST_SCOPED

/** How much of an answer that is not a 200 is read: its refusal quotes an excerpt (refusal.js). */
const ERROR_BYTES = 4096

/** A 200 longer than its cap: no batch of the ids asked is that long. */
const tooLong = (maxBytes) =>
  codedError(
    Error,
    'ERR_FLAKE_BAD_BATCH',
    `a member's answer is not a batch: over ${maxBytes} bytes, the most a batch of the ids asked takes (the request was ended)`,
  )

/**
 * Whether `error` (a request's, before any byte of its answer) says the member dropped the
 * connection, as it does an idle one it kept alive: a new connection may find it serving.
 */
function dropped(error) {
  const codes = [error?.code, error?.cause?.code, error?.cause?.cause?.code]
  if (codes.some((code) => ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ConnectionClosed'].includes(code))) return true
  // Deno and Bun say it in words only.
  return /connection (was )?(reset|closed)|socket hang up|other side closed/i.test(
    `${error?.message} ${error?.cause?.message}`,
  )
}

/** `chunks` (Uint8Arrays) as one Uint8Array of `size` bytes. */
function joined(chunks, size) {
  if (chunks.length === 1) return chunks[0]
  const body = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    body.set(chunk, at)
    at += chunk.byteLength
  }
  return body
}

/** A transport over the global fetch. */
function fetchTransport() {
  /** The answer to a POST, redirects not followed (they are refused: refusal.js). */
  async function ask(url, headers, signal) {
    const init = { method: 'POST', headers, signal, redirect: 'manual' }
    try {
      return await fetch(url, init)
    } catch (error) {
      // A connection dropped before the answer is tried once more, as over node:http (see
      // there why, whether it was kept alive or new). Safe: ids are never reused.
      if (signal.aborted || !dropped(error)) throw error
      return fetch(url, init)
    }
  }

  return {
    async post(url, headers, signal, maxBytes) {
      const response = await ask(url, headers, signal)
      const ok = response.status === 200
      const limit = ok ? maxBytes : ERROR_BYTES
      const answer = {
        status: response.status,
        statusText: response.statusText,
        type: response.headers.get('content-type') ?? '',
        location: response.headers.get('location') ?? '',
        // A browser-like runtime's redirect under 'manual': status 0, nothing of it shown.
        opaqueRedirect: response.type === 'opaqueredirect',
      }
      if (ok && Number(response.headers.get('content-length')) > limit) {
        response.body?.cancel().catch(() => {})
        throw tooLong(limit)
      }
      // Read as a stream, cancelled past the limit: arrayBuffer() would hold an endless answer whole.
      const chunks = []
      let size = 0
      const reader = response.body?.getReader()
      while (reader !== undefined) {
        const { done, value } = await reader.read()
        if (done) break
        if (size + value.byteLength > limit) {
          reader.cancel().catch(() => {})
          if (ok) throw tooLong(limit)
          chunks.push(value.subarray(0, limit - size))
          size = limit
          break
        }
        chunks.push(value)
        size += value.byteLength
      }
      return { ...answer, body: joined(chunks, size) }
    },
    close() {},
  }
}

/** A transport over node:http and node:https, its sockets kept alive between requests. */
function httpTransport() {
  const { Buffer } = require('node:buffer')
  const http = require('node:http')
  const https = require('node:https')
  // One request in flight per client: one socket per member is all it uses.
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) }
  const modules = { 'http:': http, 'https:': https }
  return {
    post(url, headers, signal, maxBytes) {
      return new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason)
        // Member URLs were checked as http: or https: URLs (options.js).
        const protocol = url.startsWith('https:') ? 'https:' : 'http:'
        const fail = (error) => reject(signal.aborted ? signal.reason : error)
        const ask = (retried) => {
          const request = modules[protocol].request(url, { method: 'POST', headers, agent: agents[protocol], signal })
          let answered = false
          request.on('error', (error) => {
            // A kept-alive socket the member closed while this process was frozen (a Lambda
            // between invocations, a SIGSTOP) looks open until the process reads its close, which
            // a request sent first finds: ECONNRESET before any byte. So does a new one frozen
            // between its connect and its request, which the member (or a load balancer) closed
            // as idle: not only a reused socket. Asked once more, on a new connection (the agent
            // dropped the dead one). A member that took ids for the lost answer only skips them:
            // ids are never reused.
            if (!answered && !retried && !signal.aborted && dropped(error)) ask(true)
            else fail(error)
          })
          request.on('response', (response) => {
            answered = true
            const ok = response.statusCode === 200
            const limit = ok ? maxBytes : ERROR_BYTES
            const answer = (body) => ({
              status: response.statusCode,
              statusText: response.statusMessage,
              type: response.headers['content-type'] ?? '',
              location: response.headers.location ?? '',
              body,
            })
            if (ok && Number(response.headers['content-length']) > limit) {
              request.destroy()
              return fail(tooLong(limit))
            }
            const chunks = []
            let size = 0
            response.on('data', (chunk) => {
              if (size > limit) return
              if (size + chunk.length > limit) {
                const room = limit - size
                size = limit + 1
                // The socket is not reusable mid-answer: ended with the request.
                request.destroy()
                if (ok) return fail(tooLong(limit))
                chunks.push(chunk.subarray(0, room))
                return resolve(answer(Buffer.concat(chunks)))
              }
              chunks.push(chunk)
              size += chunk.length
            })
            // An answer cut off mid-body (its member killed) errs here: it never reaches 'end'.
            response.on('error', fail)
            response.on('end', () => resolve(answer(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))))
          })
          request.end()
        }
        ask(false)
      })
    },
    close() {
      agents['http:'].destroy()
      agents['https:'].destroy()
    },
  }
}

const TRANSPORTS = { fetch: fetchTransport, http: httpTransport }

/** A client's transport: `via` ('http' or 'fetch', for tests), or this runtime's. */
function transport(via = isNode ? 'http' : 'fetch') {
  return TRANSPORTS[via]()
}

// An option only tests pass (a symbol: never among a user's keys, so never checked as one), to
// run the client over each transport in Node.
const VIA = Symbol('flake-idgen-rs client transport')

module.exports = { transport, VIA, REQUEST_SCOPED }

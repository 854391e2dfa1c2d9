'use strict'

// How a client's request reaches a member: `post(url, headers, signal)` resolves to the answer
// as { status, statusText, type, body } (body a Uint8Array), or rejects; aborted by `signal`, it
// rejects with the signal's reason, as fetch does.
//
// In Node, through node:http with a keep-alive agent of the client's own: on loopback a request
// through the global fetch cost the client more CPU than the member spent serving it, and one
// member serving 8 clients in one process reached 61-84 % of its layout's 4.096 M ids/s, where
// through node:http it reaches 96-97 % (bench/clients.js). Everywhere else (Deno, Bun, edge
// runtimes), the global fetch: node:http is never required there, so the client runs wherever
// fetch does.

/** Whether this runtime is Node itself: Bun and Deno say they are Node too. */
const isNode =
  globalThis.process?.release?.name === 'node' && globalThis.Bun === undefined && globalThis.Deno === undefined

/** A transport over the global fetch. */
function fetchTransport() {
  return {
    async post(url, headers, signal) {
      const response = await fetch(url, { method: 'POST', headers, signal })
      const body = new Uint8Array(await response.arrayBuffer())
      const type = response.headers.get('content-type') ?? ''
      return { status: response.status, statusText: response.statusText, type, body }
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
    post(url, headers, signal) {
      return new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason)
        // Member URLs were checked as http: or https: URLs (options.js).
        const protocol = url.startsWith('https:') ? 'https:' : 'http:'
        const fail = (error) => reject(signal.aborted ? signal.reason : error)
        const request = modules[protocol].request(url, { method: 'POST', headers, agent: agents[protocol], signal })
        request.on('error', fail)
        request.on('response', (response) => {
          const chunks = []
          response.on('data', (chunk) => chunks.push(chunk))
          // An answer cut off mid-body (its member killed) errs here: it never reaches 'end'.
          response.on('error', fail)
          response.on('end', () => {
            const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
            const type = response.headers['content-type'] ?? ''
            resolve({ status: response.statusCode, statusText: response.statusMessage, type, body })
          })
        })
        request.end()
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

module.exports = { transport, VIA }

'use strict'

// A member's refusals: each code's HTTP status and message, written as a JSON error. A client
// fails over on a 5xx (this member cannot serve now) and on a 401 (its token is not this
// member's); a 4xx for its request is a mistake no other member would answer otherwise.

const { STATUS_CODES } = require('node:http')

const REFUSALS = {
  ERR_FLAKE_METHOD: [405, (method) => `a batch is taken with POST, got ${method}`],
  ERR_FLAKE_UNAUTHORIZED: [401, () => 'the request has no Authorization: Bearer header with the token of this member'],
  ERR_FLAKE_BATCH_COUNT: [
    400,
    ({ max }) => `the query's count must be an integer from 1 to ${max} (maxCount), as in ?count=100`,
  ],
  ERR_FLAKE_BODY_TOO_LARGE: [413, (max) => `a batch request's body must be at most ${max} bytes (it is ignored)`],
  ERR_FLAKE_HEADERS_TOO_LARGE: [431, (max) => `a batch request's headers must be at most ${max} bytes`],
  ERR_FLAKE_REQUEST_TIMEOUT: [408, (ms) => `the request was not sent whole within ${ms} ms`],
  ERR_FLAKE_BAD_REQUEST: [400, (why) => `the request is not one this member reads: ${why}`],
  ERR_FLAKE_MEMBER_BUSY: [
    503,
    ({ max, retryAfter }) =>
      `this member is serving ${max} batch requests already (maxQueued): ask another member, or again in ${retryAfter} s`,
  ],
}

/** The answer to refusal `code`: its status, its headers and its JSON error as bytes. */
function answerOf(code, detail) {
  const known = REFUSALS[code]
  // Anything else is the generator's or the lease's: this member cannot issue now (503).
  const status = known === undefined ? 503 : known[0]
  const message = known === undefined ? String(detail) : known[1](detail)
  const body = Buffer.from(JSON.stringify({ error: { code, message } }))
  const headers = { 'content-type': 'application/json', 'content-length': body.length, 'cache-control': 'no-store' }
  if (status === 405) headers.allow = 'POST'
  if (status === 401) headers['www-authenticate'] = 'Bearer'
  // When the member expects to have served the ids asked for before it, in whole seconds.
  if (code === 'ERR_FLAKE_MEMBER_BUSY') headers['retry-after'] = String(detail.retryAfter)
  // A request refused before its body was read: the connection is not reused for the rest.
  if (status === 408 || status === 413 || status === 431) headers.connection = 'close'
  return { status, headers, body }
}

/** Writes the JSON error of `code` to `res` (unless the client has gone), and closes it. */
function refuse(res, code, detail) {
  if (res.headersSent || res.destroyed) {
    res.destroy()
    return
  }
  const { status, headers, body } = answerOf(code, detail)
  res.writeHead(status, headers)
  res.end(body)
}

/**
 * Writes the JSON error of `code` on `socket` as a whole HTTP/1.1 response, and closes it: for a
 * request Node's parser refused, which has no response object to write to.
 */
function refuseOnSocket(socket, code, detail) {
  const { status, headers, body } = answerOf(code, detail)
  headers.connection = 'close'
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
  socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n`), body]))
}

/** The handler's refusals by code, for stats(): `{ refusedBy: { ERR_…: n } }`. */
const refusals = (counts) => ({ refusedBy: { ...counts.byCode } })

module.exports = { refuse, refuseOnSocket, refusals, REFUSALS }

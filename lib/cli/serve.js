'use strict'

// `flake-idgen serve`: a member ready to run. An HTTP server whose one listener is
// generator.batchHandler, on a given node id (`--id`) or one leased from a store (`--lease URL
// --namespace NS`, the store found by the URL's scheme among lib/lease/stores.js's rows). It prints
// one line once it listens, and stops on SIGTERM or SIGINT, releasing its lease.

const fs = require('node:fs')
const http = require('node:http')
const FlakeId = require('../flake-id.js')
const { describe } = require('../errors.js')
const { checkNamespace } = require('../lease/options.js')
const { STORES } = require('../lease/stores.js')
const { redact, secretsOf, scrub } = require('../redact.js')
const { REFUSALS } = require('../member/refusals.js')
const { readStateDir, readEpoch, readLayout } = require('./args.js')
const { UsageError, CommandError, withFlags } = require('./command-errors.js')
const { findClient, connect, reason } = require('./store-client.js')

// A member's requests are one line of headers and no body: the server's own limits are tight,
// so that a slow or oversized request costs a socket for seconds, not minutes.
const SERVER_OPTIONS = { maxHeaderSize: 8192, headersTimeout: 10_000, requestTimeout: 30_000 }

/** A whole number from `min` to `max` given as flag `flag`, or a UsageError. */
function whole(text, flag, min, max) {
  const value = /^[0-9]{1,10}$/.test(text ?? '') ? Number(text) : Number.NaN
  if (!(value >= min && value <= max))
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${describe(text)}`)
  return value
}

/** The token in `file`: its content without the trailing newline; a CommandError if unusable. */
function readToken(file) {
  // The path in full, not cut as values are: a user finds the file by it.
  const named = JSON.stringify(file)
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw new CommandError(`cannot read --token-file ${named}: ${error.code ?? error.message}`)
  }
  const token = text.replace(/\r?\n$/, '')
  if (token.length === 0 || /[\r\n]/.test(token))
    throw new CommandError(`--token-file ${named} must hold the token on one line, not empty`)
  return token
}

/** The store whose row takes `url`'s scheme, with the URL checked. */
function storeOf(text) {
  let url = null
  try {
    url = new URL(text)
  } catch {}
  const store = url === null ? undefined : STORES.find(({ schemes }) => schemes.includes(url.protocol))
  if (store === undefined) {
    const schemes = STORES.flatMap(({ schemes }) => schemes.map((scheme) => `${scheme}//`))
    throw new UsageError(`--lease must be a ${schemes.join(', ')} URL, got ${describe(redact(url ?? text))}`)
  }
  return store
}

/** A leased generator from the store at `url`, over the project's own client, which serve keeps. */
async function leased(url, namespace, options, onGone) {
  const store = storeOf(url)
  const found = findClient(store.clients)
  if (found === undefined)
    throw new CommandError(
      `serve --lease needs ${store.clients.map(({ name }) => name).join(' or ')} installed in your project, found none from ${process.cwd()}`,
    )
  const client = connect(found, url)
  const secrets = secretsOf(url)
  try {
    await client.open()
  } catch (error) {
    throw new CommandError(
      `cannot connect to ${redact(new URL(url))} (${found.name}): ${scrub(reason(error), secrets)}`,
    )
  }
  // The command's store client gives up at its first failure: a member whose store is gone
  // exits (to be restarted by its supervisor) rather than refuse for ever.
  client.client.on('end', () => onGone('the lease store closed the connection'))
  client.client.on('error', (error) => onGone(scrub(reason(error), secrets)))
  const generator = await FlakeId.lease({
    ...options,
    store: client.client,
    namespace,
    onLost: (error) => process.stderr.write(`flake-idgen serve: ${error.message}; refusing until leased again\n`),
  })
  return { generator, close: () => generator.close().finally(() => client.close()) }
}

/** Runs the member the flags describe until SIGTERM or SIGINT. */
async function serve(values) {
  if (values.port === undefined) throw new UsageError('serve needs --port P (see --help)')
  const port = whole(values.port, '--port', 0, 65_535)
  const host = values.host ?? '127.0.0.1'
  if (values['token-file'] === undefined) throw new UsageError('serve needs --token-file F (see --help)')
  if (values.lease !== undefined && values.id !== undefined)
    throw new UsageError('serve takes --id or --lease, not both')
  if ((values.lease === undefined) !== (values.namespace === undefined))
    throw new UsageError('serve --lease URL needs --namespace N, and --namespace needs --lease')
  const maxCount = values['max-count'] === undefined ? undefined : whole(values['max-count'], '--max-count', 1, 2 ** 24)
  const token = readToken(values['token-file'])
  const options = {
    layout: readLayout(values.layout),
    epoch: readEpoch(values.epoch),
    scope: values.scope,
    stateDir: readStateDir(values['state-dir']),
  }
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key]

  let server
  const stop = (status, why) => {
    if (why !== undefined) process.stderr.write(`flake-idgen serve: ${why}\n`)
    process.exitCode = status
    server?.close()
    server?.closeAllConnections?.()
    Promise.resolve(member?.close())
      .catch(() => {})
      .finally(() => process.exit(status))
  }
  let member
  if (values.lease !== undefined) {
    withFlags(() => checkNamespace(values.namespace))
    member = await leased(values.lease, values.namespace, options, (why) => stop(1, `lease store lost: ${why}`))
  } else {
    const generator = withFlags(() => new FlakeId({ ...options, id: values.id }))
    member = { generator, close: () => {} }
  }
  const { generator } = member
  const handler = withFlags(() => generator.batchHandler({ token, maxCount }))
  server = http.createServer(SERVER_OPTIONS, handler)
  server.on('clientError', clientError)
  await new Promise((resolve, reject) => {
    server.once('error', (error) => reject(new CommandError(`cannot listen on ${host}:${port}: ${error.code}`)))
    server.listen(port, host, resolve)
  })
  process.once('SIGTERM', () => stop(0))
  process.once('SIGINT', () => stop(0))
  const { port: bound } = server.address()
  const shown = host.includes(':') ? `[${host}]` : host
  process.stdout.write(`flake-idgen serve: listening on http://${shown}:${bound}/ as node id ${generator.id}\n`)
}

/** A request Node's parser refused (oversized headers, too slow, not HTTP): a coded JSON error. */
function clientError(error, socket) {
  if (!socket.writable || error.code === 'ECONNRESET') return socket.destroy()
  const [status, code] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'ERR_FLAKE_HEADERS_TOO_LARGE']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'ERR_FLAKE_REQUEST_TIMEOUT']
        : [400, 'ERR_FLAKE_BAD_REQUEST']
  const detail = {
    ERR_FLAKE_HEADERS_TOO_LARGE: SERVER_OPTIONS.maxHeaderSize,
    ERR_FLAKE_REQUEST_TIMEOUT: SERVER_OPTIONS.requestTimeout,
    ERR_FLAKE_BAD_REQUEST: `not HTTP/1.1 that Node's parser reads (${error.code})`,
  }[code]
  const message = REFUSALS[code][1](detail)
  const body = JSON.stringify({ error: { code, message } })
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
}

module.exports = serve

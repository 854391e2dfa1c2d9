'use strict'

// `flake-idgen serve`: a member ready to run. An HTTP server whose one listener is
// generator.batchHandler, on a given node id (`--id`), the orchestrator's (`--id-from`) or one
// leased from a store (`--lease URL --namespace NS`, the store found by the URL's scheme among
// lib/lease/stores.js's rows): a row of lib/id-sources/ each. It prints one line once it
// listens, answers GET /healthz and GET /metrics (serve-probes.js), and drains on SIGTERM or
// SIGINT: no new connection, the requests in flight answered, its lease released.

const http = require('node:http')
const FlakeId = require('../generator/flake-id.js')
const { describe } = require('../errors/errors.js')
const { SERVE_SOURCES, serveSynopsis, optionOf } = require('../id-sources/index.js')
const { checkNamespace } = require('../lease/options.js')
const { STORES } = require('../lease/stores.js')
const { redact, secretsOf, scrub } = require('../errors/redact.js')
const { refuseOnSocket } = require('../member/refusals.js')
const { readStateDir, readEpoch, readLayout } = require('./args.js')
const { UsageError, CommandError, withFlags, urlOf } = require('./command-errors.js')
const { findClient, connect, reason } = require('./store-client.js')
const { readToken } = require('./serve-token.js')
const { isProbe, answerProbe, leaseState } = require('./serve-probes.js')

// A member's requests are one line of headers and no body: the server's own limits are tight,
// so that a slow or oversized request costs a socket for seconds, not minutes. Node looks at
// headersTimeout and requestTimeout only every connectionsCheckingInterval (30 s by default), so
// a client dribbling its headers a byte a second kept its socket 30 s, not 10: looked at each
// second, it is closed within 11.
const SERVER_OPTIONS = {
  maxHeaderSize: 8192,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  connectionsCheckingInterval: 1000,
}
// How long a drain waits for the requests in flight: a batch waits for the clock at most
// allowedFutureMs past its run, but a client may read its answer slowly; then they are cut.
const DRAIN_MS = SERVER_OPTIONS.requestTimeout

/** A whole number from `min` to `max` given as flag `flag`, or a UsageError. */
function whole(text, flag, min, max) {
  const value = /^[0-9]{1,10}$/.test(text ?? '') ? Number(text) : Number.NaN
  if (!(value >= min && value <= max))
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${describe(text)}`)
  return value
}

/** The store whose row takes `url`'s scheme, with the URL checked. */
function storeOf(text) {
  let url = null
  try {
    url = new URL(text)
  } catch {}
  // A row that reads its own form (ZooKeeper's hosts, which no URL parser takes) reads it here.
  const scheme = url?.protocol ?? /^[a-z][a-z0-9+.-]*:/i.exec(String(text))?.[0].toLowerCase()
  const store = STORES.find(
    ({ schemes, address }) => schemes.includes(scheme) && (address ? address(text) !== undefined : url !== null),
  )
  if (store === undefined) {
    const schemes = STORES.flatMap(({ schemes }) => schemes)
    throw new UsageError(`--lease must be ${urlOf(schemes, ', ')}, got ${describe(redact(url ?? text))}`)
  }
  return store
}

/** A leased generator from the store at `url`, over the project's own client, which serve keeps. */
async function leased(url, namespace, options, flags, onGone, onLost) {
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
    throw new CommandError(`cannot connect to ${redact(url)} (${found.name}): ${scrub(reason(error), secrets)}`)
  }
  // The command's store client gives up at its first failure: a member whose store is gone
  // exits (to be restarted by its supervisor) rather than refuse for ever.
  client.client.on('end', () => onGone('the lease store closed the connection'))
  client.client.on('error', (error) => onGone(scrub(reason(error), secrets)))
  let generator
  try {
    generator = await FlakeId.lease({
      ...options,
      store: client.client,
      namespace,
      onLost: (error) => {
        process.stderr.write(`flake-idgen serve: ${error.message}; refusing until leased again\n`)
        onLost(error, generator)
      },
    })
  } catch (error) {
    await client.close().catch(() => {})
    // A value of a flag the lease refused (--allowed-future-ms past the layout's) names its flag.
    withFlags(() => {
      throw error
    }, flags)
  }
  return { generator, close: () => generator.close().finally(() => client.close()) }
}

/**
 * The row of lib/id-sources/ whose serve flags are given (all but its optional ones), or
 * undefined when none is: a UsageError for two rows' flags, or for a row's flag without the rest.
 */
function sourceOf(values) {
  const flagged = (row) => row.serve.filter(({ flag }) => values[flag] !== undefined)
  const chosen = SERVE_SOURCES.filter((row) => flagged(row).length > 0)
  if (chosen.length > 1)
    throw new UsageError(`serve takes ${chosen.map((row) => `--${flagged(row)[0].flag}`).join(' or ')}, not both`)
  const [row] = chosen
  const missing = row?.serve.find(({ flag, optional }) => !optional && values[flag] === undefined)
  if (missing !== undefined) {
    const [given] = flagged(row)
    throw new UsageError(`serve --${given.flag} ${given.value} needs --${missing.flag} ${missing.value}`)
  }
  return row
}

/** `--allowed-future-ms`'s value: digits, for the library to check against the layout's bound. */
function allowedFutureMs(text) {
  if (text === undefined) return undefined
  if (!/^[0-9]{1,10}$/.test(text))
    throw new UsageError(`--allowed-future-ms must be a whole number of ms, got ${describe(text)}`)
  return Number(text)
}

/** Runs the member the flags describe until SIGTERM or SIGINT. */
async function serve(values) {
  if (values.port === undefined) throw new UsageError('serve needs --port P (see --help)')
  const port = whole(values.port, '--port', 0, 65_535)
  const host = values.host ?? '127.0.0.1'
  if (values['token-file'] === undefined) throw new UsageError('serve needs --token-file F (see --help)')
  const source = sourceOf(values)
  const maxCount = values['max-count'] === undefined ? undefined : whole(values['max-count'], '--max-count', 1, 2 ** 24)
  const maxQueued =
    values['max-queued'] === undefined ? undefined : whole(values['max-queued'], '--max-queued', 1, 100_000)
  const options = {
    layout: readLayout(values.layout),
    epoch: readEpoch(values.epoch),
    scope: values.scope,
    stateDir: readStateDir(values['state-dir']),
    allowedFutureMs: allowedFutureMs(values['allowed-future-ms']),
  }
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key]
  // A value the library refuses is shown as typed (the library saw a number).
  const flags = { allowedFutureMs: ['--allowed-future-ms', values['allowed-future-ms']] }
  const { token, warning } = readToken(values['token-file'])
  // Node id 0 by default, as for new ids, would make two members on two hosts repeat each
  // other's ids: a member is always told which id is its own, or to lease one.
  if (source === undefined) {
    const synopses = SERVE_SOURCES.map(serveSynopsis)
    throw new UsageError(
      `serve needs ${synopses.slice(0, -1).join(', ')} or ${synopses.at(-1)}: each member needs a node id of its own`,
    )
  }

  let member
  let lostAt
  const stopper = { server: undefined, stopping: false }
  if (source.name === 'lease') {
    withFlags(() => checkNamespace(values.namespace))
    member = await leased(
      values.lease,
      values.namespace,
      options,
      flags,
      (why) => stop(stopper, member, 1, `lease store lost: ${why}`),
      (error, generator) => {
        lostAt = { error, fence: generator?.lease }
      },
    )
  } else {
    const nodeOptions = Object.fromEntries(source.serve.map(({ flag }) => [optionOf(flag), values[flag]]))
    const generator = withFlags(() => new FlakeId({ ...options, ...nodeOptions }), flags)
    member = { generator, close: () => {} }
  }
  const { generator } = member
  const handler = withFlags(() => generator.batchHandler({ token, maxCount, maxQueued }))
  // Requests being answered, for /metrics and for the drain (a response not yet begun is told to
  // close its connection, so that a drain is not held by a client's keep-alive).
  const inFlight = new Set()
  const parserRefusals = {}
  const probed = () => ({
    stats: handler.stats(),
    parserRefusals,
    inFlight: inFlight.size,
    lease: leaseState(generator, values.lease !== undefined, lostAt),
    node: generator.id,
    stopping: stopper.stopping,
  })
  const server = http.createServer(SERVER_OPTIONS, (req, res) => {
    if (stopper.stopping) res.setHeader('connection', 'close')
    if (isProbe(req)) return answerProbe(req, res, probed)
    inFlight.add(res)
    res.once('close', () => inFlight.delete(res))
    handler(req, res)
  })
  stopper.server = server
  stopper.inFlight = inFlight
  server.on('clientError', (error, socket) => {
    const code = clientError(error, socket)
    if (code !== undefined) parserRefusals[code] = (parserRefusals[code] ?? 0) + 1
  })
  await new Promise((resolve, reject) => {
    server.once('error', (error) => reject(new CommandError(`cannot listen on ${host}:${port}: ${error.code}`)))
    server.listen(port, host, resolve)
  })
  // A second signal while draining stops at once.
  const onSignal = () => (stopper.stopping ? stop(stopper, member, 0) : drain(stopper, member))
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  // Told once the member runs: a refused start says only why it was refused.
  if (warning !== undefined) process.stderr.write(`${warning}\n`)
  const { port: bound } = server.address()
  const shown = host.includes(':') ? `[${host}]` : host
  process.stdout.write(`flake-idgen serve: listening on http://${shown}:${bound}/ as node id ${generator.id}\n`)
}

/** Stops at once: connections cut, the lease released, exit with `status`. */
function stop({ server }, member, status, why) {
  if (why !== undefined) process.stderr.write(`flake-idgen serve: ${why}\n`)
  process.exitCode = status
  server?.close()
  server?.closeAllConnections()
  Promise.resolve(member?.close())
    .catch(() => {})
    .finally(() => process.exit(status))
}

/**
 * Stops gracefully: the listener closed (a new connection is refused), idle connections closed,
 * the requests in flight answered (their connections closed after), then the lease released and
 * exit 0. Past DRAIN_MS, what is left is cut.
 */
function drain(stopper, member) {
  stopper.stopping = true
  const { server, inFlight } = stopper
  for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close')
  const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS)
  cut.unref()
  server.close(() => {
    clearTimeout(cut)
    stop(stopper, member, 0)
  })
  server.closeIdleConnections()
}

// The refusal of each error of Node's parser, and what its message says: anything else is a
// request that is not HTTP/1.1 (ERR_FLAKE_BAD_REQUEST).
const PARSER_REFUSALS = {
  HPE_HEADER_OVERFLOW: ['ERR_FLAKE_HEADERS_TOO_LARGE', SERVER_OPTIONS.maxHeaderSize],
  // Node's requestTimeout (30 s) never comes first: a body is the handler's to time (10 s).
  ERR_HTTP_REQUEST_TIMEOUT: ['ERR_FLAKE_REQUEST_TIMEOUT', SERVER_OPTIONS.headersTimeout],
}

/** A request Node's parser refused (oversized headers, too slow, not HTTP): a coded JSON error, its code returned. */
function clientError(error, socket) {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy()
    return undefined
  }
  const [code, detail] = Object.hasOwn(PARSER_REFUSALS, error.code)
    ? PARSER_REFUSALS[error.code]
    : ['ERR_FLAKE_BAD_REQUEST', `not HTTP/1.1 that Node's parser reads (${error.code})`]
  refuseOnSocket(socket, code, detail)
  return code
}

module.exports = serve

'use strict'

// serve's GET /healthz and GET /metrics, for a supervisor and a Prometheus scraper. Neither takes
// ids, and neither asks for the token: probes and scrapers seldom carry a bearer token, and what
// they read (counts, the node id, the lease's state) gives nobody an id or the token.

const PROBES = new Set(['/healthz', '/metrics'])

/** Whether `req` is one of the probes' paths (whatever its method or query). */
const isProbe = (req) => PROBES.has(req.url.split('?', 1)[0])

/**
 * The lease's state: 'none' (a given --id), 'held', or 'lost' (told by onLost and not had again,
 * closed, or past its ceiling), with the refusal a batch would get while lost. `lostFence` is the
 * fence at the last loss: a lease had again has another floor.
 */
function leaseState(generator, leased, lostAt) {
  if (!leased) return { state: 'none' }
  const fence = generator.lease
  const lost =
    fence === undefined ||
    Date.now() > fence.ceiling ||
    (lostAt !== undefined && lostAt.fence?.floor === fence.floor && lostAt.fence?.id === fence.id)
  if (!lost) return { state: 'held' }
  const code = lostAt?.error?.code ?? 'ERR_FLAKE_LEASE_EXPIRED'
  const message = lostAt?.error?.message ?? 'the lease was lost: no ids are served until another is had'
  return { state: 'lost', code, message }
}

function send(res, status, type, body, headers = {}) {
  const bytes = Buffer.from(body)
  res.writeHead(status, {
    'content-type': type,
    'content-length': bytes.length,
    'cache-control': 'no-store',
    ...headers,
  })
  res.end(bytes)
}

const json = (res, status, value, headers) => send(res, status, 'application/json', JSON.stringify(value), headers)

/** A Prometheus label value: backslash, quote and newline escaped. */
const label = (text) => String(text).replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))

/** The text exposition (version 0.0.4) of `member`'s numbers. */
function exposition({ stats, parserRefusals, inFlight, lease, node }) {
  const refusedBy = { ...stats.refusedBy }
  for (const [code, n] of Object.entries(parserRefusals)) refusedBy[code] = (refusedBy[code] ?? 0) + n
  const lines = []
  const metric = (name, type, help, samples) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)
    for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`)
  }
  metric('flake_idgen_batches_total', 'counter', 'Batches of ids served.', [['', stats.batches]])
  metric('flake_idgen_ids_total', 'counter', 'Ids served in batches.', [['', stats.ids]])
  metric(
    'flake_idgen_refusals_total',
    'counter',
    'Requests refused, by error code.',
    Object.entries(refusedBy).map(([code, n]) => [`{code="${label(code)}"}`, n]),
  )
  metric('flake_idgen_requests_in_flight', 'gauge', 'Batch requests being answered.', [['', inFlight]])
  metric(
    'flake_idgen_lease_state',
    'gauge',
    'The node id lease: 1 for its state (none: a given --id), with the node id.',
    ['held', 'lost', 'none'].map((state) => [
      `{state="${state}",node_id="${label(node)}"}`,
      state === lease.state ? 1 : 0,
    ]),
  )
  return `${lines.join('\n')}\n`
}

/**
 * Answers a probe. `member()` gives what it reports: { stats, parserRefusals, inFlight, lease,
 * node, stopping }.
 */
function answerProbe(req, res, member) {
  const path = req.url.split('?', 1)[0]
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const message = `${path} is read with GET, got ${req.method}`
    return json(res, 405, { error: { code: 'ERR_FLAKE_METHOD', message } }, { allow: 'GET, HEAD' })
  }
  const now = member()
  if (path === '/metrics') return send(res, 200, 'text/plain; version=0.0.4; charset=utf-8', exposition(now))
  if (now.stopping)
    return json(res, 503, { error: { code: 'ERR_FLAKE_MEMBER_STOPPING', message: 'the member is draining to stop' } })
  if (now.lease.state === 'lost') return json(res, 503, { error: { code: now.lease.code, message: now.lease.message } })
  return json(res, 200, { status: 'ok', node: now.node, lease: now.lease.state })
}

module.exports = { isProbe, answerProbe, leaseState }

'use strict'
// Issue 50, part 4: `flake-idgen serve` in production. GET /healthz for a supervisor, GET /metrics
// in Prometheus's text format for a scraper: neither takes ids nor asks for the token (a probe
// or a scraper seldom carries one; what they read hands out no id).

const assert = require('node:assert/strict')
const { describe, it, before, after } = require('node:test')
const { TOKEN, tokenDir, startServe } = require('./serve-process.js')

/** The samples of a Prometheus text exposition: `name{labels}` → value. */
function samples(text) {
  const found = new Map()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line)
    assert.ok(match, `a sample line: ${JSON.stringify(line)}`)
    found.set(match[1], Number(match[2]))
  }
  return found
}

describe('flake-idgen serve: GET /healthz and GET /metrics', { timeout: 60_000 }, () => {
  const { tokenFile, cleanup } = tokenDir()
  let member
  before(async () => {
    member = await startServe(['--id', '21', '--token-file', tokenFile])
  })
  after(async () => {
    member?.kill()
    await member?.exited
    cleanup()
  })
  const batch = (count, token = TOKEN) =>
    fetch(`${member.url}?count=${count}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  const metrics = async () => {
    const res = await fetch(`${member.url}metrics`)
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8')
    return samples(await res.text())
  }

  it('/healthz: 200 without the token while the member can issue, with its node id', async () => {
    const res = await fetch(`${member.url}healthz`)
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('content-type'), 'application/json')
    assert.deepEqual(await res.json(), { status: 'ok', node: 21, lease: 'none' })
  })

  it('/metrics: batches, ids, refusals by code, requests in flight and the lease state, without the token', async () => {
    const before = await metrics()
    assert.equal(before.get('flake_idgen_requests_in_flight'), 0)
    assert.equal(before.get('flake_idgen_lease_state{state="none",node_id="21"}'), 1)
    assert.equal(before.get('flake_idgen_lease_state{state="held",node_id="21"}'), 0)
    assert.equal(before.get('flake_idgen_lease_state{state="lost",node_id="21"}'), 0)
    const batches = before.get('flake_idgen_batches_total')
    const ids = before.get('flake_idgen_ids_total')
    const unauthorized = before.get('flake_idgen_refusals_total{code="ERR_FLAKE_UNAUTHORIZED"}') ?? 0

    for (const count of [7, 5]) {
      const res = await batch(count)
      assert.equal(res.status, 200)
      await res.arrayBuffer()
    }
    const refused = await batch(1, 'not-the-token')
    assert.equal(refused.status, 401)
    await refused.arrayBuffer()

    const now = await metrics()
    assert.equal(now.get('flake_idgen_batches_total'), batches + 2)
    assert.equal(now.get('flake_idgen_ids_total'), ids + 12)
    assert.equal(now.get('flake_idgen_refusals_total{code="ERR_FLAKE_UNAUTHORIZED"}'), unauthorized + 1)
  })

  it('/metrics counts what Node refused before the handler (oversized headers) by its code too', async () => {
    const before = await metrics()
    const code = 'flake_idgen_refusals_total{code="ERR_FLAKE_HEADERS_TOO_LARGE"}'
    const res = await fetch(`${member.url}?count=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-pad': 'a'.repeat(10_000) },
    }).catch((error) => error)
    if (res instanceof Response) {
      assert.equal(res.status, 431)
      await res.arrayBuffer()
    }
    assert.equal((await metrics()).get(code), (before.get(code) ?? 0) + 1)
  })

  it('neither takes ids: another method is refused (405) and no batch is counted', async () => {
    const before = await metrics()
    for (const path of ['healthz?count=5', 'metrics?count=5']) {
      const res = await fetch(`${member.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })
      assert.equal(res.status, 405, path)
      assert.equal(res.headers.get('allow'), 'GET, HEAD')
      assert.equal((await res.json()).error.code, 'ERR_FLAKE_METHOD')
    }
    const after = await metrics()
    assert.equal(after.get('flake_idgen_batches_total'), before.get('flake_idgen_batches_total'))
    assert.equal(after.get('flake_idgen_ids_total'), before.get('flake_idgen_ids_total'))
  })
})

'use strict'
// Issue 41: "a leased member whose node id changes during a batch cuts the batch at the change".
// A batch is sent as one node id and ranges of (time, first sequence, count), so ids of a second
// node id in it would be rebuilt under the first: lib/wire/batch-wire.js's rangesOf stops at the first
// id of another node id. And a client handed fewer ids than it asked for asks again.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const FlakeId = require('../..')
const client = require('../../client.js')
const wire = require('../../lib/wire/batch-wire.js')

/** The ids `batch` ({ layout, node, ranges }) stands for, as sent and rebuilt by a client. */
function rebuilt(batch) {
  const { layout, node, ranges } = wire.decode(wire.encode(batch))
  const out = Buffer.alloc(wire.countOf(ranges) * 8)
  wire.writeIds({ layout, node, ranges }, out, 0)
  return out
}

for (const layout of ['flake-idgen', 'sonyflake']) {
  test(`${layout}: a batch whose node id changes midway is cut at the change, each id kept as issued`, () => {
    // Two node ids of one layout, the second's ids after the first's (a lease that took a new id).
    const before = new FlakeId({ layout, id: 3, scope: 'process' })
    const after = new FlakeId({ layout, id: 2, scope: 'process' })
    const mine = before.nextBatch(300)
    const theirs = after.nextBatch(300)
    const ids = Buffer.concat([mine, theirs])
    const resolved = wire.layoutOf(before.layout)
    const { node, ranges, count } = wire.rangesOf(ids, resolved)
    assert.equal(node, 3)
    assert.equal(count, 300)
    assert.deepEqual(rebuilt({ layout: resolved, node, ranges }), mine)
    // And uncut, the same batch of one node id comes back whole.
    const whole = wire.rangesOf(theirs, resolved)
    assert.equal(whole.node, 2)
    assert.deepEqual(rebuilt({ layout: resolved, ...whole }), theirs)
  })
}

test('a client handed fewer ids than it asked for asks again: nextBatchAsync(n) gets n distinct ids', async (t) => {
  // A member that cuts every batch at 7 ids, as one whose node id kept changing would.
  const generator = new FlakeId({ id: 5, scope: 'process' })
  const layout = wire.layoutOf(generator.layout)
  let requests = 0
  const server = http.createServer((req, res) => {
    requests++
    req.resume()
    req.on('end', () => {
      const asked = Number(new URL(req.url, 'http://member').searchParams.get('count'))
      const { node, ranges } = wire.rangesOf(generator.nextBatch(Math.min(asked, 7)), layout)
      const body = wire.encode({ layout, node, ranges })
      res.writeHead(200, { 'content-type': wire.MEDIA_TYPE, 'content-length': body.length })
      res.end(body)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => server.close())
  const ids = client({ members: [`http://127.0.0.1:${server.address().port}/`], prefetchCount: 10 })
  t.after(() => ids.close())
  const batch = await ids.nextBatchAsync(50)
  assert.equal(batch.length, 50 * 8)
  const hex = new Set()
  for (let offset = 0; offset < batch.length; offset += 8) hex.add(batch.toString('hex', offset, offset + 8))
  assert.equal(hex.size, 50)
  assert.ok(requests >= 8, `50 ids in batches of 7 take at least 8 requests, took ${requests}`)
})

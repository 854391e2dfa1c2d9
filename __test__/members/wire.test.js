'use strict'
// The members' wire (lib/wire/batch-wire.js) against the native side, on every layout: a member
// takes its ids as runs (issueRuns, src/js/generator/batches.rs) and sends them as ranges; the
// client composes the ids in JS (writeIds), the one JS copy of a layout's bits. Each id it
// composes must be the one the native side reads back, and the native side's own ids must come
// out of it as they were issued. And issue 41: "a leased member whose node id changes during a
// batch cuts the batch at the change", never sending the second node id's ids under the first.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const FlakeId = require('../..')
const client = require('../../client.js')
const binding = require('../../lib/binding/load-binding.js')
const native = require('../../lib/binding/native.js')
const wire = require('../../lib/wire/batch-wire.js')

/** The ids `batch` ({ layout, node, ranges }) stands for, as sent and rebuilt by a client. */
function rebuilt(batch) {
  const { layout, node, ranges } = wire.decode(wire.encode(batch))
  const out = Buffer.alloc(wire.countOf(ranges) * 8)
  wire.writeIds({ layout, node, ranges }, out, 0)
  return out
}

/** Every preset of the native side's table (by index, until one past the last), and custom layouts of each order and unit. */
function everyLayout() {
  const { fields } = native.configure({ scope: 'process' })
  const layouts = []
  for (let preset = 0; ; preset++) {
    const { name } = binding.layoutOf(fields.shape, 0, preset)
    if (name === 'custom') break
    layouts.push(name)
  }
  assert.ok(layouts.length >= 7, `${layouts}`)
  layouts.push(
    { timeBits: 48, timeUnitMs: 1, nodeBits: 0, sequenceBits: 16 },
    { timeBits: 40, timeUnitMs: 1, nodeBits: 16, sequenceBits: 7, order: 'node-sequence', epoch: 1_700_000_000_000 },
    { timeBits: 43, timeUnitMs: 10, nodeBits: 5, sequenceBits: 16, order: 'sequence-node', epoch: 1_600_000_000_000 },
  )
  return layouts
}

/** The runs of up to `max` ids of `fields` (issueRuns' form), and how many ids they hold. */
function runsOf(fields, max) {
  const runs = Buffer.alloc(binding.RUNS_HEADER_BYTES + binding.RUN_BYTES * max)
  const report = native.runSlice(fields, runs, max)
  return { runs, count: native.decode.count(report) }
}

test("the native runs are the wire's ranges: the sizes of a header and a range agree", () => {
  assert.equal(binding.RUN_BYTES, wire.RANGE)
  assert.equal(binding.RUNS_HEADER_BYTES, wire.RUNS_HEADER)
})

for (const layout of everyLayout()) {
  const shown = typeof layout === 'string' ? layout : JSON.stringify(layout)
  test(`${shown}: a member's runs, sent and composed by a client, are ids the native side reads back as those runs`, () => {
    const resolved = FlakeId.layout(layout)
    const node = 2 ** resolved.nodeBits - 1
    const { fields } = native.configure({ layout, id: node, scope: 'process' })
    const batch = { node: -1, ranges: [], count: 0 }
    const { runs, count } = runsOf(fields, 3000)
    assert.ok(wire.addRuns(batch, runs))
    assert.equal(batch.node, node)
    assert.equal(batch.count, count)
    assert.equal(wire.countOf(batch.ranges), count)
    const ids = rebuilt({ layout: wire.layoutOf(resolved), node, ranges: batch.ranges })
    let at = 0
    for (const [time, first, size] of batch.ranges) {
      for (let k = 0; k < size; k++, at += 8) {
        const parts = FlakeId.decompose(ids.subarray(at, at + 8), { layout })
        assert.equal(parts.id, node, shown)
        assert.equal(parts.sequence, first + k, shown)
        assert.equal(parts.timestamp, resolved.epoch + time * resolved.timeUnitMs, shown)
      }
    }
  })

  test(`${shown}: the native side's ids, as ranges of what it reads back, are composed as it issued them`, () => {
    const resolved = FlakeId.layout(layout)
    const node = Math.floor((2 ** resolved.nodeBits - 1) / 3)
    const issued = new FlakeId({ layout, id: node, scope: 'process' }).nextBatch(3000)
    const ranges = []
    for (let at = 0; at < issued.length; at += 8) {
      const { timestamp, sequence } = FlakeId.decompose(issued.subarray(at, at + 8), { layout })
      const time = (timestamp - resolved.epoch) / resolved.timeUnitMs
      const last = ranges.at(-1)
      if (last?.[0] === time && last[1] + last[2] === sequence) last[2]++
      else ranges.push([time, sequence, 1])
    }
    assert.deepEqual(rebuilt({ layout: wire.layoutOf(resolved), node, ranges }), issued)
  })
}

for (const layout of ['flake-idgen', 'sonyflake']) {
  test(`${layout}: runs of another node id are not added to a batch, which keeps its own as issued`, () => {
    // Two node ids of one layout, the second's runs after the first's (a lease that took a new id).
    const before = native.configure({ layout, id: 3, scope: 'process' }).fields
    const after = native.configure({ layout, id: 2, scope: 'process' }).fields
    const batch = { node: -1, ranges: [], count: 0 }
    assert.ok(wire.addRuns(batch, runsOf(before, 100).runs))
    const kept = structuredClone(batch)
    const { runs, count } = runsOf(after, 100)
    assert.ok(count > 0)
    assert.equal(wire.addRuns(batch, runs), false)
    assert.deepEqual(batch, kept)
    assert.equal(batch.node, 3)
    // And the second's alone make a batch of their own.
    const theirs = { node: -1, ranges: [], count: 0 }
    assert.ok(wire.addRuns(theirs, runs))
    assert.deepEqual([theirs.node, theirs.count], [2, count])
  })
}

test('a client handed fewer ids than it asked for asks again: nextBatchAsync(n) gets n distinct ids', async (t) => {
  // A member that cuts every batch at 7 ids, as one whose node id kept changing would.
  const generator = new FlakeId({ id: 5, scope: 'process' })
  const layout = wire.layoutOf(generator.layout)
  const { fields } = native.configure({ id: 5, scope: 'process' })
  let requests = 0
  const server = http.createServer((req, res) => {
    requests++
    req.resume()
    req.on('end', () => {
      const asked = Number(new URL(req.url, 'http://member').searchParams.get('count'))
      const taken = { node: -1, ranges: [], count: 0 }
      wire.addRuns(taken, runsOf(fields, Math.min(asked, 7)).runs)
      const body = wire.encode({ layout, node: taken.node, ranges: taken.ranges })
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

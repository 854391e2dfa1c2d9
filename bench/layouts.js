'use strict'
// Every preset layout side by side with the default one, in the same rounds (issue 23):
// `next()` per call, as a ratio to the default layout timed in batches of the same shape, and
// batches (`nextBatch`, `nextBatchAsync`) as a share of each layout's own limit.
//
// A layout's limit is 2^sequenceBits ids per time unit per node id: Hazelcast's 64 per ms and
// sonyflake's 256 per 10 ms do not allow batches of 1,000 calls in one unit, so each preset's
// timed batches are of at most its ids per unit, each on a fresh unit, and its default-layout
// twin is timed in batches of the same size and the same wait: the ratio is then the layout's
// cost alone, not that of a shorter loop or a longer spin.

const FlakeId = require('..')
const freshMillisecond = require('./millisecond.js')
const timing = require('./timing.js')

const { compileLoop } = timing

const PRESETS = ['flake-idgen', 'twitter', 'discord', 'instagram', 'snowcast', 'hazelcast', 'sonyflake']
// Calls per timed batch at most (as per-call.js), and the waiting one sample may take for
// fresh units: about 0.2 s for 1 ms units, up to a second for the layouts of fewer ids per unit.
const BATCH = 1000
const MIN_BATCHES = 200
const MIN_CALLS = 50_000
const MAX_WAIT_MS = 1000
// The default layout's limit: what a burst of BENCH_BURST ids is sized for (see bursts.js).
const DEFAULT_PER_MS = 4096

/** Calls per batch, batches per sample and unit for ids of `layout`. */
function shapeOf(layout) {
  const batch = Math.min(BATCH, layout.idsPerUnit)
  const wanted = Math.max(MIN_BATCHES, Math.ceil(MIN_CALLS / batch))
  const batches = Math.min(wanted, Math.max(MIN_BATCHES / 2, Math.floor(MAX_WAIT_MS / layout.timeUnitMs)))
  return { batch, batches, unitMs: layout.timeUnitMs }
}
const shapeKey = ({ batch, unitMs }) => `${batch}x${unitMs}`
const shapeLabel = ({ batch, unitMs }) => `${batch} calls per ${unitMs === 1 ? 'ms' : `${unitMs} ms`}`

// Node ids of their own (ids 0–99 are per-call.js's; Discord shares the default layout's state).
// One group per shape of batches, each led by its default-layout twin: a group's rounds run
// together, so that a preset and its twin are timed seconds apart at most, not minutes.
let nextNodeId = 160
const groups = new Map()
for (const name of PRESETS) {
  const layout = FlakeId.layout(name)
  const shape = shapeOf(layout)
  const key = shapeKey(shape)
  if (!groups.has(key)) {
    const twin = new FlakeId({ id: nextNodeId++ })
    groups.set(key, [
      {
        key: `default${key}`,
        call: `default layout \`next()\`, ${shapeLabel(shape)}`,
        generator: twin,
        fn: () => twin.next(),
        ...shape,
      },
    ])
  }
  const generator = new FlakeId({ layout: name, id: nextNodeId++ })
  groups.get(key).push({
    key: name,
    call: `\`layout: '${name}'\` \`next()\`, ${shapeLabel(shape)}`,
    generator,
    fn: () => generator.next(),
    of: `default${key}`,
    ...shape,
  })
}
const perCall = [...groups.values()].flat()

for (const [index, candidate] of perCall.entries()) candidate.loop = compileLoop(`layouts ${index} ${candidate.key}`)

/** Nanoseconds per call over the candidate's batches, each on a fresh unit of its layout. */
function sample(candidate) {
  return timing.sample(candidate, candidate.batches, candidate.batch, candidate.unitMs)
}

// A fresh node id for every batch run, as in bursts.js: no run inherits a unit another used up.
let runs = 0
const freshId = () => 200 + (runs++ % 800)

/** Resolves with the ms that `take()` took to give `count` ids, from the start of a fresh unit. */
async function timed(unitMs, take, count) {
  freshMillisecond(unitMs)
  const start = performance.now()
  const ids = await take()
  const ms = performance.now() - start
  if (!Buffer.isBuffer(ids) || ids.length !== count * 8) throw new Error(`expected ${count * 8} bytes of ids`)
  return ms
}

const batches = []
for (const name of PRESETS) {
  const layout = FlakeId.layout(name)
  const perMs = layout.idsPerUnit / layout.timeUnitMs
  // Sized so that every layout's batch lasts about as long as the default's BENCH_BURST ids.
  const size = (burst) => Math.max(layout.idsPerUnit, Math.round((burst * perMs) / DEFAULT_PER_MS))
  const make = () => new FlakeId({ layout: name, id: freshId() })
  batches.push(
    {
      key: `${name}Batch`,
      layout,
      perMs,
      size,
      call: `\`layout: '${name}'\` \`nextBatch(n)\``,
      make,
      run: (g, n) => timed(layout.timeUnitMs, () => g.nextBatch(n), n),
    },
    {
      key: `${name}BatchAsync`,
      layout,
      perMs,
      size,
      call: `\`layout: '${name}'\` \`await nextBatchAsync(n)\``,
      make,
      run: (g, n) => timed(layout.timeUnitMs, () => g.nextBatchAsync(n), n),
    },
  )
}

/** Why the ids of `generator` are garbage, or null: ascending, of its node id, of about now. */
function checkIds(generator, ids, before) {
  const { timeUnitMs } = generator.layout
  for (let offset = 8; offset < ids.length; offset += 8) {
    if (!(ids.readBigUInt64BE(offset) > ids.readBigUInt64BE(offset - 8))) return 'gave ids out of order'
  }
  for (const offset of [0, ids.length - 8]) {
    const parts = FlakeId.decompose(ids.subarray(offset, offset + 8), generator)
    if (parts.id !== generator.id) return `gave an id of node ${parts.id}, not ${generator.id}`
    if (parts.timestamp < before - timeUnitMs || parts.timestamp > Date.now() + timeUnitMs) {
      return `gave an id of time ${parts.timestamp}, not now`
    }
  }
  return null
}

/** Why the candidate's ids are garbage, or null if they look right. */
async function check(candidate) {
  const before = Date.now()
  if (candidate.fn) return checkIds(candidate.generator, Buffer.concat([candidate.fn(), candidate.fn()]), before)
  const generator = candidate.make()
  // Past one unit's ids, so that waiting for the next unit is checked too.
  const count = candidate.layout.idsPerUnit + 10
  const ids = candidate.key.endsWith('Async') ? await generator.nextBatchAsync(count) : generator.nextBatch(count)
  if (!Buffer.isBuffer(ids) || ids.length !== count * 8) return `did not give ${count} 8-byte ids`
  return checkIds(generator, ids, before)
}

module.exports = { PRESETS, groups: [...groups.values()], perCall, batches, sample, check }

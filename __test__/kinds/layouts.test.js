'use strict'
// Layouts (issue 23), proved by difference: Discord and Twitter against @sapphire/snowflake under
// the same clock, sonyflake against an npm port of it and against its published layout, the
// Discord, snowcast and Hazelcast vectors; then every API on every preset and on custom layouts,
// each option checked, and each layout's ids unique in one process and across worker threads.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { inspect } = require('node:util')
const { Worker } = require('node:worker_threads')
const { Snowflake } = require('@sapphire/snowflake')
const { Sonyflake } = require('sonyflake')
const FlakeIdgen = require('flake-idgen')
const FlakeId = require('../..')
const { scriptedClock, SEPARATE_MODULES_IN_WASM } = require('../support/helpers')

// The table, written here rather than read from FlakeId.layout(): the layouts the code
// resolves are checked against it.
const PRESETS = {
  'flake-idgen': { timeBits: 42, timeUnitMs: 1, nodeBits: 10, sequenceBits: 12, order: 'node-sequence', epoch: 0 },
  twitter: {
    timeBits: 41,
    timeUnitMs: 1,
    nodeBits: 10,
    sequenceBits: 12,
    order: 'node-sequence',
    epoch: 1288834974657,
  },
  discord: {
    timeBits: 42,
    timeUnitMs: 1,
    nodeBits: 10,
    sequenceBits: 12,
    order: 'node-sequence',
    epoch: 1420070400000,
  },
  instagram: {
    timeBits: 41,
    timeUnitMs: 1,
    nodeBits: 13,
    sequenceBits: 10,
    order: 'node-sequence',
    epoch: 1314220021721,
  },
  snowcast: {
    timeBits: 41,
    timeUnitMs: 1,
    nodeBits: 13,
    sequenceBits: 10,
    order: 'node-sequence',
    epoch: 1388534400000,
  },
  hazelcast: {
    timeBits: 41,
    timeUnitMs: 1,
    nodeBits: 16,
    sequenceBits: 6,
    order: 'sequence-node',
    epoch: 1514764800000,
  },
  sonyflake: {
    timeBits: 39,
    timeUnitMs: 10,
    nodeBits: 16,
    sequenceBits: 8,
    order: 'sequence-node',
    epoch: 1409529600000,
  },
}
const PARTS = {
  'flake-idgen': ['datacenter', 'worker'],
  twitter: ['datacenter', 'worker'],
  discord: ['worker', 'process'],
}
const KEYS = {
  'flake-idgen': '42/10/12',
  discord: '42/10/12',
  twitter: '41/10/12',
  hazelcast: '41/seq6/node16',
  sonyflake: '39x10ms/seq8/node16',
}

// Custom layouts: a 4 ms unit with the sequence first and an epoch that is no multiple of it; the
// widest node and sequence fields with a unit of a second; no node bits at all, in 64 bits.
const CUSTOMS = {
  'custom 47x4ms/seq3/node13': {
    timeBits: 47,
    timeUnitMs: 4,
    nodeBits: 13,
    sequenceBits: 3,
    order: 'sequence-node',
    epoch: 1600000000002,
  },
  'custom 31x1000ms/16/16': { timeBits: 31, timeUnitMs: 1000, nodeBits: 16, sequenceBits: 16 },
  'custom 50/0/14': { timeBits: 50, nodeBits: 0, sequenceBits: 14, epoch: 1000000000000 },
}

/** A layout of the table with its defaults filled in, as the code must resolve it. */
function spec(layout) {
  const given = typeof layout === 'string' ? PRESETS[layout] : layout
  return { timeUnitMs: 1, order: 'node-sequence', epoch: 0, ...given }
}

const EVERY_LAYOUT = [...Object.keys(PRESETS).map((name) => [name, name]), ...Object.entries(CUSTOMS)]

// The bits, from the table, in the test's own words.
const unitOf = (s, ms, epoch = s.epoch) => Math.floor(ms / s.timeUnitMs) - Math.floor(epoch / s.timeUnitMs)
const startOf = (s, timeField, epoch = s.epoch) => (timeField + Math.floor(epoch / s.timeUnitMs)) * s.timeUnitMs
// A state counts units in 42 - floor(log2(unit)) bits (139 years and more): ids stop where the
// time bits end or where that count does, whichever comes first.
/** The time field of the last unit ids can be issued in (by a clock of the generator's own). */
const lastField = (s) => Math.min(2 ** s.timeBits, 2 ** (42 - Math.floor(Math.log2(s.timeUnitMs)))) - 1
function encode(s, timeField, node, sequence) {
  const low = s.order === 'node-sequence' ? s.sequenceBits : s.nodeBits
  const high = s.order === 'node-sequence' ? node : sequence
  const lowValue = s.order === 'node-sequence' ? sequence : node
  return (BigInt(timeField) << BigInt(s.nodeBits + s.sequenceBits)) | (BigInt(high) << BigInt(low)) | BigInt(lowValue)
}
function split(s, id) {
  const n = BigInt(id)
  const field = (shift, bits) => Number((n >> BigInt(shift)) & ((1n << BigInt(bits)) - 1n))
  const nodeShift = s.order === 'node-sequence' ? s.sequenceBits : 0
  const sequenceShift = s.order === 'node-sequence' ? 0 : s.nodeBits
  return {
    timeField: Number(n >> BigInt(s.nodeBits + s.sequenceBits)),
    node: field(nodeShift, s.nodeBits),
    sequence: field(sequenceShift, s.sequenceBits),
  }
}
const bytes = (n) => {
  const buffer = Buffer.alloc(8)
  buffer.writeBigUInt64BE(BigInt(n))
  return buffer
}
const idsOf = (batch) => Array.from({ length: batch.length / 8 }, (_, i) => batch.readBigUInt64BE(8 * i))

/** What decompose must answer for an id of `node` and `sequence` at `timestamp`, in layout `name`. */
function parts(name, timestamp, node, sequence) {
  const common = { timestamp, date: new Date(timestamp), id: node, sequence }
  if (name === 'flake-idgen' || name === 'twitter') return { ...common, datacenter: node >> 5, worker: node & 31 }
  if (name === 'discord') return { ...common, worker: node >> 5, process: node & 31, increment: sequence }
  if (name === 'instagram') return { ...common, shardId: node }
  if (name === 'sonyflake') return { ...common, machineId: node }
  return common
}

/** A clock that moves `step` ms forward on every reading. */
function stepping(start, step) {
  let now = start - step
  return () => {
    now += step
    return now
  }
}

/**
 * The ids (bigints, in the order issued) follow layout `s` for node `node`: increasing, each time
 * unit's sequences 0, 1, 2... with at most 2^sequenceBits of them, times within [from, to] ms.
 */
function assertFollows(s, ids, { node, from, to }) {
  const perUnit = new Map()
  let previous = -1n
  for (const id of ids) {
    if (id <= previous) assert.fail(`id ${id} is not above the one before, ${previous}`)
    previous = id
    if (id >> BigInt(s.timeBits + s.nodeBits + s.sequenceBits) !== 0n) assert.fail(`id ${id} has bits above the layout`)
    const got = split(s, id)
    if (got.node !== node) assert.fail(`id ${id} has node ${got.node}, not ${node}`)
    const expected = perUnit.get(got.timeField) ?? 0
    if (got.sequence !== expected) assert.fail(`id ${id}: sequence ${got.sequence} in its unit, not ${expected}`)
    perUnit.set(got.timeField, expected + 1)
  }
  const [first, last] = [split(s, ids[0]).timeField, split(s, ids.at(-1)).timeField]
  assert.ok(first >= unitOf(s, from) && last <= unitOf(s, to), `time units ${first}..${last} outside the clock's`)
  return perUnit
}

// --- By difference: @sapphire/snowflake -----------------------------------------------------------

// sapphire puts `workerId` in bits 21-17 and `processId` in bits 16-12 (its generate():
// `(workerId & 31n) << 17n | (processId & 31n) << 12n`): the high and low halves of our node id,
// so Discord's worker/process, and Twitter's datacenter/worker.
const SAPPHIRE = [
  ['discord', (high, low) => ({ worker: high, process: low })],
  ['twitter', (high, low) => ({ datacenter: high, worker: low })],
]

for (const [name, partOptions] of SAPPHIRE) {
  test(`${name}: the bytes @sapphire/snowflake generates, under the same clock`, () => {
    const s = PRESETS[name]
    const sapphire = new Snowflake(s.epoch)
    const times = [s.epoch, s.epoch + 1, 1462015105796, 1700000000123, startOf(s, 2 ** s.timeBits - 1)]
    const halves = [
      [0, 0],
      [1, 0],
      [0, 1],
      [17, 5],
      [31, 31],
    ]
    for (const time of times) {
      for (const [high, low] of halves) {
        const ours = new FlakeId({ layout: name, ...partOptions(high, low), clock: () => time })
        const theirs = (increment) =>
          sapphire.generate({
            timestamp: BigInt(time),
            increment: BigInt(increment),
            workerId: BigInt(high),
            processId: BigInt(low),
          })
        assert.deepEqual(ours.next(), bytes(theirs(0)), `${time} ${high}/${low}`)
        assert.equal(ours.nextBigInt(), theirs(1))
        assert.equal(ours.nextString(), theirs(2).toString())
        // The last id of the millisecond: increment 4095.
        assert.equal(ours.nextBatch(4093).readBigUInt64BE(8 * 4092), theirs(4095))
      }
    }
  })

  test(`${name}: decompose reads what @sapphire/snowflake deconstructs`, () => {
    const sapphire = new Snowflake(PRESETS[name].epoch)
    const random = mulberry32(23)
    for (let i = 0; i < 2000; i++) {
      const id = sapphire.generate({
        timestamp: BigInt(PRESETS[name].epoch + Math.floor(random() * 2 ** 41)),
        increment: BigInt(Math.floor(random() * 4096)),
        workerId: BigInt(Math.floor(random() * 32)),
        processId: BigInt(Math.floor(random() * 32)),
      })
      const theirs = sapphire.deconstruct(id)
      const ours = FlakeId.decompose(id, { layout: name })
      const [high, low] = name === 'discord' ? [ours.worker, ours.process] : [ours.datacenter, ours.worker]
      assert.deepEqual(
        [ours.timestamp, high, low, ours.sequence, ours.id],
        [Number(theirs.timestamp), Number(theirs.workerId), Number(theirs.processId), Number(theirs.increment)].concat(
          Number(theirs.workerId) * 32 + Number(theirs.processId),
        ),
        `id ${id}`,
      )
      if (name === 'discord') assert.equal(ours.increment, Number(theirs.increment))
      assert.equal(FlakeId.fromTime(ours.timestamp, { layout: name }), (id >> 22n) << 22n)
    }
  })
}

/** A small seeded generator of numbers in [0, 1), so the random ids are the same every run. */
function mulberry32(seed) {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// --- The published vectors ------------------------------------------------------------------------

test("discord: 175928847299117063 is 2016-04-30T11:18:25.796Z, worker 1, process 0, increment 7 (Discord's API reference)", () => {
  const date = new Date('2016-04-30T11:18:25.796Z')
  for (const form of ['175928847299117063', 175928847299117063n, bytes(175928847299117063n)]) {
    assert.deepEqual(FlakeId.decompose(form, { layout: 'discord' }), {
      timestamp: date.getTime(),
      date,
      id: 32,
      sequence: 7,
      worker: 1,
      process: 0,
      increment: 7,
    })
  }
  // The smallest id of that millisecond: the same time bits, the 22 low bits 0.
  assert.equal(FlakeId.fromTime(date, { layout: 'discord' }), 175928847298985984n)
  assert.equal(FlakeId.fromTime(date.getTime() + 1, { layout: 'discord' }), 175928847298985984n + (1n << 22n))
  const generator = new FlakeId({ layout: 'discord', worker: 1, process: 0, clock: () => date.getTime() })
  assert.equal(generator.nextBatch(8).readBigUInt64BE(56), 175928847299117063n)
})

test('snowcast: its worked example, epoch 1388534400000, node 1234, at 1393823532000 (5289132000 << 23 | 1234 << 10 | counter)', () => {
  const generator = new FlakeId({ layout: 'snowcast', id: 1234, clock: () => 1393823532000 })
  assert.equal(generator.epoch, 1388534400000)
  for (const counter of [0n, 1n, 2n]) {
    const id = generator.nextBigInt()
    assert.equal(id, (5289132000n << 23n) | (1234n << 10n) | counter)
    assert.deepEqual(
      FlakeId.decompose(id, { layout: 'snowcast' }),
      parts('snowcast', 1393823532000, 1234, Number(counter)),
    )
  }
})

test('hazelcast: its documented layout (41 bits of ms since 2018-01-01, 6 sequence bits, then 16 node bits), by hand', () => {
  // 2023-11-14T22:13:20.000Z is 1700000000000 ms since 1970.
  //   time    = 1700000000000 - 1514764800000 (2018-01-01T00:00:00Z)  = 185235200000  (< 2^41 = 2199023255552)
  //   time << (6 + 16) = 185235200000 * 4194304                       = 776932740300800000
  //   node 65535 in the 16 low bits, sequence s in the 6 above them (s * 65536):
  //   s = 0: 776932740300800000 +      0 + 65535 = 776932740300865535
  //   s = 1: 776932740300800000 +  65536 + 65535 = 776932740300931071
  //   s = 2: 776932740300800000 + 131072 + 65535 = 776932740300996607
  const generator = new FlakeId({ layout: 'hazelcast', id: 65535, clock: () => 1700000000000 })
  assert.deepEqual(
    [generator.nextBigInt(), generator.nextBigInt(), generator.nextBigInt()],
    [776932740300865535n, 776932740300931071n, 776932740300996607n],
  )
  // 64 ids a millisecond (2^6): the 64th is s = 63, 776932740300800000 + 63 * 65536 + 65535 = 776932740304994303.
  assert.equal(generator.nextBatch(61).readBigUInt64BE(8 * 60), 776932740304994303n)
  assert.throws(() => generator.next(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
  assert.deepEqual(
    FlakeId.decompose(776932740300996607n, { layout: 'hazelcast' }),
    parts('hazelcast', 1700000000000, 65535, 2),
  )
  assert.equal(FlakeId.fromTime(1700000000000, { layout: 'hazelcast' }), 776932740300800000n)
})

// --- By difference: sonyflake ---------------------------------------------------------------------

// sonyflake (Go, its README): "39 bits for time in units of 10 msec, 8 bits for a sequence number,
// 16 bits for a machine id", the time since StartTime, 2014-09-01 00:00:00 UTC by default, as
// toSonyflakeTime(now) - toSonyflakeTime(StartTime), each the time in whole 10 ms units.
// The npm port (sonyflake 1.1.2) keeps those bit positions (time << 24 | sequence << 16 |
// machine) but counts its time in whole ms from its epoch: handed the times in 10 ms units, its
// generateCustomId() and decompose() are the Go layout's.
const SONY_UNIT_EPOCH = Math.floor(PRESETS.sonyflake.epoch / 10)

test('sonyflake: the bytes of the npm port, given the same time in 10 ms units', () => {
  const times = [1409529600000, 1409529600009, 1409529600010, 1700000000123, 1700000000129, 6907087738870]
  for (const machineId of [0, 1, 0xbeef, 65535]) {
    const port = new Sonyflake({ epoch: SONY_UNIT_EPOCH, machineId })
    for (const time of times) {
      const ours = new FlakeId({ layout: 'sonyflake', id: machineId, clock: () => time })
      const theirs = (sequence) => BigInt(port.generateCustomId({ timestamp: Math.floor(time / 10), sequence }))
      assert.deepEqual(ours.next(), bytes(theirs(0)), `${machineId} at ${time}`)
      assert.equal(ours.nextBigInt(), theirs(1))
      assert.equal(ours.nextBatch(254).readBigUInt64BE(8 * 253), theirs(255))
      // Past the last id of the last unit, no wait can help: the timestamp overflow.
      const code = time < 6907087738870 ? 'ERR_FLAKE_SEQUENCE_OVERFLOW' : 'ERR_FLAKE_TIMESTAMP_OVERFLOW'
      assert.throws(() => ours.next(), { code })
      const id = theirs(77)
      const read = Sonyflake.decompose(id.toString(), { epoch: SONY_UNIT_EPOCH })
      const expected = parts('sonyflake', read.timestamp * 10, read.machineId, read.sequence)
      assert.deepEqual(FlakeId.decompose(id, { layout: 'sonyflake' }), expected)
      assert.deepEqual(
        [read.machineId, read.sequence, read.timestamp * 10],
        [machineId, 77, Math.floor(time / 10) * 10],
      )
    }
  }
})

test('sonyflake: an epoch that is no multiple of 10 ms counts units as sonyflake does', () => {
  // floor(1409529600014 / 10) - floor(1409529600005 / 10) = 140952960001 - 140952960000 = 1 unit.
  const epoch = 1409529600005
  const generator = new FlakeId({ layout: 'sonyflake', epoch, id: 2, clock: () => 1409529600014 })
  const port = new Sonyflake({ epoch: Math.floor(epoch / 10), machineId: 2 })
  const id = generator.nextBigInt()
  assert.equal(id, (1n << 24n) | 2n)
  assert.equal(id, BigInt(port.generateCustomId({ timestamp: 140952960001, sequence: 0 })))
  assert.equal(FlakeId.decompose(id, generator).timestamp, 1409529600010)
  assert.equal(FlakeId.fromTime(1409529600019, generator), 1n << 24n)
})

test('sonyflake: its published layout, by hand, and its lifetime (2^39 units of 10 ms: 174 years)', () => {
  //   time = floor(1700000000123 / 10) - floor(1409529600000 / 10) = 170000000012 - 140952960000 = 29047040012
  //   id   = 29047040012 * 2^24 + sequence 3 * 2^16 + machine 0xBEEF (48879)
  //        = 487328464441966592 + 196608 + 48879 = 487328464442212079
  const generator = new FlakeId({ layout: 'sonyflake', id: 0xbeef, clock: () => 1700000000123 })
  assert.equal(generator.nextBatch(4).readBigUInt64BE(24), 487328464442212079n)
  // The last unit: (2^39 - 1 + 140952960000) * 10 = 6907087738870 ms, in 2188; the next one is out.
  const last = new FlakeId({ layout: 'sonyflake', clock: () => 6907087738879 })
  assert.equal(last.nextBigInt(), (2n ** 39n - 1n) << 24n)
  const past = new FlakeId({ layout: 'sonyflake', clock: () => 6907087738880 })
  assert.throws(() => past.next(), { name: 'RangeError', code: 'ERR_FLAKE_TIMESTAMP_OVERFLOW' })
})

test("'flake-idgen' is the default, byte for byte flake-idgen 1.4.0", () => {
  const clock = scriptedClock(1700000000000)
  const named = new FlakeId({ layout: 'flake-idgen', datacenter: 3, worker: 9, clock: clock.read })
  const plain = new FlakeId({ datacenter: 3, worker: 9, clock: clock.read })
  const theirs = new FlakeIdgen({ datacenter: 3, worker: 9 })
  for (let i = 0; i < 5; i++) {
    const expected = clock.withDateNow(() => theirs.next())
    assert.deepEqual(named.next(), expected)
    assert.deepEqual(plain.next(), expected)
    clock.now += i
  }
  const id = named.next()
  assert.deepEqual(FlakeId.decompose(id, { layout: 'flake-idgen' }), FlakeId.decompose(id))
  assert.deepEqual(Object.keys(FlakeId.decompose(id)), ['timestamp', 'date', 'datacenter', 'worker', 'id', 'sequence'])
})

// --- FlakeId.layout() and a generator's layout ----------------------------------------------------

test('FlakeId.layout(): each preset resolved as the table says, frozen', () => {
  for (const [name, s] of Object.entries(PRESETS)) {
    const layout = FlakeId.layout(name)
    assert.ok(Object.isFrozen(layout), name)
    const { timeBits, timeUnitMs, nodeBits, sequenceBits, order, epoch } = layout
    assert.deepEqual({ timeBits, timeUnitMs, nodeBits, sequenceBits, order, epoch }, s, name)
    assert.equal(layout.name, name)
    assert.deepEqual(layout.parts, PARTS[name] ?? [], name)
    assert.equal(layout.maxId, 2 ** s.nodeBits - 1, name)
    assert.equal(layout.idsPerUnit, 2 ** s.sequenceBits, name)
    if (KEYS[name]) assert.equal(layout.key, KEYS[name], name)
    // The last time ids can be issued at is in the unit of the largest time field they can have.
    const lastUnit = startOf(s, lastField(s))
    assert.ok(layout.lastTimestamp >= lastUnit && layout.lastTimestamp < lastUnit + s.timeUnitMs, name)
    assert.equal(typeof layout.maxAllowedFutureMs, 'number')
  }
  assert.equal(FlakeId.layout('flake-idgen').maxAllowedFutureMs, 1000)
  assert.equal(FlakeId.layout('hazelcast').maxAllowedFutureMs, 15000)
  assert.equal(FlakeId.layout('instagram').key, FlakeId.layout('snowcast').key)
  const keys = new Set(Object.keys(PRESETS).map((name) => FlakeId.layout(name).key))
  assert.equal(keys.size, 5, 'one key per shape: flake-idgen/discord and instagram/snowcast share theirs')
})

test('FlakeId.layout(): a custom layout, its defaults, and the resolved object accepted back', () => {
  const layout = FlakeId.layout({ timeBits: 41, nodeBits: 10, sequenceBits: 12 })
  assert.equal(layout.name, 'custom')
  assert.deepEqual(
    [layout.timeUnitMs, layout.order, layout.epoch, layout.key, layout.parts],
    [1, 'node-sequence', 0, '41/10/12', []],
  )
  for (const [name, custom] of Object.entries(CUSTOMS)) {
    const resolved = FlakeId.layout(custom)
    const again = FlakeId.layout(resolved)
    for (const field of ['timeBits', 'timeUnitMs', 'nodeBits', 'sequenceBits', 'order', 'epoch', 'key', 'maxId']) {
      assert.equal(again[field], resolved[field], `${name}: ${field}`)
      if (field in custom) assert.equal(resolved[field], custom[field], `${name}: ${field}`)
    }
  }
  assert.equal(FlakeId.layout(CUSTOMS['custom 47x4ms/seq3/node13']).key, '47x4ms/seq3/node13')
  assert.equal(FlakeId.layout(FlakeId.layout('sonyflake')).key, '39x10ms/seq8/node16')
})

test("a generator's layout: resolved with the epoch it uses; explicit epoch wins over the layout's", () => {
  for (const [label, layout] of EVERY_LAYOUT) {
    const s = spec(layout)
    const plain = new FlakeId({ layout, clock: () => 1700000000000 })
    assert.deepEqual(plain.layout, FlakeId.layout(layout), label)
    assert.equal(plain.epoch, s.epoch, label)
    const epoch = 1500000000007
    const moved = new FlakeId({ layout, epoch, clock: () => 1700000000000 })
    assert.equal(moved.epoch, epoch, label)
    assert.equal(moved.layout.epoch, epoch, label)
    assert.equal(moved.layout.key, plain.layout.key, label)
    const id = moved.nextBigInt()
    assert.equal(split(s, id).timeField, unitOf(s, 1700000000000, epoch), label)
    assert.equal(FlakeId.decompose(id, moved).timestamp, startOf(s, unitOf(s, 1700000000000, epoch), epoch), label)
    assert.equal(FlakeId.decompose(id, { layout, epoch }).timestamp, FlakeId.decompose(id, moved).timestamp, label)
    const lastUnit = startOf(s, lastField(s), epoch)
    assert.ok(moved.layout.lastTimestamp >= lastUnit && moved.layout.lastTimestamp < lastUnit + s.timeUnitMs, label)
  }
})

// --- Every API follows the layout, on every preset and custom layouts -----------------------------

const NOW = 1700000000123

for (const [label, layout] of EVERY_LAYOUT) {
  const s = spec(layout)
  const perUnit = 2 ** s.sequenceBits
  const node = 2 ** s.nodeBits - 1
  const name = typeof layout === 'string' ? layout : 'custom'

  test(`${label}: next, nextBigInt, nextString, decompose and fromTime`, () => {
    let now = NOW
    const generator = new FlakeId({ layout, id: node, clock: () => now })
    assert.equal(generator.id, node)
    const expect = (sequence) => encode(s, unitOf(s, now), node, sequence)
    assert.deepEqual(generator.next(), bytes(expect(0)))
    assert.equal(generator.nextBigInt(), expect(1))
    assert.equal(generator.nextString(), expect(2).toString())
    // Within the unit (for units longer than 1 ms) the sequence goes on; in the next one it restarts.
    const inUnit = startOf(s, unitOf(s, now)) + s.timeUnitMs - 1
    now = inUnit
    assert.equal(generator.nextBigInt(), expect(3))
    now = inUnit + 1
    const id = generator.nextBigInt()
    assert.equal(id, expect(0))
    assert.deepEqual(generator.stats(), { ids: 5, overflows: 0, clockBackwards: 0, waits: 0 })
    const timestamp = startOf(s, unitOf(s, now))
    const expected = parts(name, timestamp, node, 0)
    assert.deepEqual(FlakeId.decompose(id, generator), expected)
    assert.deepEqual(FlakeId.decompose(id, { layout: generator.layout }), expected)
    if (typeof layout === 'string') assert.deepEqual(FlakeId.decompose(id, { layout }), expected)
    assert.deepEqual(FlakeId.decompose(bytes(id), { layout }), expected)
    // fromTime: the smallest id of the unit holding `time`, at or below every id of that unit.
    for (const time of [timestamp, timestamp + s.timeUnitMs - 1, new Date(timestamp)]) {
      assert.equal(FlakeId.fromTime(time, generator), encode(s, unitOf(s, now), 0, 0))
    }
    assert.equal(FlakeId.fromTime(timestamp + s.timeUnitMs, { layout }), encode(s, unitOf(s, now) + 1, 0, 0))
    assert.ok(FlakeId.fromTime(timestamp - 1, { layout }) < id)
  })

  test(`${label}: ${perUnit} ids a unit, then the overflow, counted by stats()`, () => {
    const generator = new FlakeId({ layout, id: node, clock: () => NOW })
    const ids = idsOf(generator.nextBatch(perUnit))
    assert.deepEqual(
      ids,
      Array.from({ length: perUnit }, (_, i) => encode(s, unitOf(s, NOW), node, i)),
    )
    assert.throws(() => generator.nextBigInt(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
    assert.throws(() => generator.nextBatch(1), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
    assert.deepEqual(generator.stats(), { ids: perUnit, overflows: 2, clockBackwards: 0, waits: 0 })
  })

  test(`${label}: nextBatch and nextBatchAsync of 3 x ${perUnit} ids, at most ${perUnit} a unit`, async () => {
    const step = Math.ceil(s.timeUnitMs / 4)
    for (const take of [(g, n) => g.nextBatch(n), (g, n) => g.nextBatchAsync(n)]) {
      const generator = new FlakeId({ layout, id: node, clock: stepping(NOW, step) })
      const batch = await take(generator, 3 * perUnit)
      assert.equal(batch.length, 3 * perUnit * 8)
      const units = assertFollows(s, idsOf(batch), { node, from: NOW, to: NOW + 1_000_000 * step })
      for (const count of units.values()) assert.ok(count <= perUnit)
      assert.ok(units.size >= 3)
      assert.equal(generator.stats().ids, 3 * perUnit)
    }
  })

  test(`${label}: next(cb) and nextAsync wait for the next unit, in call order`, async () => {
    let now = NOW
    const generator = new FlakeId({ layout, id: node, clock: () => now })
    const ids = await new Promise((resolve, reject) => {
      const got = []
      // One id more than the unit holds: the last waits until the clock reaches the next unit,
      // which the callback of the unit's last id moves it to.
      for (let i = 0; i <= perUnit; i++) {
        generator.next((error, id) => {
          if (error) return reject(error)
          got.push(id.readBigUInt64BE(0))
          if (got.length === perUnit) now = startOf(s, unitOf(s, NOW) + 1)
          if (got.length === perUnit + 1) resolve(got)
        })
      }
    })
    assertFollows(s, ids, { node, from: NOW, to: now })
    assert.equal(ids.at(-1), encode(s, unitOf(s, NOW) + 1, node, 0))
    assert.deepEqual(generator.stats(), { ids: perUnit + 1, overflows: 1, clockBackwards: 0, waits: 1 })
    const more = [await generator.nextAsync(), await generator.nextAsync()].map((id) => id.readBigUInt64BE(0))
    assert.deepEqual(more, [encode(s, unitOf(s, now), node, 1), encode(s, unitOf(s, now), node, 2)])
  })

  test(`${label}: the last unit ids can be issued in, then the timestamp overflow`, () => {
    const { lastTimestamp } = FlakeId.layout(layout)
    const last = new FlakeId({ layout, id: node, clock: () => lastTimestamp })
    const id = last.nextBigInt()
    assert.equal(id, encode(s, lastField(s), node, 0))
    const total = s.timeBits + s.nodeBits + s.sequenceBits
    // 64-bit layouts use the top bit: the id is still unsigned, and its bytes still sort.
    if (total === 64 && lastField(s) === 2 ** s.timeBits - 1) assert.ok(id >= 2n ** 63n && last.next()[0] >= 0x80)
    if (total === 63) assert.ok(id < 2n ** 63n)
    assert.equal(FlakeId.decompose(id, { layout }).timestamp, startOf(s, lastField(s)))
    const past = new FlakeId({ layout, clock: () => startOf(s, lastField(s) + 1) })
    assert.throws(() => past.next(), { name: 'RangeError', code: 'ERR_FLAKE_TIMESTAMP_OVERFLOW' })
  })
}

test('the parts of each layout: datacenter/worker (flake-idgen, twitter), worker/process (discord)', () => {
  const clock = () => NOW
  const twitter = new FlakeId({ layout: 'twitter', datacenter: 3, worker: 7, clock })
  assert.deepEqual([twitter.id, twitter.datacenter, twitter.worker], [103, 3, 7])
  assert.deepEqual(FlakeId.decompose(twitter.next(), twitter), parts('twitter', NOW, 103, 0))
  const discord = new FlakeId({ layout: 'discord', worker: 1, process: 2, clock })
  assert.deepEqual([discord.id, discord.worker, discord.process], [34, 1, 2])
  assert.deepEqual(FlakeId.decompose(discord.next(), discord), parts('discord', NOW, 34, 0))
  // As in flake-idgen, `id` wins over the parts when both are given.
  assert.equal(new FlakeId({ layout: 'discord', id: 5, worker: 1, process: 1 }).id, 5)
  assert.equal(new FlakeId({ layout: 'discord', worker: '31', process: '31' }).id, 1023)
})

test('a part option on a layout without it is a TypeError naming it; a part out of range a RangeError', () => {
  const refused = [
    [{ layout: 'discord', datacenter: 1 }, TypeError, 'datacenter'],
    [{ layout: 'hazelcast', worker: 1 }, TypeError, 'worker'],
    [{ layout: 'sonyflake', datacenter: 0 }, TypeError, 'datacenter'],
    [{ layout: 'twitter', process: 1 }, TypeError, 'process'],
    [{ layout: { timeBits: 41, nodeBits: 10, sequenceBits: 12 }, worker: 1 }, TypeError, 'worker'],
    [{ layout: 'discord', worker: 32 }, RangeError, 'option `worker` must be an integer from 0 to 31, got 32'],
    [{ layout: 'discord', process: -1 }, RangeError, 'option `process` must be an integer from 0 to 31, got -1'],
  ]
  for (const [options, ErrorClass, fragment] of refused) assertRefused(() => new FlakeId(options), ErrorClass, fragment)
})

// flake-idgen ignores options it does not know, and its layout, named or not, does the same;
// Twitter's, with the same parts, is new and refuses them.
test("a part the layout lacks: ignored by 'flake-idgen' (named or the default) as flake-idgen does, refused by 'twitter'", () => {
  assert.equal(new FlakeId({ process: 1 }).id, 0)
  assert.equal(new FlakeId({ layout: 'flake-idgen', process: 1 }).id, 0)
  assertRefused(() => new FlakeId({ layout: 'twitter', process: 1 }), TypeError, 'option `process`')
})

test('`id` ranges over the layout: 0 to 2^nodeBits - 1', () => {
  for (const [label, layout] of EVERY_LAYOUT) {
    const maxId = 2 ** spec(layout).nodeBits - 1
    assert.equal(new FlakeId({ layout, id: maxId }).id, maxId, label)
    assert.equal(new FlakeId({ layout, id: String(maxId) }).id, maxId, label)
    const message = `option \`id\` must be an integer from 0 to ${maxId}, got ${maxId + 1}`
    assertRefused(() => new FlakeId({ layout, id: maxId + 1 }), RangeError, message)
  }
  assert.equal(new FlakeId({ layout: 'hazelcast', id: 65535 }).id, 65535)
  assertRefused(() => new FlakeId({ layout: 'hazelcast', id: 65536 }), RangeError, 'got 65536')
})

test('seqMask ranges over the layout: 2^k - 1 for k from 1 to sequenceBits', () => {
  assert.equal(new FlakeId({ layout: 'hazelcast' }).seqMask, 63)
  assert.equal(new FlakeId({ layout: 'hazelcast', seqMask: 63 }).seqMask, 63)
  assertRefused(() => new FlakeId({ layout: 'hazelcast', seqMask: 127 }), RangeError, 'got 127')
  assert.equal(new FlakeId({ layout: CUSTOMS['custom 31x1000ms/16/16'] }).seqMask, 65535)
  const generator = new FlakeId({ layout: 'sonyflake', seqMask: 3, id: 9, clock: () => NOW })
  assert.deepEqual(
    idsOf(generator.nextBatch(4)),
    [0, 1, 2, 3].map((i) => encode(PRESETS.sonyflake, unitOf(PRESETS.sonyflake, NOW), 9, i)),
  )
  assert.throws(() => generator.next(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
})

test("allowedFutureMs: up to the layout's maxAllowedFutureMs (hazelcast's 15,000; the default's 1,000)", () => {
  for (const [label, layout] of EVERY_LAYOUT) {
    const max = FlakeId.layout(layout).maxAllowedFutureMs
    assert.ok(Number.isInteger(max) && max >= 0, label)
    assert.equal(new FlakeId({ layout, allowedFutureMs: max }).allowedFutureMs, max, label)
    assertRefused(() => new FlakeId({ layout, allowedFutureMs: max + 1 }), RangeError, `got ${max + 1}`)
  }
  assert.equal(new FlakeId({ layout: 'hazelcast', allowedFutureMs: 15000 }).allowedFutureMs, 15000)
  assertRefused(
    () => new FlakeId({ allowedFutureMs: 1001 }),
    RangeError,
    'option `allowedFutureMs` must be an integer number of ms from 0 to 1000, got 1001',
  )
  assertRefused(() => new FlakeId({ layout: 'twitter', allowedFutureMs: 15001 }), RangeError, 'got 15001')
})

test('hazelcast borrows up to 15,000 ms ahead of a clock that stands still, then overflows', () => {
  const generator = new FlakeId({ layout: 'hazelcast', id: 7, allowedFutureMs: 15000, clock: () => NOW })
  // 64 ids in each of the 15,001 milliseconds from NOW to NOW + 15,000.
  const batch = generator.nextBatch(64 * 15001)
  const ids = idsOf(batch)
  assert.equal(ids.at(-1), encode(PRESETS.hazelcast, unitOf(PRESETS.hazelcast, NOW + 15000), 7, 63))
  for (let i = 1; i < ids.length; i++) if (ids[i] <= ids[i - 1]) assert.fail(`id ${i} does not ascend`)
  assert.throws(() => generator.next(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
})

test('sonyflake borrows in whole 10 ms units, never more than allowedFutureMs ahead', () => {
  // allowedFutureMs 25 from the start of a unit: the unit itself and 2 more (20 ms ahead), not a
  // third (30 ms ahead).
  const start = startOf(PRESETS.sonyflake, unitOf(PRESETS.sonyflake, NOW))
  const generator = new FlakeId({ layout: 'sonyflake', id: 7, allowedFutureMs: 25, clock: () => start })
  let count = 0
  let last
  for (;;) {
    try {
      last = generator.nextBigInt()
      count++
    } catch (error) {
      assert.equal(error.code, 'ERR_FLAKE_SEQUENCE_OVERFLOW')
      break
    }
    if (count > 256 * 10) assert.fail('borrowed without end')
  }
  assert.equal(count, 256 * 3)
  assert.equal(last, encode(PRESETS.sonyflake, unitOf(PRESETS.sonyflake, start) + 2, 7, 255))
})

// --- Each custom field checked --------------------------------------------------------------------

const BAD_LAYOUTS = [
  // [layout, error class, what the message must hold]
  [{ timeBits: 40, nodeBits: 10, sequenceBits: 12 }, RangeError, ['layout.timeBits', '40']],
  [{ timeBits: 43, nodeBits: 10, sequenceBits: 12 }, RangeError, ['layout.timeBits', '43']],
  [{ nodeBits: 10, sequenceBits: 12 }, TypeError, ['layout.timeBits', 'undefined']],
  [{ timeBits: 35, nodeBits: 17, sequenceBits: 12 }, RangeError, ['layout.nodeBits', '17']],
  [{ timeBits: 42, nodeBits: -1, sequenceBits: 12 }, RangeError, ['layout.nodeBits', '-1']],
  [{ timeBits: 53, nodeBits: 10, sequenceBits: 0 }, RangeError, ['layout.sequenceBits', 'got 0']],
  [{ timeBits: 36, nodeBits: 10, sequenceBits: 17 }, RangeError, ['layout.sequenceBits', '17']],
  [{ timeBits: 41, nodeBits: 10, sequenceBits: 12, timeUnitMs: 0 }, RangeError, ['layout.timeUnitMs', 'got 0']],
  [{ timeBits: 41, nodeBits: 10, sequenceBits: 12, timeUnitMs: 1001 }, RangeError, ['layout.timeUnitMs', '1001']],
  [{ timeBits: 41, nodeBits: 10, sequenceBits: 12, timeUnitMs: 1.5 }, RangeError, ['layout.timeUnitMs', '1.5']],
  [{ timeBits: 41, nodeBits: 10, sequenceBits: 12, timeUnitMs: '10ms' }, TypeError, ['layout.timeUnitMs', '"10ms"']],
  [{ timeBits: 41, nodeBits: 10, sequenceBits: 12, order: 'x' }, TypeError, ['layout.order', '"x"']],
  [{ timeBits: 41, nodeBits: 10, sequenceBits: 12, epoch: -1 }, RangeError, ['layout.epoch', '-1']],
  ['snowflake', TypeError, ['layout', '"snowflake"', ...Object.keys(PRESETS)]],
  ['', TypeError, ['layout', '""']],
  [42, TypeError, ['layout', '42']],
]

for (const [layout, ErrorClass, fragments] of BAD_LAYOUTS) {
  test(`refuses layout ${inspect(layout)}, naming the field and the value`, () => {
    for (const attempt of [
      () => new FlakeId({ layout }),
      () => FlakeId.layout(layout),
      () => FlakeId.decompose(1n, { layout }),
      () => FlakeId.fromTime(NOW, { layout }),
    ]) {
      for (const fragment of fragments) assertRefused(attempt, ErrorClass, fragment)
    }
  })
}

test("a custom layout's epoch in the future is refused as the `epoch` option is, naming `layout.epoch` and its value", () => {
  const epoch = Date.now() + 1e9
  const layout = { timeBits: 41, nodeBits: 10, sequenceBits: 12, epoch }
  assertRefused(() => new FlakeId({ epoch }), RangeError, `got ${epoch}`)
  assertRefused(() => new FlakeId({ layout }), RangeError, 'option `layout.epoch`')
  assertRefused(() => new FlakeId({ layout }), RangeError, `got ${epoch}`)
  // An explicit epoch wins, and decompose reads ids of any epoch.
  assert.equal(new FlakeId({ layout, epoch: 5 }).epoch, 5)
  assert.equal(FlakeId.decompose(1n << 22n, { layout }).timestamp, epoch + 1)
})

/** `fn` throws an ErrorClass coded ERR_FLAKE_INVALID_OPTION whose message holds `fragment`. */
function assertRefused(fn, ErrorClass, fragment) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof ErrorClass, `${error.name}: ${error.message} (wanted a ${ErrorClass.name})`)
    assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION', error.message)
    assert.ok(error.message.includes(fragment), `${JSON.stringify(error.message)} does not hold ${fragment}`)
    return true
  })
}

// --- Uniqueness per layout ------------------------------------------------------------------------

/** Sync next() as a bigint, spinning through overflow. */
function nextSpinning(generator) {
  for (;;) {
    try {
      return generator.nextBigInt()
    } catch (error) {
      if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
    }
  }
}

test('two layouts with the same id never share a state: no sequence of either is taken by the other', () => {
  // On the system clock, so on the shared state of each (layout, id). Had twitter and hazelcast
  // (or the default) one state, their ids would take sequence numbers from one counter, and each
  // layout's sequence would skip within a millisecond.
  const layouts = ['twitter', 'hazelcast', 'flake-idgen', 'sonyflake']
  const generators = layouts.map((layout) => new FlakeId({ layout, id: 901 }))
  const ids = layouts.map(() => [])
  for (let i = 0; i < 20_000; i++) {
    for (let g = 0; g < generators.length; g++) ids[g].push(nextSpinning(generators[g]))
  }
  layouts.forEach((layout, g) => {
    const s = PRESETS[layout]
    let previous = split(s, ids[g][0])
    for (const id of ids[g].slice(1)) {
      const got = split(s, id)
      if (got.node !== 901) assert.fail(`${layout}: node ${got.node}`)
      if (got.timeField < previous.timeField) assert.fail(`${layout}: time went back at ${id}`)
      if (got.timeField === previous.timeField && got.sequence !== previous.sequence + 1) {
        assert.fail(
          `${layout}: sequence ${previous.sequence} then ${got.sequence} in one unit: another layout took some`,
        )
      }
      previous = got
    }
    assert.equal(new Set(ids[g]).size, ids[g].length, layout)
  })
})

// Spins through overflow with sync next(), as fast as the state allows, to collide if the state
// were per thread.
const workerSource = `
  const { parentPort, workerData } = require('node:worker_threads')
  const FlakeId = require(workerData.entry)
  const generator = new FlakeId(workerData.options)
  const ids = new BigUint64Array(workerData.count)
  parentPort.postMessage('ready')
  parentPort.once('message', () => {
    // Both threads in this loop before either issues: on a loaded machine, 'go' can reach one
    // thread only after the other has issued all its ids, and then no millisecond is shared.
    const started = new Int32Array(workerData.started)
    Atomics.add(started, 0, 1)
    Atomics.notify(started, 0)
    for (let seen; (seen = Atomics.load(started, 0)) < 2; ) Atomics.wait(started, 0, seen, 10)
    for (let i = 0; i < workerData.count; ) {
      try {
        ids[i] = generator.nextBigInt()
        i++
      } catch (error) {
        if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
      }
    }
    parentPort.postMessage(ids)
  })
`

function startWorker(options, count, started) {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { entry: path.join(__dirname, '..', '..'), options, count, started },
  })
  const next = () =>
    new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
  const ready = next()
  return { worker, ready, ids: ready.then(next) }
}

test('hazelcast id 65535 in 2 worker threads: 20,000 ids each, none repeated', {
  skip: SEPARATE_MODULES_IN_WASM,
}, async () => {
  const options = { layout: 'hazelcast', id: 65535 }
  const started = new SharedArrayBuffer(4)
  const workers = [startWorker(options, 20_000, started), startWorker(options, 20_000, started)]
  await Promise.all(workers.map((w) => w.ready))
  for (const { worker } of workers) worker.postMessage('go')
  const lists = await Promise.all(workers.map((w) => w.ids))
  await Promise.all(workers.map((w) => w.worker.terminate()))
  const owner = new Map()
  const spans = []
  lists.forEach((ids, thread) => {
    assert.equal(ids.length, 20_000)
    assertFollowsLoosely(ids, thread)
    for (const id of ids) {
      if (owner.has(id)) assert.fail(`thread ${thread}: ${id} is thread ${owner.get(id)}'s too`)
      owner.set(id, thread)
    }
    const times = ids.map((id) => id >> 22n)
    spans.push([times.reduce((a, b) => (b < a ? b : a)), times.reduce((a, b) => (b > a ? b : a))])
  })
  // With spans of milliseconds that do not overlap, the threads never ran side by side: a state
  // per thread would have passed too. They need not share a millisecond: at 64 ids a millisecond,
  // one thread often takes a whole one, and the other, finding it used up, waits for the next.
  const [[firstA, lastA], [firstB, lastB]] = spans
  assert.ok(
    (firstA > firstB ? firstA : firstB) <= (lastA < lastB ? lastA : lastB),
    `the threads issued one after the other: ${spans}`,
  )
})

/** One thread's hazelcast ids: increasing, on node 65535. */
function assertFollowsLoosely(ids, thread) {
  let previous = -1n
  for (const id of ids) {
    if (id <= previous) assert.fail(`thread ${thread}: ${id} is not above ${previous}`)
    if ((id & 0xffffn) !== 0xffffn) assert.fail(`thread ${thread}: ${id} is not node 65535`)
    previous = id
  }
}

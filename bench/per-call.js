'use strict'
// Candidates that return one id per call, and how one sample of them is timed.
//
// Our next() throws past 4,096 ids in one millisecond, so every timed batch starts on a fresh
// millisecond (the wait is not timed) and stays well under that; every candidate gets the same
// batches.

const { Buffer } = require('node:buffer')
const { loadBefore } = require('./before.js')
const FlakeIdgen = require('flake-idgen')
const { Snowflake: Sapphire } = require('@sapphire/snowflake')
const { Snowflake: WasmSnowflake } = require('nodejs-snowflake')
const Snowflakify = require('snowflakify').default
const hyperid = require('hyperid')
const FlakeId = require('..')
const timing = require('./timing.js')
const { floor } = require('./floor.js')

const { compileLoop } = timing

// 1,000 calls also stay under nodejs-snowflake's 1,024 ids per millisecond, past which it spins.
const BATCH = 1000
// 200,000 calls per sample: a young-generation GC (up to ~1 ms here) that falls in a sample or
// not then moves it by a few ns per call, not by tens as with 40,000.
const BATCHES = 200

// Distinct generator ids: each has its own 4,096 ids per millisecond, shared process-wide.
// Default options: host scope, the state in a mapped file shared by the host's processes.
const ours = new FlakeId({ id: 64 })
const oursProcess = new FlakeId({ id: 65, scope: 'process' })
const oursBigInt = new FlakeId({ id: 66 })
const oursString = new FlakeId({ id: 67 })
const theirs = new FlakeIdgen({ id: 4 })
// Many generators called from one place, as a service with one per table or tenant does
// (ids 68–70, and 0–63 as issue 40 timed them; a batch of 1,000 calls stays far below their
// 4,096 ids per ms each). Each call of 64 switches instance: what a switch costs shows here.
const three = [68, 69, 70].map((id) => new FlakeId({ id }))
const sixtyFour = Array.from({ length: 64 }, (_, i) => new FlakeId({ id: i }))
let turn3 = 0
let turn64 = 0
const sapphire = new Sapphire(0)
const wasm = new WasmSnowflake({ instance_id: 5 })
const snowflakify = new Snowflakify()
const hyper = hyperid()

// `genId`: the id has flake-idgen's layout (epoch 0), so its time and generator id are checked.
const candidates = [
  { key: 'next', pkg: 'flake-idgen-rs', call: '`next()`', fn: () => ours.next(), kind: 'buffer', genId: 64 },
  {
    key: 'nextProcess',
    pkg: 'flake-idgen-rs',
    call: "`next()`, scope: 'process'",
    fn: () => oursProcess.next(),
    kind: 'buffer',
    genId: 65,
  },
  {
    key: 'next3',
    pkg: 'flake-idgen-rs',
    call: '`next()`, 3 generators round-robin',
    fn: () => {
      turn3 = turn3 === 2 ? 0 : turn3 + 1
      return three[turn3].next()
    },
    kind: 'buffer',
  },
  {
    key: 'next64',
    pkg: 'flake-idgen-rs',
    call: '`next()`, 64 generators (ids 0–63) round-robin',
    fn: () => sixtyFour[turn64++ & 63].next(),
    kind: 'buffer',
  },
  {
    key: 'nextBigInt',
    pkg: 'flake-idgen-rs',
    call: '`nextBigInt()`',
    fn: () => oursBigInt.nextBigInt(),
    kind: 'bigint',
    genId: 66,
  },
  {
    key: 'nextString',
    pkg: 'flake-idgen-rs',
    call: '`nextString()`',
    fn: () => oursString.nextString(),
    kind: 'decimal',
    genId: 67,
  },
  { key: 'flakeIdgen', pkg: 'flake-idgen', call: '`next()`', fn: () => theirs.next(), kind: 'buffer', genId: 4 },
  { key: 'sapphire', pkg: '@sapphire/snowflake', call: '`generate()`', fn: () => sapphire.generate(), kind: 'bigint' },
  { key: 'wasm', pkg: 'nodejs-snowflake', call: '`getUniqueID()`', fn: () => wasm.getUniqueID(), kind: 'bigint' },
  { key: 'snowflakify', pkg: 'snowflakify', call: '`nextId()`', fn: () => snowflakify.nextId(), kind: 'bigint' },
  {
    key: 'hyperid',
    pkg: 'hyperid',
    call: '`hyperid()()`, not a snowflake: reference',
    fn: () => hyper(),
    kind: 'text',
  },
  {
    key: 'floor',
    call: 'floor: `Date.now()` + `Buffer.alloc(8)`',
    fn: floor,
    kind: 'buffer',
  },
]

// BENCH_BEFORE=<a checkout with its addon built>: that build's next() rows too, timed side by
// side with these in the same rounds, for a change's cost against the build before it. Its
// generators take ids of their own, so the two builds never share a state word.
const Before = loadBefore()
if (Before) {
  const before = new Before({ id: 71 })
  const beforeProcess = new Before({ id: 72, scope: 'process' })
  const beforeBigInt = new Before({ id: 73 })
  const beforeThree = [84, 85, 86].map((id) => new Before({ id }))
  const beforeSixtyFour = Array.from({ length: 64 }, (_, i) => new Before({ id: 87 + i }))
  let turn = 0
  const label = (call) => `build before (BENCH_BEFORE) ${call}`
  candidates.splice(
    6,
    0,
    { key: 'beforeNext', call: label('`next()`'), fn: () => before.next(), kind: 'buffer', genId: 71 },
    {
      key: 'beforeProcess',
      call: label("`next()`, scope: 'process'"),
      fn: () => beforeProcess.next(),
      kind: 'buffer',
      genId: 72,
    },
    {
      key: 'before3',
      call: label('`next()`, 3 generators'),
      fn: () => {
        turn = turn === 2 ? 0 : turn + 1
        return beforeThree[turn].next()
      },
      kind: 'buffer',
    },
    {
      key: 'before64',
      call: label('`next()`, 64 generators (ids 87–150) round-robin'),
      fn: () => beforeSixtyFour[turn64++ & 63].next(),
      kind: 'buffer',
    },
    {
      key: 'beforeBigInt',
      call: label('`nextBigInt()`'),
      fn: () => beforeBigInt.nextBigInt(),
      kind: 'bigint',
      genId: 73,
    },
  )
}

for (const [index, candidate] of candidates.entries()) candidate.loop = compileLoop(`${index} ${candidate.key}`)

/** Nanoseconds per call over BATCHES batches of BATCH calls, each on a fresh millisecond. */
const sample = (candidate) => timing.sample(candidate, BATCHES, BATCH)

const U64 = 2n ** 64n
// What each kind of id must be, and how to read it as something to compare with the next one.
const kinds = {
  buffer: ['an 8-byte Buffer', (v) => (Buffer.isBuffer(v) && v.length === 8 ? v.readBigUInt64BE(0) : undefined)],
  bigint: ['a positive 64-bit bigint', (v) => (typeof v === 'bigint' && v > 0n && v < U64 ? v : undefined)],
  // The format of BigInt's toString(): nextBigInt() in decimal.
  decimal: [
    'a decimal string as BigInt gives it',
    (v) => (typeof v === 'string' && /^[1-9][0-9]*$/.test(v) && BigInt(v) < U64 ? BigInt(v) : undefined),
  ],
  text: ['a non-empty string', (v) => (typeof v === 'string' && v.length > 0 ? v : undefined)],
}

/** Why the candidate's ids are garbage, or null if two calls in a row look right. */
function check(candidate) {
  const [what, read] = kinds[candidate.kind]
  const before = Date.now()
  const first = read(candidate.fn())
  const second = read(candidate.fn())
  if (first === undefined || second === undefined) return `does not return ${what}`
  if (candidate.key === 'floor') return null
  if (candidate.kind === 'text' ? first === second : !(second > first)) return 'returned ids out of order'
  if (candidate.genId === undefined) return null
  const time = Number(second >> 22n)
  if (time < before - 1 || time > Date.now() + 1) return `returned an id of time ${time}, not now`
  if (Number((second >> 12n) & 1023n) !== candidate.genId) return `returned an id not of generator ${candidate.genId}`
  return null
}

module.exports = { candidates, sample, check, BATCHES, BATCH }

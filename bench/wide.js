'use strict'
// 128-bit ids (issue 24): `uuidv7` and `Flake128` beside crypto.randomUUID(), uuid's v7(), ulid's
// monotonic factory and the 64-bit `next()`, per call in the same rounds; and their batches
// against the host's limit.
//
// Our ids per millisecond are limited per host (32,768 UUIDv7s, 65,536 Flake128 ids; one
// counter for every process), and a call waits once they are used: every timed batch of calls
// starts on a fresh millisecond (the wait is not timed) and stays well under the limit, as in
// per-call.js, and every candidate gets the same batches.

// Buffer from the module, as per-call.js's floor and lib/binding/native.js take it: the global is an
// accessor that costs a few ns per use.
const { Buffer } = require('node:buffer')
const crypto = require('node:crypto')
const uuid = require('uuid')
const { monotonicFactory } = require('ulid')
const FlakeId = require('..')
const binding = require('../lib/binding/load-binding.js')
const freshMillisecond = require('./millisecond.js')
const timing = require('./timing.js')

const { compileLoop } = timing

const { uuidv7, Flake128 } = FlakeId

// 1,000 calls per timed batch, each batch on a fresh millisecond: far under the limits.
const BATCH = 1000
const BATCHES = 200

// A worker id given, not a MAC: the bench runs where no interface has one too. What the id is
// does not change the cost of a call.
const flake = new Flake128({ worker: 1 })
const uuidProcess = uuidv7.create({ scope: 'process' })
// The 64-bit reference: a generator id of its own (per-call.js's are below 100).
const sixtyFour = new FlakeId({ id: 1023 })
const reused = Buffer.alloc(16)
const ulid = monotonicFactory()
const randomUUID = () => crypto.randomUUID()

// `of`: the crypto.randomUUID() row of the same form, for the second column. `kept`: the loop
// keeps every id (see below). `kind`: how check() reads the ids.
const candidates = [
  { key: 'uuidv7', pkg: 'flake-idgen-rs', call: '`uuidv7()`', fn: () => uuidv7(), kind: 'uuid7' },
  {
    key: 'uuidv7Process',
    pkg: 'flake-idgen-rs',
    call: "`uuidv7.create({ scope: 'process' })()`",
    fn: () => uuidProcess(),
    kind: 'uuid7',
  },
  {
    key: 'uuidv7Reused',
    pkg: 'flake-idgen-rs',
    call: '`uuidv7(undefined, buf, 0)`, one buf reused',
    fn: () => uuidv7(undefined, reused, 0),
    kind: 'uuid7Bytes',
  },
  // A fresh Buffer each call, made as next() makes its own (Buffer.alloc: an ArrayBuffer of its
  // own); the target compares this one with next().
  {
    key: 'uuidv7Fresh',
    pkg: 'flake-idgen-rs',
    call: '`uuidv7(undefined, Buffer.alloc(16), 0)`',
    fn: () => uuidv7(undefined, Buffer.alloc(16), 0),
    kind: 'uuid7Bytes',
  },
  // The same into a slice of Node's shared pool, which costs the caller more (no target).
  {
    key: 'uuidv7Pooled',
    pkg: 'flake-idgen-rs',
    call: '`uuidv7(undefined, Buffer.allocUnsafe(16), 0)`',
    fn: () => uuidv7(undefined, Buffer.allocUnsafe(16), 0),
    kind: 'uuid7Bytes',
  },
  // What the fresh-Buffer rows add to the reused one: the caller's allocation.
  {
    key: 'alloc',
    call: 'floor of the fresh Buffer: `Buffer.alloc(16)` alone',
    fn: () => Buffer.alloc(16),
    kind: 'bytes',
  },
  {
    key: 'allocUnsafe',
    call: 'floor of the pooled Buffer: `Buffer.allocUnsafe(16)` alone',
    fn: () => Buffer.allocUnsafe(16),
    kind: 'bytes',
  },
  { key: 'uuidPkg', pkg: 'uuid', call: '`v7()`', fn: () => uuid.v7(), kind: 'uuid7Theirs' },
  { key: 'randomUUID', call: '`crypto.randomUUID()` (v4, not ordered): reference', fn: randomUUID, kind: 'uuid4' },
  { key: 'ulid', pkg: 'ulid', call: '`monotonicFactory()()`', fn: () => ulid(), kind: 'ulid' },
  {
    key: 'next64',
    pkg: 'flake-idgen-rs',
    call: '64-bit `next()`: reference',
    fn: () => sixtyFour.next(),
    kind: 'id64',
  },
  { key: 'flake128', pkg: 'flake-idgen-rs', call: '`Flake128#next()`', fn: () => flake.next(), kind: 'flake' },
  {
    key: 'flake128BigInt',
    pkg: 'flake-idgen-rs',
    call: '`Flake128#nextBigInt()`',
    fn: () => flake.nextBigInt(),
    kind: 'flakeBigInt',
  },
  {
    key: 'flake128Base62',
    pkg: 'flake-idgen-rs',
    call: '`Flake128#nextBase62()`',
    fn: () => flake.nextBase62(),
    kind: 'flakeBase62',
  },
  // As users call it: a service's one call site, asked for many ids, keeping each (rows to
  // insert, a response to send), so each id's string lives on and the collector pays for it.
  {
    key: 'uuidv7Kept',
    pkg: 'flake-idgen-rs',
    call: '`uuidv7()`, as users call it: every id kept',
    fn: () => uuidv7(),
    kind: 'uuid7',
    kept: true,
    of: 'randomUUIDKept',
  },
  {
    key: 'uuidPkgKept',
    pkg: 'uuid',
    call: '`v7()`, every id kept',
    fn: () => uuid.v7(),
    kind: 'uuid7Theirs',
    kept: true,
    of: 'randomUUIDKept',
  },
  {
    key: 'randomUUIDKept',
    call: '`crypto.randomUUID()`, every id kept',
    fn: randomUUID,
    kind: 'uuid4',
    kept: true,
    of: 'randomUUIDKept',
  },
]
for (const candidate of candidates) candidate.of ??= 'randomUUID'

for (const [index, candidate] of candidates.entries())
  candidate.loop = compileLoop(`wide ${index} ${candidate.key}`, candidate.kept)

/** Nanoseconds per call over BATCHES batches of BATCH calls, each on a fresh millisecond. */
const sample = (candidate) => timing.sample(candidate, BATCHES, BATCH)

const U128 = 2n ** 128n
const BASE62 = /^[0-9A-Za-z]{22}$/
const isUuid = (v, ver) => typeof v === 'string' && uuid.validate(v) && uuid.version(v) === ver
const copy = (v) => (v instanceof Uint8Array ? Buffer.from(v) : v)

// What each kind of id must be, and its value to compare with the next one (undefined: garbage).
const kinds = {
  uuid7: ['a lowercase UUIDv7 string', (v) => (isUuid(v, 7) && v === v.toLowerCase() ? v : undefined)],
  uuid7Theirs: ['a UUIDv7 string', (v) => (isUuid(v, 7) ? v : undefined)],
  uuid4: ['a UUIDv4 string', (v) => (isUuid(v, 4) ? v : undefined)],
  uuid7Bytes: [
    '16 bytes of a UUIDv7',
    (v) => (v instanceof Uint8Array && v.length === 16 && isUuid(uuid.stringify(v), 7) ? uuid.stringify(v) : undefined),
  ],
  ulid: ['a 26-character ULID', (v) => (typeof v === 'string' && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(v) ? v : undefined)],
  id64: ['an 8-byte Buffer', (v) => (Buffer.isBuffer(v) && v.length === 8 ? v.readBigUInt64BE(0) : undefined)],
  flake: [
    'a 16-byte Buffer',
    (v) => (Buffer.isBuffer(v) && v.length === 16 ? (v.readBigUInt64BE(0) << 64n) | v.readBigUInt64BE(8) : undefined),
  ],
  flakeBigInt: ['a 128-bit bigint', (v) => (typeof v === 'bigint' && v > 0n && v < U128 ? v : undefined)],
  flakeBase62: ['22 base62 characters', (v) => (typeof v === 'string' && BASE62.test(v) ? v : undefined)],
  bytes: ['a 16-byte Buffer', (v) => (Buffer.isBuffer(v) && v.length === 16 ? v : undefined)],
}

/** When an id was made, in ms since 1970, for the kinds that are ours. */
function timeOf(kind, v) {
  if (kind === 'uuid7' || kind === 'uuid7Bytes') return uuidv7.timestamp(v)
  if (kind.startsWith('flake')) return Flake128.decompose(v).timestamp
  return undefined
}

/** Why the candidate's ids are garbage, or null if two calls in a row look right. */
function check(candidate) {
  const [what, read] = kinds[candidate.kind]
  const before = Date.now()
  const ids = candidate.kept ? candidate.loop(candidate.fn, 2) : [copy(candidate.fn()), copy(candidate.fn())]
  const [first, second] = ids.map(read)
  if (first === undefined || second === undefined) return `does not return ${what}`
  if (candidate.kind === 'bytes') return null
  if (candidate.kind === 'uuid4') return first === second ? 'returned the same id twice' : null
  if (!(second > first)) return 'returned ids out of order'
  const time = timeOf(candidate.kind, ids[1])
  if (time !== undefined && (time < before - 1 || time > Date.now() + 1)) return `returned an id of time ${time}`
  if (candidate.kind.startsWith('flake') && Flake128.decompose(ids[1]).worker !== flake.worker) {
    return `returned an id not of worker ${flake.worker}`
  }
  return null
}

// Batches, as the 64-bit batch rows are timed (bursts.js): each from a fresh millisecond, a
// median over BENCH_BURST_ROUNDS. Sized to last about a quarter of the 64-bit burst (61 ms for
// the default 1,000,000): 2,000,000 UUIDv7s, 4,000,000 flakes, 64 MB rather than 256.
const LIMIT_64 = 4096
const batches = [
  {
    key: 'uuidv7Batch',
    pkg: 'flake-idgen-rs',
    call: '`uuidv7.batch(n)`',
    perMs: binding.describeKind('uuidv7').idsPerMs,
    bytes: 16,
    take: (n) => uuidv7.batch(n),
  },
  {
    key: 'flake128Batch',
    pkg: 'flake-idgen-rs',
    call: '`Flake128#nextBatch(n)`',
    perMs: binding.describeKind('flake128').idsPerMs,
    bytes: 16,
    take: (n) => flake.nextBatch(n),
  },
  {
    key: 'next64Batch',
    pkg: 'flake-idgen-rs',
    call: '64-bit `nextBatch(n)`: reference',
    perMs: LIMIT_64,
    bytes: 8,
    take: (n) => sixtyFour.nextBatch(n),
  },
]
for (const batch of batches) {
  batch.size = (burst) => Math.max(batch.perMs, Math.round((burst / 4) * (batch.perMs / LIMIT_64)))
  // A batch that starts as a millisecond starts has its ids at once: n ids take at least the
  // milliseconds after the first, ceil(n / perMs) − 1, the time the limit allows them.
  batch.allowedMs = (n) => Math.ceil(n / batch.perMs) - 1
}

/** The ms that `batch` took to give `n` ids, from the start of a fresh millisecond. */
function runBatch(batch, n) {
  freshMillisecond()
  const start = performance.now()
  const ids = batch.take(n)
  const ms = performance.now() - start
  if (!Buffer.isBuffer(ids) || ids.length !== n * batch.bytes) throw new Error(`expected ${n * batch.bytes} bytes`)
  return ms
}

/** Why a batch's ids are garbage, or null: past one millisecond's limit, strictly increasing. */
function checkBatch(batch) {
  const count = batch.perMs + 10
  const ids = batch.take(count)
  if (!Buffer.isBuffer(ids) || ids.length !== count * batch.bytes) return `did not give ${count} ids`
  for (let offset = batch.bytes; offset < ids.length; offset += batch.bytes) {
    const previous = ids.subarray(offset - batch.bytes, offset)
    if (Buffer.compare(previous, ids.subarray(offset, offset + batch.bytes)) >= 0) return 'gave ids out of order'
  }
  if (batch.key === 'uuidv7Batch') {
    for (const offset of [0, ids.length - 16]) {
      if (!isUuid(uuidv7.stringify(ids, offset), 7)) return 'gave a UUID that is not a UUIDv7'
    }
  }
  return null
}

module.exports = { candidates, sample, check, batches, runBatch, checkBatch, BATCHES, BATCH }

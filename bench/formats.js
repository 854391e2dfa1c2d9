'use strict'
// Text ids (issue 53): `nextString(format)` in each fixed-width form of lib/formats/formats.js
// beside `nextString()` (decimal) and ulid's monotonic factory, per call in the same rounds.
// Batches of 1,000 calls on a fresh millisecond each, as in per-call.js: far under the 4,096 ids
// per millisecond of each generator id.

const { monotonicFactory } = require('ulid')
const FlakeId = require('..')
const { FORMATS, TEXT_NAMES } = require('../lib/formats/formats.js')
const timing = require('./timing.js')

const { compileLoop } = timing

const BATCH = 1000
const BATCHES = 200

// Generator ids of their own: per-call.js takes 64–73 (and 84–150 before), bursts 200 up.
const decimal = new FlakeId({ id: 74 })
const ulid = monotonicFactory()

/** `key`'s row: `nextString(format)` of a generator of its own. */
function ours(format, genId) {
  const generator = new FlakeId({ id: genId })
  return {
    key: format,
    pkg: 'flake-idgen-rs',
    call: `\`nextString('${format}')\``,
    fn: () => generator.nextString(format),
    kind: format,
    genId,
  }
}

const candidates = [
  {
    key: 'default',
    pkg: 'flake-idgen-rs',
    call: '`nextString()` (decimal)',
    fn: () => decimal.nextString(),
    kind: 'decimal',
    genId: 74,
  },
  ...TEXT_NAMES.filter((name) => name !== 'decimal').map((name, i) => ours(name, 75 + i)),
  { key: 'ulid', pkg: 'ulid', call: '`monotonicFactory()()`', fn: () => ulid(), kind: 'ulid' },
]

for (const [index, candidate] of candidates.entries()) candidate.loop = compileLoop(`formats ${index} ${candidate.key}`)

/** Nanoseconds per call over BATCHES batches of BATCH calls, each on a fresh millisecond. */
const sample = (candidate) => timing.sample(candidate, BATCHES, BATCH)

/** Why the candidate's ids are garbage, or null if two calls in a row are of its form, increasing, of its generator. */
function check(candidate) {
  const first = candidate.fn()
  const second = candidate.fn()
  if (candidate.kind === 'ulid') {
    return /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/.test(first) && first < second ? null : 'returned no increasing ULIDs'
  }
  const row = FORMATS.find((row) => row.name === candidate.kind)
  const width = row.fromBytes(new Uint8Array(8), 0).length
  if (typeof second !== 'string' || (candidate.kind !== 'decimal' && second.length !== width)) {
    return `does not return ${candidate.kind} text of ${width} characters`
  }
  const [a, b] = [first, second].map((text) => FlakeId.parse(text, candidate.kind).readBigUInt64BE())
  if (!(a < b)) return 'returned ids out of order'
  if (Number((b >> 12n) & 1023n) !== candidate.genId) return `returned an id not of generator ${candidate.genId}`
  return null
}

module.exports = { candidates, sample, check, BATCHES, BATCH }

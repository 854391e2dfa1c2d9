'use strict'
// The timed process of bench/wasm.js, started with NAPI_RS_FORCE_WASI=error, so that the package
// loads its WebAssembly build (a process loads one build): its next() on one generator and on 64
// round-robin, flake-idgen's next() and the floor, as per-call.js times them (each candidate in a
// loop of its own, batches of 1,000 calls on a fresh millisecond, interleaved rounds whose order
// rotates). Prints { target, samples: { key: [ns per call, per round] } } as JSON, or exits 1
// saying which candidate's ids are wrong.

const { Buffer } = require('node:buffer')
const FlakeIdgen = require('flake-idgen')
const FlakeId = require('..')
const timing = require('./timing.js')

const { compileLoop } = timing

const ROUNDS = Number(process.env.BENCH_ROUNDS || 31)
const BATCH = 1000
const BATCHES = 200

// scope 'process', which the WebAssembly build's default falls back to, warning.
const one = new FlakeId({ id: 64, scope: 'process' })
const sixtyFour = Array.from({ length: 64 }, (_, i) => new FlakeId({ id: i, scope: 'process' }))
let turn = 0
const theirs = new FlakeIdgen({ id: 4 })

const candidates = [
  { key: 'wasmNext', fn: () => one.next(), genId: 64 },
  { key: 'wasmNext64', fn: () => sixtyFour[turn++ & 63].next() },
  { key: 'flakeIdgen', fn: () => theirs.next(), genId: 4 },
  {
    key: 'floor',
    fn: () => {
      Date.now()
      return Buffer.alloc(8)
    },
  },
]
for (const [index, candidate] of candidates.entries()) candidate.loop = compileLoop(`${index} ${candidate.key}`)
const sample = (candidate) => timing.sample(candidate, BATCHES, BATCH)

/** Why the candidate's ids are garbage, or null (as per-call.js checks them). */
function check(candidate) {
  const before = Date.now()
  const [first, second] = [candidate.fn(), candidate.fn()]
  if (![first, second].every((id) => Buffer.isBuffer(id) && id.length === 8)) return 'does not return 8-byte Buffers'
  if (candidate.key === 'floor') return null
  const [a, b] = [first.readBigUInt64BE(0), second.readBigUInt64BE(0)]
  if (!(b > a)) return 'returned ids out of order'
  if (candidate.genId === undefined) return null
  const time = Number(b >> 22n)
  if (time < before - 1 || time > Date.now() + 1) return `returned an id of time ${time}, not now`
  if (Number((b >> 12n) & 1023n) !== candidate.genId) return `returned an id not of generator ${candidate.genId}`
  return null
}

for (const candidate of candidates) {
  const why = check(candidate)
  if (why !== null) {
    console.error(`sanity check failed: ${candidate.key}: ${why}`)
    process.exit(1)
  }
}
const samples = Object.fromEntries(candidates.map((c) => [c.key, []]))
// Round -1 compiles what the others time, and is not kept.
for (let round = -1; round < ROUNDS; round++) {
  for (let i = 0; i < candidates.length; i++) {
    // Rotated, and reversed every other round, as bench/index.js orders its rounds.
    const k = round % 2 === 0 ? i : candidates.length - 1 - i
    const candidate = candidates[(k + round + candidates.length) % candidates.length]
    const ns = sample(candidate)
    if (round >= 0) samples[candidate.key].push(ns)
  }
  if (process.stderr.isTTY) process.stderr.write('.')
}
process.stdout.write(JSON.stringify({ target: require('../binding.js').__napiBindingTarget, samples }))

'use strict'
// `npm run bench`: next() of this package against flake-idgen's and against the floor (one
// Date.now() and one Buffer.alloc(8) in JS), in one process, interleaved rounds, medians.
//
// A generator issues at most 4,096 ids per millisecond and next() throws beyond that, so every
// timed batch starts on a fresh millisecond and stays well under the limit; the wait for the
// millisecond is not timed.

const FlakeIdgen = require('flake-idgen')
const FlakeId = require('..')

const ROUNDS = Number(process.env.BENCH_ROUNDS || 31)
const BATCHES = 40
const BATCH = 1000
const TARGET = 0.8

const ours = new FlakeId({ id: 1 })
const theirs = new FlakeIdgen({ id: 2 })
const candidates = {
  'flake-idgen-rs next()': () => ours.next(),
  'flake-idgen next()': () => theirs.next(),
  'floor: Date.now() + Buffer.alloc(8)': () => {
    Date.now()
    return Buffer.alloc(8)
  },
}

let sink = 0
function nsPerCall(fn) {
  let total = 0n
  for (let b = 0; b < BATCHES; b++) {
    const start = Date.now()
    while (Date.now() === start);
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < BATCH; i++) sink ^= fn()[7]
    total += process.hrtime.bigint() - t0
  }
  return Number(total) / (BATCHES * BATCH)
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

const samples = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]))
for (let round = 0; round < ROUNDS; round++) {
  // Rotate the order so no candidate always runs first (warm-up, GC debt).
  const names = Object.keys(candidates)
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length]
    samples[name].push(nsPerCall(candidates[name]))
  }
}

const ns = Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)]))
const ratio = ns['flake-idgen-rs next()'] / ns['flake-idgen next()']
console.log(`node ${process.version}, ${ROUNDS} interleaved rounds of ${BATCHES} x ${BATCH} calls, medians`)
for (const [name, value] of Object.entries(ns)) console.log(`${name.padEnd(40)} ${value.toFixed(1).padStart(8)} ns/call`)
console.log(`next() / flake-idgen next(): ${ratio.toFixed(2)} (target <= ${TARGET}) ${ratio <= TARGET ? 'met' : 'MISSED'}`)
console.log(`next() / floor: ${(ns['flake-idgen-rs next()'] / ns['floor: Date.now() + Buffer.alloc(8)']).toFixed(2)}`)
if (sink === 0.5) console.log(sink)

'use strict'
// `npm run bench`, part 2: how close bursts come to the layout's limit of 4,096 ids per
// millisecond (4.096 M ids/s per generator id), ours against flake-idgen's, in one process.
//
// - next(cb): 1,000,000 calls in one synchronous burst, timed until the last callback.
// - nextBatch(1,000,000): one call.
// Medians of interleaved rounds; the result is a share of the limit, not a time.

const FlakeIdgen = require('flake-idgen')
const FlakeId = require('..')

const ROUNDS = Number(process.env.BENCH_ROUNDS || 5)
const BURST = Number(process.env.BENCH_BURST || 1_000_000)
const LIMIT_PER_MS = 4096
const TARGETS = { 'flake-idgen-rs next(cb) burst': 0.75, 'flake-idgen-rs nextBatch': 0.95 }

/** Resolves with the ms from the first call to the last callback. */
function burst(generator) {
  return new Promise((resolve) => {
    let left = BURST
    const done = () => {
      if (--left === 0) resolve(performance.now() - start)
    }
    const start = performance.now()
    for (let i = 0; i < BURST; i++) generator.next(done)
  })
}

const candidates = {
  'flake-idgen-rs next(cb) burst': () => burst(new FlakeId({ id: 1 })),
  'flake-idgen next(cb) burst': () => burst(new FlakeIdgen({ id: 2 })),
  'flake-idgen-rs nextBatch': async () => {
    const generator = new FlakeId({ id: 3 })
    const start = performance.now()
    generator.nextBatch(BURST)
    return performance.now() - start
  },
  'flake-idgen-rs nextBatchAsync': async () => {
    const generator = new FlakeId({ id: 4 })
    const start = performance.now()
    await generator.nextBatchAsync(BURST)
    return performance.now() - start
  },
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

async function main() {
  const samples = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]))
  const names = Object.keys(candidates)
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length]
      samples[name].push(await candidates[name]())
    }
  }
  console.log(`\nnode ${process.version}, ${ROUNDS} interleaved rounds of ${BURST.toLocaleString('en')} ids, medians`)
  console.log(`share of the layout's limit (${LIMIT_PER_MS} ids/ms = 4.096 M ids/s):`)
  for (const name of names) {
    const ms = median(samples[name])
    const share = BURST / ms / LIMIT_PER_MS
    const target = TARGETS[name]
    const verdict = target === undefined ? '' : ` (target >= ${target * 100} %) ${share >= target ? 'met' : 'MISSED'}`
    console.log(`${name.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms  ${(share * 100).toFixed(1).padStart(5)} %${verdict}`)
  }
}

main()

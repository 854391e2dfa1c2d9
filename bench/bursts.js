'use strict'
// Candidates that ask for many ids at once, each timed until the last id is there. Each starts
// on a fresh millisecond, so its time does not depend on how much of the first one was left.

const { Buffer } = require('node:buffer')
const FlakeIdgen = require('flake-idgen')
const FlakeId = require('..')
const freshMillisecond = require('./millisecond.js')

// A fresh generator id for every run, so no run inherits a millisecond another one used up.
// Ids 0–99 are left to the per-call candidates.
let runs = 0
const freshId = () => 100 + (runs++ % 924)

/** Resolves with the ms from the first of `count` next(cb) calls to the last callback. */
function burst(generator, count) {
  return new Promise((resolve, reject) => {
    let left = count
    const done = (error) => {
      if (error) reject(error)
      else if (--left === 0) resolve(performance.now() - start)
    }
    freshMillisecond()
    const start = performance.now()
    for (let i = 0; i < count; i++) generator.next(done)
  })
}

/** Resolves with the ms that `take()` took to give `count` ids. */
async function timed(take, count) {
  freshMillisecond()
  const start = performance.now()
  const ids = await take()
  const ms = performance.now() - start
  if (!Buffer.isBuffer(ids) || ids.length !== count * 8) throw new Error(`expected ${count * 8} bytes of ids`)
  return ms
}

const ours = () => new FlakeId({ id: freshId() })
const theirs = () => new FlakeIdgen({ id: freshId() })
const candidates = [
  { key: 'burst', pkg: 'flake-idgen-rs', call: '`next(cb)`, one synchronous burst', make: ours, run: burst },
  { key: 'flakeIdgenBurst', pkg: 'flake-idgen', call: '`next(cb)`, the same burst', make: theirs, run: burst },
  { key: 'batch', pkg: 'flake-idgen-rs', call: '`nextBatch(n)`', make: ours, run: (g, n) => timed(() => g.nextBatch(n), n) },
  {
    key: 'batchAsync',
    pkg: 'flake-idgen-rs',
    call: '`await nextBatchAsync(n)`',
    make: ours,
    run: (g, n) => timed(() => g.nextBatchAsync(n), n),
  },
]

const nextAsync = (generator) =>
  new Promise((resolve, reject) => generator.next((error, id) => (error ? reject(error) : resolve(id))))

const CHECK_COUNT = 5000 // past one millisecond's 4,096 ids, so that waiting is checked too

/** Resolves with why the candidate's ids are garbage, or null if they look right. */
async function check(candidate) {
  const generator = candidate.make()
  let ids
  if (candidate.key === 'batch') ids = generator.nextBatch(CHECK_COUNT)
  else if (candidate.key === 'batchAsync') ids = await generator.nextBatchAsync(CHECK_COUNT)
  else ids = Buffer.concat(await Promise.all(Array.from({ length: CHECK_COUNT }, () => nextAsync(generator))))
  if (!Buffer.isBuffer(ids) || ids.length !== CHECK_COUNT * 8) return `did not give ${CHECK_COUNT} 8-byte ids`
  for (let offset = 8; offset < ids.length; offset += 8) {
    if (!(ids.readBigUInt64BE(offset) > ids.readBigUInt64BE(offset - 8))) return 'gave ids out of order'
  }
  if (Number((ids.readBigUInt64BE(0) >> 12n) & 1023n) !== generator.id) return 'gave ids of another generator'
  return null
}

module.exports = { candidates, check }

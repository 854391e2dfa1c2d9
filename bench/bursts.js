'use strict'
// Candidates that ask for many ids at once, each timed until the last id is there. Each starts
// on a fresh millisecond, so its time does not depend on how much of the first one was left.

const { Buffer } = require('node:buffer')
const { loadBefore } = require('./before.js')
const FlakeIdgen = require('flake-idgen')
const FlakeId = require('..')
const freshMillisecond = require('./millisecond.js')

// A fresh generator id for every run, so no run inherits a millisecond another one used up.
// Ids 0–99 are left to the per-call candidates.
let runs = 0
const freshId = () => 100 + (runs++ % 924)

// Where the ids read in a burst go, so that reading them is not dead code.
let _sink = 0n

/**
 * Resolves with the ms from the first of `count` next(cb) calls to the last callback, all
 * calls passing one shared function: the friendliest shape.
 */
function sharedCallback(generator, count) {
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

/** As `sharedCallback`, the way users write it: a fresh closure per call, reading its id. */
function freshClosures(generator, count) {
  return new Promise((resolve, reject) => {
    let left = count
    freshMillisecond()
    const start = performance.now()
    for (let i = 0; i < count; i++) {
      generator.next((error, id) => {
        if (error) return reject(error)
        _sink ^= id.readBigUInt64BE(0)
        if (--left === 0) resolve(performance.now() - start)
      })
    }
  })
}

/** Resolves with the ms until `Promise.all` of `count` nextAsync() calls settles. */
async function promiseAll(generator, count) {
  freshMillisecond()
  const start = performance.now()
  const calls = new Array(count)
  for (let i = 0; i < count; i++) calls[i] = generator.nextAsync()
  const ids = await Promise.all(calls)
  const ms = performance.now() - start
  _sink ^= ids[count - 1].readBigUInt64BE(0)
  return ms
}

/**
 * The floor of `freshClosures` in plain JS, no ids: as many closures kept until the burst ends,
 * each then called on the nextTick queue with a Buffer.alloc(8) that it reads.
 */
function closuresFloor(_, count) {
  return new Promise((resolve) => {
    let left = count
    const queued = []
    freshMillisecond()
    const start = performance.now()
    for (let i = 0; i < count; i++) {
      queued.push((error, id) => {
        if (error) throw error
        _sink ^= id.readBigUInt64BE(0)
        if (--left === 0) resolve(performance.now() - start)
      })
    }
    process.nextTick(() => {
      for (const cb of queued) cb(null, Buffer.alloc(8))
    })
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
// `count`: ids per run as a share of a full burst (BENCH_BURST); `of`: the flake-idgen row that
// it is compared with.
const candidates = [
  {
    key: 'burst',
    pkg: 'flake-idgen-rs',
    call: '`next(cb)` burst, one shared callback',
    make: ours,
    run: sharedCallback,
    of: 'flakeIdgenBurst',
  },
  {
    key: 'flakeIdgenBurst',
    pkg: 'flake-idgen',
    call: '`next(cb)`, the same burst',
    make: theirs,
    run: sharedCallback,
    of: 'flakeIdgenBurst',
  },
  {
    key: 'closures',
    pkg: 'flake-idgen-rs',
    call: '`next(cb)` burst, a fresh closure per call reading its id',
    make: ours,
    run: freshClosures,
    of: 'flakeIdgenClosures',
  },
  {
    key: 'flakeIdgenClosures',
    pkg: 'flake-idgen',
    call: '`next(cb)`, the same burst',
    make: theirs,
    run: freshClosures,
    of: 'flakeIdgenClosures',
  },
  {
    key: 'closuresFloor',
    call: 'floor: the same closures, each called with `Buffer.alloc(8)`',
    make: () => null,
    run: closuresFloor,
  },
  {
    key: 'promiseAll',
    pkg: 'flake-idgen-rs',
    call: '`Promise.all` of `nextAsync()` × n/10',
    make: ours,
    run: promiseAll,
    share: 0.1,
  },
  {
    key: 'batch',
    pkg: 'flake-idgen-rs',
    call: '`nextBatch(n)`',
    make: ours,
    run: (g, n) => timed(() => g.nextBatch(n), n),
  },
  {
    key: 'batchAsync',
    pkg: 'flake-idgen-rs',
    call: '`await nextBatchAsync(n)`',
    make: ours,
    run: (g, n) => timed(() => g.nextBatchAsync(n), n),
  },
]
// BENCH_BEFORE: the build before's bursts too, in the same rounds (see per-call.js).
const Before = loadBefore()
if (Before) {
  const before = () => new Before({ id: freshId() })
  const label = (call) => `build before (BENCH_BEFORE) ${call}`
  candidates.push(
    {
      key: 'beforeBurst',
      call: label('`next(cb)`, one shared callback'),
      make: before,
      run: sharedCallback,
      of: 'flakeIdgenBurst',
    },
    {
      key: 'beforeClosures',
      call: label('`next(cb)`, fresh closures'),
      make: before,
      run: freshClosures,
      of: 'flakeIdgenClosures',
    },
    { key: 'beforeBatch', call: label('`nextBatch(n)`'), make: before, run: (g, n) => timed(() => g.nextBatch(n), n) },
    {
      key: 'beforeBatchAsync',
      call: label('`await nextBatchAsync(n)`'),
      make: before,
      run: (g, n) => timed(() => g.nextBatchAsync(n), n),
    },
  )
}
for (const candidate of candidates) candidate.share ??= 1

const nextAsync = (generator) =>
  new Promise((resolve, reject) => generator.next((error, id) => (error ? reject(error) : resolve(id))))

const CHECK_COUNT = 5000 // past one millisecond's 4,096 ids, so that waiting is checked too

/** Resolves with why the candidate's ids are garbage, or null if they look right. */
async function check(candidate) {
  if (candidate.key === 'closuresFloor') return null
  const generator = candidate.make()
  let ids
  if (candidate.key === 'batch') ids = generator.nextBatch(CHECK_COUNT)
  else if (candidate.key === 'batchAsync') ids = await generator.nextBatchAsync(CHECK_COUNT)
  else if (candidate.key === 'promiseAll') {
    ids = Buffer.concat(await Promise.all(Array.from({ length: CHECK_COUNT }, () => generator.nextAsync())))
  } else ids = Buffer.concat(await Promise.all(Array.from({ length: CHECK_COUNT }, () => nextAsync(generator))))
  if (!Buffer.isBuffer(ids) || ids.length !== CHECK_COUNT * 8) return `did not give ${CHECK_COUNT} 8-byte ids`
  for (let offset = 8; offset < ids.length; offset += 8) {
    if (!(ids.readBigUInt64BE(offset) > ids.readBigUInt64BE(offset - 8))) return 'gave ids out of order'
  }
  if (Number((ids.readBigUInt64BE(0) >> 12n) & 1023n) !== generator.id) return 'gave ids of another generator'
  return null
}

module.exports = { candidates, check }

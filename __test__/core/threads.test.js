'use strict'
// One state per generator id per process: instances with the same id and epoch never return
// the same id, in one thread or in several worker threads.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { Worker } = require('node:worker_threads')
const FlakeId = require('../..')
const { wasmBuild } = require('../support/helpers.js')

const PER_THREAD = 60_000

// Spins through overflow with sync next(): as many ids as fast as possible, to collide if
// the state were per thread.
const workerSource = `
  const { parentPort, workerData } = require('node:worker_threads')
  const FlakeId = require(workerData.entry)
  const generator = new FlakeId(workerData.options)
  const ids = Buffer.alloc(workerData.count * 8)
  parentPort.postMessage('ready')
  parentPort.once('message', () => {
    for (let i = 0; i < workerData.count; ) {
      try {
        generator.next().copy(ids, i * 8)
        i++
      } catch (error) {
        if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
      }
    }
    parentPort.postMessage(ids)
  })
`

function startWorker(options) {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { entry: path.join(__dirname, '..', '..'), options, count: PER_THREAD },
  })
  const ready = new Promise((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  const ids = ready.then(
    () =>
      new Promise((resolve, reject) => {
        worker.once('message', resolve)
        worker.once('error', reject)
      }),
  )
  return { worker, ready, ids }
}

/** Sync next(), spinning through overflow, as fast as the generator allows. */
function nextSpinning(generator) {
  for (;;) {
    try {
      return generator.next()
    } catch (error) {
      if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
    }
  }
}

const timeOf = (id) => id >> 22n

/**
 * Each thread's ids (a Buffer, in the order that thread took them; thread 0 is this one) strictly
 * increase, and no id is another thread's. A shared state that restarted its sequence, or gave
 * one millisecond's sequence numbers out twice, hands some thread an id at or below one it had,
 * or one that another thread had. Returns how many milliseconds have ids of two threads or more:
 * with none, the threads never raced on the state, and a state per thread would have passed too.
 */
function assertOrderedAndUnique(threads) {
  const owner = new Map()
  const threadsOfMs = new Map()
  threads.forEach((ids, thread) => {
    let previous = -1n
    for (let i = 0; i < ids.length; i += 8) {
      const id = ids.readBigUInt64BE(i)
      // assert.fail, not assert.ok: no message built for each of the 120 k ids that pass.
      if (id <= previous) assert.fail(`thread ${thread}: id ${i / 8} is ${id}, not above the one before, ${previous}`)
      if (owner.has(id)) assert.fail(`thread ${thread}: id ${i / 8}, ${id}, is thread ${owner.get(id)}'s too`)
      owner.set(id, thread)
      previous = id
      threadsOfMs.set(timeOf(id), (threadsOfMs.get(timeOf(id)) ?? 0) | (1 << thread))
    }
  })
  let shared = 0
  for (const threadBits of threadsOfMs.values()) if ((threadBits & (threadBits - 1)) !== 0) shared++
  return shared
}

// Each worker thread loads a WebAssembly module of its own, whose states the others do not see.
const separateModules = wasmBuild && 'the WebAssembly build shares no state between threads (see the test after)'

test('worker threads on one id and epoch share one state', { skip: separateModules }, async () => {
  const options = { id: 517, epoch: 1_500_000_000_000 }
  const workers = [
    startWorker(options),
    startWorker({ datacenter: 16, worker: 5, epoch: '1500000000000' }),
    startWorker(options),
  ]
  await Promise.all(workers.map((w) => w.ready))
  // Release all at once, then generate on this thread too while they run.
  for (const { worker } of workers) worker.postMessage('go')
  const here = new FlakeId(options)
  const mine = []
  while (mine.length < PER_THREAD) mine.push(nextSpinning(here))
  const theirs = await Promise.all(workers.map((w) => w.ids))
  await Promise.all(workers.map((w) => w.worker.terminate()))
  const shared = assertOrderedAndUnique([Buffer.concat(mine), ...theirs.map((ids) => Buffer.from(ids))])
  assert.ok(shared > 0, 'no millisecond has ids of two threads: they never raced on the state')
})

test('the WebAssembly build refuses a shared state in a worker thread, not a private one', {
  skip: !wasmBuild && 'the WebAssembly build only',
}, async () => {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    const FlakeId = require(workerData.entry)
    const codes = []
    for (const options of [{ id: 517 }, { id: 517, scope: 'process' }]) {
      try {
        new FlakeId(options).next()
        codes.push('issued')
      } catch (error) {
        codes.push(error.code)
      }
    }
    codes.push(new FlakeId({ id: 517, clock: Date.now }).next().length)
    parentPort.postMessage(codes)
  `
  const worker = new Worker(source, { eval: true, workerData: { entry: path.join(__dirname, '..', '..') } })
  const [codes] = await Promise.all([
    new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    }),
  ])
  await worker.terminate()
  assert.deepEqual(codes, ['ERR_FLAKE_WASM_THREAD', 'ERR_FLAKE_WASM_THREAD', 8])
  // The main thread's module issues from its process's states as always.
  assert.equal(new FlakeId({ id: 517, scope: 'process' }).next().length, 8)
})

test('instances in one thread with the same id interleave without repeating', () => {
  const a = new FlakeId({ id: 518 })
  const b = new FlakeId({ datacenter: 16, worker: 6 })
  const ids = []
  while (ids.length < 20_000) ids.push(nextSpinning(a), nextSpinning(b))
  for (let i = 1; i < ids.length; i++) {
    const [before, after] = [ids[i - 1].toString('hex'), ids[i].toString('hex')]
    if (after <= before) assert.fail(`id ${i}, ${after}, is not above the one before, ${before}`)
  }
})

test('a generator created after the others were dropped does not restart the sequence', () => {
  // Each id from a new instance, every one compared with the one before: a sequence restarted
  // per instance repeats within a millisecond, and 51 instances share some millisecond.
  const options = { id: 519 }
  const ids = Array.from({ length: 51 }, () => new FlakeId(options).next().readBigUInt64BE(0))
  let sameMs = 0
  for (let i = 1; i < ids.length; i++) {
    assert.ok(ids[i] > ids[i - 1], `generator ${i}'s id ${ids[i]} is not above generator ${i - 1}'s, ${ids[i - 1]}`)
    if (timeOf(ids[i]) === timeOf(ids[i - 1])) sameMs++
  }
  assert.ok(sameMs > 0, 'every generator took its id in a millisecond of its own')
})

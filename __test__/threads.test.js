'use strict'
// One state per generator id per process: instances with the same id and epoch never return
// the same id, in one thread or in several worker threads.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { Worker } = require('node:worker_threads')
const FlakeId = require('..')

const PER_THREAD = 30_000

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
    workerData: { entry: path.join(__dirname, '..'), options, count: PER_THREAD },
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

function assertUnique(buffers, expected) {
  const seen = new Set()
  for (const buffer of buffers) {
    for (let i = 0; i < buffer.length; i += 8) seen.add(buffer.readBigUInt64BE(i))
  }
  assert.equal(seen.size, expected)
}

test('worker threads on one id and epoch share one state', async () => {
  const options = { id: 517, epoch: 1_500_000_000_000 }
  const workers = [startWorker(options), startWorker({ datacenter: 16, worker: 5, epoch: '1500000000000' }), startWorker(options)]
  await Promise.all(workers.map((w) => w.ready))
  // Release all at once, then generate on this thread too while they run.
  for (const { worker } of workers) worker.postMessage('go')
  const here = new FlakeId(options)
  const mine = []
  while (mine.length < PER_THREAD) mine.push(nextSpinning(here))
  const theirs = await Promise.all(workers.map((w) => w.ids))
  await Promise.all(workers.map((w) => w.worker.terminate()))
  assertUnique([...theirs.map((ids) => Buffer.from(ids)), Buffer.concat(mine)], 4 * PER_THREAD)
})

test('instances in one thread with the same id interleave without repeating', () => {
  const a = new FlakeId({ id: 518 })
  const b = new FlakeId({ datacenter: 16, worker: 6 })
  const ids = []
  while (ids.length < 20_000) ids.push(nextSpinning(a), nextSpinning(b))
  for (let i = 1; i < ids.length; i++) assert.ok(Buffer.compare(ids[i - 1], ids[i]) < 0, `id ${i} increases`)
})

test('a generator created after the others were dropped does not restart the sequence', () => {
  const options = { id: 519 }
  let last
  for (let round = 0; round < 50; round++) last = new FlakeId(options).next()
  const next = new FlakeId(options).next()
  assert.ok(Buffer.compare(last, next) < 0)
})

'use strict'
// A child of __test__/core/clock-waits.test.js, under LD_PRELOAD's clock shims of
// __test__/support/faults (absclock.so: a clock frozen through FAKE_ABS_FILE; fakeclock.so: a clock
// stepped through FAKE_OFFSET_FILE). It freezes or steps its own clock while a wait is under
// way, and prints one JSON line: what each call returned or threw, and how often the event loop
// turned meanwhile.

const fs = require('node:fs')
const { Worker } = require('node:worker_threads')
const FlakeId = require('../..')

const [mode, dir] = process.argv.slice(2)
const SECONDS = { timeBits: 41, timeUnitMs: 1000, nodeBits: 10, sequenceBits: 12 }

/** Writes `ms` (an int64) where the shim reads it: the frozen reading, or the offset. */
function setClock(file, ms) {
  const bytes = Buffer.alloc(8)
  bytes.writeBigInt64LE(BigInt(ms))
  const fd = fs.openSync(file, 'r+')
  fs.writeSync(fd, bytes, 0, 8, 0)
  fs.closeSync(fd)
}
const freeze = (ms) => setClock(process.env.FAKE_ABS_FILE, ms)
const unfreeze = () => setClock(process.env.FAKE_ABS_FILE, 0)

/** Counts turns of the event loop until stopped. */
function turns() {
  const counter = { count: 0, stopped: false }
  const turn = () => {
    counter.count++
    if (!counter.stopped) setImmediate(turn)
  }
  setImmediate(turn)
  return counter
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The error's code, or 'ok'. */
function attempt(call) {
  try {
    call()
    return 'ok'
  } catch (err) {
    return err.code ?? String(err)
  }
}

/** Whether the batch's ids strictly ascend (so none repeats). */
function ascending(batch) {
  for (let at = 8; at < batch.length; at += 8) {
    if (batch.readBigUInt64BE(at) <= batch.readBigUInt64BE(at - 8)) return false
  }
  return true
}

async function batchFrozen() {
  const generator = new FlakeId({ scope: 'process', id: 1 })
  freeze(Date.now())
  const counter = turns()
  const batch = generator.nextBatchAsync(20000)
  await sleep(500)
  const frozenTurns = counter.count
  unfreeze()
  const ids = await batch
  counter.stopped = true
  return { frozenTurns, count: ids.length / 8, ascending: ascending(ids) }
}

async function constructFrozen() {
  const out = {}
  for (const [name, layout] of [
    ['ms', undefined],
    ['seconds', SECONDS],
  ]) {
    freeze(Date.now())
    const generator = new FlakeId({ stateDir: `${dir}-${name}`, id: 3, layout })
    const next = attempt(() => generator.next())
    const later = generator.nextAsync()
    unfreeze()
    const id = await later
    out[name] = { scope: generator.scope, next, later: id.length }
  }
  return out
}

async function constructBack() {
  // A fresh directory: the first mapping waits for the horizon, during which the clock steps
  // back 2 s (by a worker, since this thread is in the wait) and comes back after a second.
  const offsets = new Int32Array(new SharedArrayBuffer(4))
  const worker = stepper(offsets, 5, 1000)
  Atomics.wait(offsets, 0, 0, 10_000) // until the worker is about to step
  const generator = new FlakeId({ stateDir: `${dir}-back`, id: 4, layout: SECONDS })
  const stepped = Atomics.load(offsets, 0)
  const next = attempt(() => generator.next())
  const id = await generator.nextAsync()
  await worker.exited
  return { stepped, next, later: id.length }
}

async function batchBack() {
  const generator = new FlakeId({ scope: 'process', id: 2 })
  const offsets = new Int32Array(new SharedArrayBuffer(4))
  const counter = turns()
  let steppedTurns = 0
  const watch = setInterval(() => {
    if (Atomics.load(offsets, 0) === 2) steppedTurns++
  }, 1)
  const batch = generator.nextBatchAsync(1 << 23)
  const worker = stepper(offsets, 200, 1000)
  const ids = await batch
  clearInterval(watch)
  counter.stopped = true
  await worker.exited
  return { steppedTurns, count: ids.length / 8, ascending: ascending(ids) }
}

/**
 * A worker that steps this process's clock back 2 s `after` ms, and forward again `back` ms
 * later: `offsets[0]` says where it is (1: about to step, 2: stepped, 3: back).
 */
function stepper(offsets, after, back) {
  const code = `
    const fs = require('node:fs')
    const { workerData } = require('node:worker_threads')
    const offsets = workerData.offsets
    const set = (ms) => {
      const bytes = Buffer.alloc(8)
      bytes.writeBigInt64LE(BigInt(ms))
      const fd = fs.openSync(workerData.file, 'r+')
      fs.writeSync(fd, bytes, 0, 8, 0)
      fs.closeSync(fd)
    }
    Atomics.store(offsets, 0, 1)
    Atomics.notify(offsets, 0)
    Atomics.wait(offsets, 0, 1, ${after})
    set(-2000)
    Atomics.store(offsets, 0, 2)
    Atomics.wait(offsets, 0, 2, ${back})
    set(0)
    Atomics.store(offsets, 0, 3)
  `
  const worker = new Worker(code, { eval: true, workerData: { offsets, file: process.env.FAKE_OFFSET_FILE } })
  worker.exited = new Promise((resolve) => worker.once('exit', resolve))
  return worker
}

function nextCoarseFrozen() {
  const [mine, other] = [0, 1].map(() => new FlakeId({ scope: 'process', id: 5, layout: SECONDS }))
  freeze(Date.now())
  // The unit's ids, taken by another generator of the id: this one waits for the next unit.
  other.nextBatch(4096)
  const code = attempt(() => mine.next())
  unfreeze()
  return { code }
}

const modes = { batchFrozen, constructFrozen, constructBack, batchBack, nextCoarseFrozen }
Promise.resolve(modes[mode]()).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`)
    process.exit(0)
  },
  (err) => {
    process.stderr.write(`${err.stack}\n`)
    process.exit(1)
  },
)

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
const stepBy = (ms) => setClock(process.env.FAKE_OFFSET_FILE, ms)

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

// Past this, a wait that should have ended is reported as hung: far past the bound of a wait
// for a clock that stands still (100 ms after what the clock needed), even on a loaded machine.
const HUNG_MS = 10_000

/**
 * How the promise `call()` returns settled, and `ms` after `start` (performance.now()): `{ code }`
 * (the error's code) or `{ ids }` (how many); `{ hung: true }` if it had not after HUNG_MS. By
 * default `start` is read before the call: the wait's own bound counts from inside it, and a
 * loaded machine may pause this thread between the call and a reading after it, which would
 * make the wait look shorter than it was.
 */
function settled(call, start = performance.now()) {
  const promise = call()
  let timer
  const hung = new Promise((resolve) => {
    timer = setTimeout(resolve, HUNG_MS, { hung: true })
  })
  const outcome = promise.then(
    (ids) => ({ ids: ids.length / 8 }),
    (err) => ({ code: err.code ?? String(err), message: err.message }),
  )
  return Promise.race([outcome, hung]).then((result) => {
    clearTimeout(timer)
    return { ...result, ms: Math.round(performance.now() - start) }
  })
}

/**
 * The ids of `generator`'s time unit used up by itself, so that its next call must wait; the
 * last it took, if any were left. A unit its own batch used up counts as another generator's
 * (docs/api.md): next() then waits for the next unit, and under a frozen clock gives up stalled.
 */
function useUp(generator) {
  let last
  for (;;) {
    try {
      last = generator.nextBigInt()
    } catch (err) {
      if (err.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW' && err.code !== 'ERR_FLAKE_CLOCK_STALLED') throw err
      return last
    }
  }
}

/** One next(cb) call as a promise. */
const callback = (generator) =>
  new Promise((resolve, reject) => generator.next((err, id) => (err ? reject(err) : resolve(id))))

// Issue 51, item 2: with default options and the clock frozen, a promise's wait settles: the
// batch and nextAsync() reject with ERR_FLAKE_CLOCK_STALLED within the bound, the event loop
// turning meanwhile. next(cb) keeps flake-idgen's contract: it waits on, the promise in line
// between two of its calls rejected all the same; once the clock moves again, the callbacks get
// ids, in call order, above every one taken before.
async function frozen() {
  const generator = new FlakeId()
  // By the real clock: past the start of a state file made now, ids are at hand.
  await generator.nextAsync()
  freeze(Date.now())
  const before = generator.nextBigInt()
  const counter = turns()
  const batch = await settled(() => generator.nextBatchAsync(10000))
  const frozenTurns = counter.count
  counter.stopped = true
  // The batch took the frozen millisecond's ids, but make sure.
  const last = useUp(generator) ?? before
  const async = await settled(() => generator.nextAsync())
  const start = performance.now()
  const order = []
  const answered = (name, promise) => promise.finally(() => order.push(name))
  const first = answered('callback 1', callback(generator))
  const inLine = await settled(() => answered('async', generator.nextAsync()), start)
  const second = answered('callback 2', callback(generator))
  // Well past the bound, the callbacks still wait.
  await new Promise((resolve) => setTimeout(resolve, 300))
  const waitingOn = order.length
  unfreeze()
  const ids = (await Promise.all([first, second])).map((id) => id.readBigUInt64BE())
  const after = await generator.nextAsync()
  return {
    batch,
    frozenTurns,
    async,
    inLine,
    waitingOn,
    order,
    callbacksAbove: ids[0] > last && ids[1] > ids[0],
    above: after.readBigUInt64BE() > ids[1],
  }
}

// A promise made well after the last was given up on, while the line still waits (a callback in
// it, and the rejected promise's place): it waits afresh, its bound counted from its own call.
async function afresh() {
  const generator = new FlakeId()
  await generator.nextAsync()
  freeze(Date.now())
  useUp(generator)
  // Timed from before the callback, whose wait the promise's bound counts from: on a loaded
  // machine a millisecond may pass between the two calls.
  const start = performance.now()
  const waiting = callback(generator)
  const first = await settled(() => generator.nextAsync(), start)
  await new Promise((resolve) => setTimeout(resolve, 60))
  const later = await settled(() => generator.nextAsync())
  unfreeze()
  await waiting
  return { first, later }
}

// A wait that the clock steps back during, and then stands still: it rejects as sync next()
// throws, in flake-idgen's words, once the step's time and the bound have passed.
async function frozenBack() {
  const generator = new FlakeId({ scope: 'process', id: 6 })
  const now = Date.now()
  freeze(now)
  useUp(generator)
  const waiting = settled(() => generator.nextAsync())
  freeze(now - 500)
  const result = await waiting
  unfreeze()
  return result
}

// A wait that the clock steps back 1 s during, and moves on: waited out, as a step back before
// the call is (the wait's due counts from its lowest reading).
async function stepBackMidWait() {
  const generator = new FlakeId({ scope: 'process', id: 7 })
  let last
  let id
  // Until the call waits (it counts the wait at once): on a loaded machine the millisecond may
  // end between using it up and the call, which then resolves at once.
  for (;;) {
    const { waits } = generator.stats()
    last = useUp(generator)
    id = generator.nextAsync()
    if (generator.stats().waits > waits) break
    await id
  }
  const waiting = settled(() => id)
  // Before the wait's first look again, which a later turn of the event loop takes.
  stepBy(-1000)
  const result = await waiting
  stepBy(0)
  return { ...result, above: result.ids === 1 && (await id).readBigUInt64BE() > last }
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
  // A fresh directory, made early in a second: the first mapping waits to the end of that
  // second (its start), and 200 ms into the wait the clock steps back 2 s (by a worker, since
  // this thread is in the wait), coming back a second later. Started early in the second, the
  // wait lasts about 900 ms: a loaded machine that delays the constructor (a file synced to
  // disk, the binary's first load) by a few ms still has the step land inside it.
  const offsets = new Int32Array(new SharedArrayBuffer(4))
  const worker = stepper(offsets, 200, 1000, true)
  Atomics.wait(offsets, 0, 0, 10_000) // until the worker is ready
  while (Date.now() % 1000 > 50) Atomics.wait(offsets, 0, 1, 1000 - (Date.now() % 1000))
  Atomics.store(offsets, 0, GO)
  Atomics.notify(offsets, 0)
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

// What a thread stores in `offsets[0]` to tell a stepper made with `onGo` to start counting.
const GO = 5

/**
 * A worker that steps this process's clock back 2 s `after` ms, and forward again `back` ms
 * later: `offsets[0]` says where it is (1: about to step, 2: stepped, 3: back). With `onGo`,
 * `after` counts from when this thread stores GO there, not from when the worker is ready.
 */
function stepper(offsets, after, back, onGo = false) {
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
    if (${onGo}) Atomics.wait(offsets, 0, 1)
    Atomics.wait(offsets, 0, Atomics.load(offsets, 0), ${after})
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

const modes = {
  frozen,
  afresh,
  frozenBack,
  stepBackMidWait,
  constructFrozen,
  constructBack,
  batchBack,
  nextCoarseFrozen,
}
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

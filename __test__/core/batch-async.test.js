'use strict'
// nextBatchAsync() never holds a thread of libuv's pool: long batches leave fs and the rest of
// the pool alone, end with the process or the worker, and can be aborted. Each check compares
// against what the batches would need to finish (seconds), never against a speed target.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { Worker } = require('node:worker_threads')
const FlakeId = require('../..')
const { SEPARATE_MODULES_IN_WASM } = require('../support/helpers.js')

// 8 batches of 2^24 ids of one generator id: over 32 s of its 4,096 ids per millisecond.
const LONG = 2 ** 24
// Exit and terminate drop the batches: the end takes milliseconds (under 15 ms with both cores
// busy), where waiting for the batches would take the 32 s. The bound leaves room for a slow
// machine and still says "at once"; past HANG_MS a child or a worker counts as hung.
const EXIT_MS = 500
const HANG_MS = 20_000

/** The batches were under way, neither finished nor stuck, when exit or terminate came. */
function assertMidway(settled, ids) {
  assert.equal(settled, 0, 'a batch had settled already')
  assert.ok(ids > 0 && ids < 8 * LONG, `${ids} of ${8 * LONG} ids taken`)
}

test('long batches leave the thread pool and the event loop free', async () => {
  const generator = new FlakeId({ id: 640 })
  const controller = new AbortController()
  let settled = 0
  const batches = Array.from({ length: 8 }, () =>
    generator.nextBatchAsync(LONG, { signal: controller.signal }).finally(() => settled++),
  )
  // Before, each batch was a pool work item: this read waited ~30 s behind them.
  await fs.promises.readFile(__filename)
  await new Promise((resolve) => setTimeout(resolve, 20))
  assert.equal(settled, 0, 'the read answered while every batch was still running')
  controller.abort()
  for (const batch of batches) await assert.rejects(batch, { name: 'AbortError', code: 'ABORT_ERR' })
})

test('process.exit in the middle of long batches ends the process at once', async () => {
  // The child notes, on its own clock, how far its batches got and when it called exit; the
  // end is when this process sees it gone. A child still running after HANG_MS is killed.
  const script = `
    const g = new (require(${JSON.stringify(require.resolve('../..'))}))({ id: 641 })
    let settled = 0
    for (let k = 0; k < 8; k++) g.nextBatchAsync(${LONG}).finally(() => settled++)
    setTimeout(() => {
      require('node:fs').writeSync(1, JSON.stringify({ settled, ids: g.stats().ids, exitAt: Date.now() }))
      process.exit(7)
    }, 100)`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'], timeout: HANG_MS })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  let endedAt
  child.once('exit', () => (endedAt = Date.now()))
  const [status, signal] = await once(child, 'close')
  assert.equal(status, 7, `exit status ${status}, signal ${signal}: ${stderr}`)
  const { settled, ids, exitAt } = JSON.parse(stdout)
  assertMidway(settled, ids)
  const ms = endedAt - exitAt
  assert.ok(ms < EXIT_MS, `the process ended ${ms} ms after process.exit()`)
})

test(
  'worker.terminate() in the middle of long batches ends the worker at once',
  { skip: SEPARATE_MODULES_IN_WASM },
  { timeout: HANG_MS },
  async () => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads')
     const g = new (require(${JSON.stringify(require.resolve('../..'))}))({ id: 642 })
     let settled = 0
     for (let k = 0; k < 8; k++) g.nextBatchAsync(${LONG}).finally(() => settled++)
     setTimeout(() => parentPort.postMessage({ settled, ids: g.stats().ids }), 100)`,
      { eval: true },
    )
    const [{ settled, ids }] = await once(worker, 'message')
    assertMidway(settled, ids)
    // Should terminate hang, the test's timeout fails it, and the worker does not hold this process.
    worker.unref()
    const started = performance.now()
    await worker.terminate()
    const ms = performance.now() - started
    assert.ok(ms < EXIT_MS, `the worker ended ${ms.toFixed(1)} ms after terminate()`)
  },
)

test('an aborted batch rejects with an AbortError; its ids are never handed out again', async () => {
  const generator = new FlakeId({ id: 643 })
  const controller = new AbortController()
  const batch = generator.nextBatchAsync(LONG, { signal: controller.signal })
  setTimeout(() => controller.abort(new Error('enough')), 20)
  const error = await batch.catch((error) => error)
  assert.equal(error.name, 'AbortError')
  assert.equal(error.code, 'ABORT_ERR')
  assert.equal(error.cause.message, 'enough')
  // Whatever it took is behind the state: the next ids are above every one of it.
  const taken = generator.stats().ids
  assert.ok(taken > 0 && taken < LONG)
  const after = generator.nextBatch(10)
  const rest = await generator.nextBatchAsync(10)
  assert.ok(rest.readBigUInt64BE(0) > after.readBigUInt64BE(72))

  const aborted = AbortSignal.abort()
  await assert.rejects(generator.nextBatchAsync(5, { signal: aborted }), { name: 'AbortError' })
  assert.equal(generator.stats().ids, taken + 20)
})

test('bad options are refused before anything is taken', async () => {
  const generator = new FlakeId({ id: 644 })
  await assert.rejects(generator.nextBatchAsync(5, 5), { code: 'ERR_INVALID_ARG_TYPE', message: /"options"/ })
  await assert.rejects(generator.nextBatchAsync(5, { signal: {} }), {
    code: 'ERR_INVALID_ARG_TYPE',
    message: /AbortSignal/,
  })
  await assert.rejects(generator.nextBatchAsync(0), { code: 'ERR_OUT_OF_RANGE' })
  assert.equal(generator.stats().ids, 0)
})

test('batches of one generator id run one after the other, in call order', async () => {
  const [a, b] = [new FlakeId({ id: 645 }), new FlakeId({ id: 645, epoch: 0 })]
  const order = []
  const inOrder = (name) => (ids) => {
    order.push(name)
    return ids
  }
  const first = a.nextBatchAsync(60_000).then(inOrder('first'))
  const second = b.nextBatchAsync(60_000).then(inOrder('second'))
  const [x, y] = await Promise.all([first, second])
  assert.deepEqual(order, ['first', 'second'])
  // Not interleaved: every id of the second is above every id of the first.
  assert.ok(y.readBigUInt64BE(0) > x.readBigUInt64BE(x.length - 8))
})

test("a clock of the user's that stands still keeps a batch waiting past the system clock's bound, until it moves", async () => {
  // As nextAsync() (async.test.js): only the system clock's waits are given up on.
  let now = 12_000
  const generator = new FlakeId({ id: 646, seqMask: 1, clock: () => now })
  let settled = false
  const batch = generator.nextBatchAsync(3).finally(() => {
    settled = true
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(settled, false, "the wait for a clock of the user's was given up on")
  now++
  const ids = await batch
  assert.equal(ids.readBigUInt64BE(16) >> 22n, 12_001n)
})

'use strict'
// nextAsync(): a Promise of an id that waits instead of rejecting for overflow or a step back.

const test = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('../..')
const { decode } = require('../support/helpers')

test('resolves with an id of 8 bytes', async () => {
  const id = await new FlakeId({ id: 5 }).nextAsync()
  assert.ok(Buffer.isBuffer(id) && id.length === 8)
  assert.equal(decode(id).id, 5)
})

test('waits through overflow, in call order', async () => {
  let reads = 0
  const generator = new FlakeId({ seqMask: 1, clock: () => 5000 + Math.floor(reads++ / 5) })
  const ids = await Promise.all(Array.from({ length: 8 }, () => generator.nextAsync()))
  for (let i = 1; i < ids.length; i++) assert.ok(Buffer.compare(ids[i - 1], ids[i]) < 0)
  assert.ok(decode(ids[7]).time - decode(ids[0]).time >= 3)
})

test('waits for a clock that stepped back to catch up', async () => {
  const readings = [5000, 4990, 4995, 5000]
  const generator = new FlakeId({ clock: () => (readings.length > 1 ? readings.shift() : readings[0]) })
  const first = await generator.nextAsync()
  const second = await generator.nextAsync()
  assert.deepEqual(
    [decode(first), decode(second)],
    [
      { time: 5000, id: 0, sequence: 0 },
      { time: 5000, id: 0, sequence: 1 },
    ],
  )
})

test('rejects for what waiting cannot cure, even a falsy value the clock threw', async () => {
  await assert.rejects(new FlakeId({ clock: () => NaN }).nextAsync(), {
    name: 'RangeError',
    code: 'ERR_FLAKE_INVALID_CLOCK',
  })
  const thrown = await new FlakeId({
    clock: () => {
      throw 0
    },
  })
    .nextAsync()
    .then(
      () => 'resolved',
      (reason) => reason,
    )
  assert.equal(thrown, 0)
})

test('an id ready now settles the promise with no tick: a faked process.nextTick holds nothing', async () => {
  // Jest's default fake timers replace process.nextTick (issue 33): what nextAsync() queues
  // there never runs unless the test runs the ticks. Faked for the call only, as Jest would.
  const generator = new FlakeId({ id: 6, clock: () => 7000 })
  const held = []
  const { nextTick } = process
  process.nextTick = (...args) => held.push(args)
  let promise
  try {
    promise = generator.nextAsync()
  } finally {
    process.nextTick = nextTick
  }
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise((resolve) => setTimeout(resolve, 1000, false)),
  ])
  // Run what was held, so that nothing is left waiting whatever the outcome.
  for (const [callback, ...args] of held) callback(...args)
  assert.equal(held.length, 0, 'nextAsync() queued a tick')
  assert.ok(settled, 'the promise did not settle without the tick')
  assert.equal(decode(await promise).id, 6)
})

test('a wait reads the clock once at the call: a scripted clock loses no reading to a second look', async () => {
  let reads = 0
  let now = 9000
  const generator = new FlakeId({
    seqMask: 1,
    clock: () => {
      reads++
      return now
    },
  })
  await generator.nextAsync()
  await generator.nextAsync()
  const before = reads
  const waiting = generator.nextAsync()
  const readAtCall = reads - before
  // Moved on before any assertion: a clock left standing would keep the wait polling.
  now++
  const after = await generator.nextAsync()
  assert.equal(readAtCall, 1, 'readings taken by the call that found the millisecond used up')
  assert.ok(Buffer.compare(await waiting, after) < 0)
  assert.deepEqual(generator.stats(), { ids: 4, overflows: 1, clockBackwards: 0, waits: 1 })
})

test("a clock of the user's that stands still keeps the wait past the system clock's bound, until it moves", async () => {
  // The system clock's waits give up 100 ms past what the clock needed (lib/generator/wait.js); a clock of
  // the user's is the user's time, and a test may keep it still for as long as it likes.
  let now = 11_000
  const generator = new FlakeId({ seqMask: 1, clock: () => now })
  await generator.nextAsync()
  await generator.nextAsync()
  let settled = false
  const waiting = generator.nextAsync().finally(() => {
    settled = true
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(settled, false, "the wait for a clock of the user's was given up on")
  now++
  assert.deepEqual(decode(await waiting), { time: 11_001, id: 0, sequence: 0 })
})

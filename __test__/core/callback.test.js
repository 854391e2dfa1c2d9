'use strict'
// next(cb): asynchronous, never fails for overflow or a clock step back, answered in call order.

const test = require('node:test')
const assert = require('node:assert/strict')
const FlakeIdgen = require('flake-idgen')
const FlakeId = require('../..')
const { decode, scriptedClock } = require('../support/helpers')

/** Calls next(cb) `count` times; resolves with [error, id] pairs in the order callbacks ran. */
function collect(generator, count) {
  return new Promise((resolve) => {
    const answers = []
    for (let i = 0; i < count; i++) {
      generator.next((error, id) => {
        answers.push({ call: i, error, id })
        if (answers.length === count) resolve(answers)
      })
    }
  })
}

test('answers on the nextTick queue with (null, id) and returns undefined', async () => {
  const events = []
  setImmediate(() => events.push('setImmediate'))
  const answered = new Promise((resolve) => {
    const returned = new FlakeId().next((error, id) => {
      events.push('callback')
      resolve([error, id])
    })
    events.push(['returned', returned])
  })
  const [error, id] = await answered
  assert.equal(error, null)
  assert.ok(Buffer.isBuffer(id) && id.length === 8)
  await new Promise(setImmediate)
  assert.deepEqual(events, [['returned', undefined], 'callback', 'setImmediate'])
})

test('overflow waits for the next millisecond; callbacks keep call order and ids increase', async () => {
  let reads = 0
  // Time moves one ms every 5 reads of the clock, whatever the timing of the test machine.
  const generator = new FlakeId({ seqMask: 1, clock: () => 5000 + Math.floor(reads++ / 5) })
  const answers = await collect(generator, 12)
  assert.deepEqual(
    answers.map((a) => a.call),
    [...Array(12).keys()],
  )
  for (const { error } of answers) assert.equal(error, null)
  const decoded = answers.map((a) => decode(a.id))
  for (let i = 1; i < answers.length; i++) assert.ok(Buffer.compare(answers[i - 1].id, answers[i].id) < 0)
  // Two ids per millisecond at most (seqMask 1), so 12 ids span at least 6 milliseconds.
  assert.ok(decoded.every((d) => d.sequence <= 1))
  assert.ok(decoded[11].time - decoded[0].time >= 5)
})

test('a burst on the system clock: every callback answered, in order, unique increasing ids', async () => {
  const count = 20_000 // about 5 ms worth of ids: most of them wait for a later millisecond
  const answers = await collect(new FlakeId({ id: 901 }), count)
  assert.equal(answers.length, count)
  for (let i = 0; i < count; i++) {
    assert.equal(answers[i].call, i)
    assert.equal(answers[i].error, null)
    if (i > 0) assert.ok(Buffer.compare(answers[i - 1].id, answers[i].id) < 0)
  }
})

test('a clock step back is waited out, not thrown (flake-idgen throws ReferenceError here)', async () => {
  const readings = [1000, 990, 990, 995]
  const generator = new FlakeId({ clock: () => (readings.length ? readings.shift() : 1000) })
  const first = generator.next()
  const [answer] = await collect(generator, 1)
  assert.equal(answer.error, null)
  assert.deepEqual(decode(answer.id), { time: 1000, id: 0, sequence: 1 })
  assert.ok(Buffer.compare(first, answer.id) < 0)

  // The bug being fixed: flake-idgen 1.4.0's next(cb) refers to an undefined `self`.
  const theirs = new FlakeIdgen()
  const realNow = Date.now
  try {
    Date.now = () => 2000
    theirs.next()
    Date.now = () => 1990
    assert.throws(() => theirs.next(() => {}), ReferenceError)
  } finally {
    Date.now = realNow
  }
})

test('errors that waiting cannot cure go to the callback, and later calls still answer', async () => {
  const readings = [NaN, 7000]
  const generator = new FlakeId({ clock: () => readings.shift() })
  const [failed, succeeded] = await collect(generator, 2)
  assert.ok(failed.error instanceof RangeError)
  assert.equal(failed.error.code, 'ERR_FLAKE_INVALID_CLOCK')
  assert.equal(failed.id, undefined)
  assert.equal(succeeded.error, null)
  assert.equal(decode(succeeded.id).time, 7000)
})

test('a clock that throws a falsy value fails that callback without an id', async () => {
  const readings = [undefined, 8000]
  const generator = new FlakeId({
    clock: () => {
      const reading = readings.shift()
      if (reading === undefined) throw reading
      return reading
    },
  })
  const [failed, succeeded] = await collect(generator, 2)
  assert.equal(failed.id, undefined)
  assert.deepEqual(decode(succeeded.id), { time: 8000, id: 0, sequence: 0 })
})

test('a callback that is not a function is a TypeError; a falsy one means no callback', () => {
  const generator = new FlakeId()
  for (const cb of [1, 'cb', {}, true]) {
    assert.throws(() => generator.next(cb), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' })
  }
  for (const cb of [undefined, null, 0, false]) assert.ok(Buffer.isBuffer(generator.next(cb)))
})

test('a callback may call next(cb) again: still asynchronous, still in call order', async () => {
  let now = 5000
  const generator = new FlakeId({ seqMask: 1, clock: () => now })
  generator.next()
  generator.next()
  const order = []
  const done = new Promise((resolve) => {
    generator.next((_error, id) => {
      order.push(['first', decode(id).time])
      let returned = false
      generator.next((_error, id) => {
        order.push(['nested', returned, decode(id).time])
        resolve()
      })
      returned = true
    })
    generator.next((_error, id) => {
      order.push(['second', decode(id).time])
      now = 5002
    })
  })
  setTimeout(() => (now = 5001), 5)
  await done
  // seqMask 1: two ids in 5001; the nested call, queued behind the second, gets 5002.
  assert.deepEqual(order, [
    ['first', 5001],
    ['second', 5001],
    ['nested', true, 5002],
  ])
})

test('a callback that throws does not strand the calls queued behind it', () => {
  // In a child process: the throw is an uncaught exception, which would fail this test file.
  const script = `
    const FlakeId = require(${JSON.stringify(require.resolve('../..'))})
    let now = 5000
    const generator = new FlakeId({ seqMask: 1, clock: () => now })
    generator.next(); generator.next()
    const answered = []
    process.on('uncaughtException', (error) => answered.push('threw ' + error.message))
    generator.next(() => { throw new Error('boom') })
    generator.next((error, id) => { answered.push(id.length); now = 5003 })
    generator.next((error, id) => { answered.push(id.length); console.log(JSON.stringify(answered)) })
    setTimeout(() => { now = 5002 }, 5)
  `
  const { execFileSync } = require('node:child_process')
  const output = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  assert.deepEqual(JSON.parse(output), ['threw boom', 8, 8])
})

test('a synchronous burst is answered while it runs, not only after it', async () => {
  const generator = new FlakeId({ id: 902 })
  const count = 200_000
  let answeredDuringBurst = 0
  let bursting = true
  const all = new Promise((resolve) => {
    let left = count
    for (let i = 0; i < count; i++) {
      generator.next(() => {
        if (bursting) answeredDuringBurst++
        if (--left === 0) resolve()
      })
    }
  })
  // Callbacks run on nextTick at the earliest, so none has run yet; count how many ids the
  // burst took meanwhile.
  bursting = false
  const issuedDuringBurst = generator.stats().ids
  await all
  assert.equal(answeredDuringBurst, 0)
  // 200,000 calls take well over a millisecond: ids were issued in more than the first one.
  const firstMillisecond = 4096
  assert.ok(issuedDuringBurst > firstMillisecond, `${issuedDuringBurst} ids issued during the burst`)
})

test('a callback that throws on the nextTick queue does not strand or reorder the rest', () => {
  const script = `
    const FlakeId = require(${JSON.stringify(require.resolve('../..'))})
    const generator = new FlakeId({ id: 3 })
    const answered = []
    process.on('uncaughtException', (error) => answered.push(error.message))
    generator.next(() => { throw new Error('boom') })
    generator.next((error, id) => answered.push(['second', id.readBigUInt64BE().toString()]))
    generator.next((error, id) => answered.push(['third', id.readBigUInt64BE().toString()]))
    // At exit, once nothing is left to run: Node 26 runs the ticks queued by one that threw only
    // after the next immediate.
    process.on('exit', () => console.log(JSON.stringify(answered)))
  `
  const { execFileSync } = require('node:child_process')
  const answered = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))
  assert.deepEqual(
    answered.map((entry) => (Array.isArray(entry) ? entry[0] : entry)),
    ['boom', 'second', 'third'],
  )
  assert.ok(BigInt(answered[1][1]) < BigInt(answered[2][1]))
})

test('calls still waiting when their instance is collected are answered', async () => {
  // Only the waiting calls hold what they need: nothing else keeps the instance.
  require('node:v8').setFlagsFromString('--expose-gc')
  const gc = require('node:vm').runInNewContext('gc')
  const clock = scriptedClock(Date.parse('2030-01-01'))
  const answers = []
  const answered = new Promise((resolve) => {
    // Two ids a millisecond, and a clock that stands still: four of the six calls wait.
    const generator = new FlakeId({ id: 611, seqMask: 1, clock: clock.read })
    for (let i = 0; i < 6; i++) {
      generator.next((error, id) => {
        answers.push(error ?? decode(id))
        if (answers.length === 6) resolve()
      })
    }
  })
  for (let turn = 0; turn < 5; turn++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  assert.equal(answers.length, 2)
  for (let ms = 1; ms <= 2; ms++) {
    clock.now += 1
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  await answered
  assert.deepEqual(
    answers.map(({ time, sequence }) => [time - Date.parse('2030-01-01'), sequence]),
    [0, 0, 1, 1, 2, 2].map((ms, i) => [ms, i % 2]),
  )
})

'use strict'
// A millisecond whose ids other processes or threads used up is waited out by a synchronous
// call, never thrown at: flake-idgen throws the overflow only when the generator itself took the
// millisecond's ids (its counter is its own), and so does next() here (issue 33, item 3).

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn } = require('node:child_process')
const path = require('node:path')
const { once } = require('node:events')
const { Worker } = require('node:worker_threads')
const FlakeId = require('../..')

const ROOT = path.join(__dirname, '..', '..')
// Fresh generators are made for this long, or until there are this many: a loaded machine makes
// fewer, never fails for it.
const RUN_MS = 3000
const MOST = 50_000

// Takes ids on generator id ID as fast as it can with sync next(), its own overflows caught; says
// so once it has met one (it is using up whole milliseconds), then runs until killed.
const TAKER = `
  const F = require(process.env.ENTRY)
  const g = new F({ id: Number(process.env.ID), scope: process.env.SCOPE })
  const say = process.env.SCOPE === 'host' ? (m) => process.stdout.write(m + '\\n') : (m) => require('node:worker_threads').parentPort.postMessage(m)
  let ready = false
  for (;;) {
    try { g.next() } catch (error) {
      if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') { say(error.code); throw error }
      if (!ready) { ready = true; say('ready') }
    }
  }`

/**
 * Fresh generators on id `id` of `scope`, each taking its first id by one of the sync calls, while
 * a neighbour uses up milliseconds: none throws, and some waited (there was a neighbour's
 * millisecond to wait out).
 */
function freshGenerators(scope, id) {
  const forms = [(g) => g.next(), (g) => g.nextBigInt(), (g) => g.nextString(), (g) => g.nextBatch(1)]
  let made = 0
  let waited = 0
  const thrown = new Map()
  for (const end = Date.now() + RUN_MS; made < MOST && Date.now() < end; made++) {
    const generator = new FlakeId({ id, scope })
    try {
      forms[made % forms.length](generator)
    } catch (error) {
      thrown.set(error.code, (thrown.get(error.code) ?? 0) + 1)
    }
    if (generator.stats().waits > 0) waited++
  }
  assert.deepEqual(Object.fromEntries(thrown), {}, `first calls of ${made} fresh generators threw`)
  assert.ok(waited > 0, `none of ${made} fresh generators met a millisecond used up by the neighbour`)
}

test('host scope: beside a process using up milliseconds on id 0, no fresh generator throws', async () => {
  const taker = spawn(process.execPath, ['-e', TAKER], {
    env: { ...process.env, ENTRY: ROOT, SCOPE: 'host', ID: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    const [ready] = await Promise.race([once(taker.stdout, 'data'), once(taker, 'exit')])
    assert.equal(String(ready), 'ready\n')
    freshGenerators('host', 0)
    assert.equal(taker.exitCode, null, 'the neighbour stopped')
  } finally {
    taker.kill()
  }
})

// Id 6, not 0: this process issues id 0 from the host's state (the test above), and one id has
// one state in a process.
test('process scope: beside a worker thread using up milliseconds on id 6, no fresh generator throws', async () => {
  const taker = new Worker(TAKER, { eval: true, env: { ...process.env, ENTRY: ROOT, SCOPE: 'process', ID: '6' } })
  try {
    const [ready] = await Promise.race([once(taker, 'message'), once(taker, 'error')])
    assert.equal(ready, 'ready')
    freshGenerators('process', 6)
  } finally {
    await taker.terminate()
  }
})

test('a generator that took the millisecond itself still throws, as flake-idgen does', () => {
  // seqMask 1: two ids a millisecond, so a loop of three calls meets its own overflow within
  // one millisecond sooner or later; one that waited instead would never throw.
  const generator = new FlakeId({ id: 1, scope: 'process', seqMask: 1 })
  let error
  for (let round = 0; error === undefined && round < 1000; round++) {
    try {
      for (let i = 0; i < 3; i++) generator.next()
    } catch (thrown) {
      error = thrown
    }
  }
  assert.equal(error?.code, 'ERR_FLAKE_SEQUENCE_OVERFLOW')
  assert.equal(
    error.message,
    'Sequence exceeded its maximum value. Provide callback function to handle sequence overflow',
  )
})

test('instances of one configuration count their own ids: a millisecond two of them used up is waited out', () => {
  // seqMask 1: two ids a millisecond; a and b take one each, so neither took the millisecond.
  const [a, b] = [0, 1].map(() => new FlakeId({ id: 2, scope: 'process', seqMask: 1 }))
  for (let round = 0; round < 1000; round++) {
    a.next()
    b.next()
    a.next()
    b.next()
  }
  // Some round had all four calls in one millisecond: the second call of each waited.
  assert.ok(a.stats().waits + b.stats().waits > 0, 'no millisecond was used up by the two')
  assert.equal(a.stats().ids + b.stats().ids, 4000)
})

test('an instance that took a millisecond itself throws, after another of its configuration took ids', () => {
  // seqMask 1: two ids a millisecond. The twin's id comes first; mine's first shares its
  // millisecond, and the next waits for one of mine alone (its slot counts them for it afresh):
  // the millisecond after that is sooner or later used up by mine, and its fourth call throws.
  const [twin, mine] = [0, 1].map(() => new FlakeId({ id: 8, scope: 'process', seqMask: 1 }))
  let error
  for (let round = 0; error === undefined && round < 1000; round++) {
    try {
      twin.next()
      for (let i = 0; i < 4; i++) mine.next()
    } catch (thrown) {
      error = thrown
    }
  }
  assert.equal(error?.code, 'ERR_FLAKE_SEQUENCE_OVERFLOW')
  assert.ok(mine.stats().overflows > 0, 'the overflow is mine')
})

test("an instance's own count survives other instances' calls, from another copy of the package too", () => {
  const entry = require.resolve('../..')
  const other = () => {
    // A second copy of the package's JS in this thread (as Jest loads it), on the same scratch.
    const cached = Object.keys(require.cache).filter((file) => file.startsWith(path.dirname(path.dirname(entry))))
    const saved = cached.map((file) => [file, require.cache[file]])
    for (const file of cached) delete require.cache[file]
    try {
      return require(entry)
    } finally {
      for (const [file, module] of saved) require.cache[file] = module
    }
  }
  const Copy = other()
  assert.notEqual(Copy, FlakeId)
  const mine = new FlakeId({ id: 3, scope: 'process', seqMask: 1 })
  const others = [new FlakeId({ id: 4, scope: 'process' }), new Copy({ id: 5, scope: 'process' })]
  let error
  for (let round = 0; error === undefined && round < 1000; round++) {
    try {
      mine.next()
      others[round % 2].next()
      mine.next()
      others[round % 2].next()
      mine.next()
    } catch (thrown) {
      error = thrown
    }
  }
  // Had a switch lost its count, it would have waited instead, every time.
  assert.equal(error?.code, 'ERR_FLAKE_SEQUENCE_OVERFLOW')
})

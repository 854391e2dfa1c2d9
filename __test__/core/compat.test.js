'use strict'
// Byte-for-byte against flake-idgen 1.4.0 under the same clock: its README examples, its
// properties, and random clock walks.

const test = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const FlakeIdgen = require('flake-idgen')
const FlakeId = require('../..')
const { decode, scriptedClock, outcome, fcSeed, wasmBuild } = require('../support/helpers')

test('README table: default generator', () => {
  const clock = scriptedClock(0x8c20543b0)
  const ours = new FlakeId({ clock: clock.read })
  const hex = () => ours.next().toString('hex')
  assert.equal(hex(), '02308150ec000000')
  clock.now = 0x8c20543b1
  assert.deepEqual(
    [hex(), hex(), hex(), hex()],
    ['02308150ec400000', '02308150ec400001', '02308150ec400002', '02308150ec400003'],
  )
})

test('README table: datacenter 3, worker 1', () => {
  const ours = new FlakeId({ datacenter: 3, worker: 1, clock: () => 0x8c20c0335 })
  assert.equal(ours.next().toString('hex'), '02308300cd461000')
  assert.equal(ours.next().toString('hex'), '02308300cd461001')
})

test('README bit breakdown: 5828128208445124608 is datacenter 7, worker 3, counter 0', () => {
  const time = 0b010100001110000110101011101110100001000111
  const ours = new FlakeId({ datacenter: 7, worker: 3, clock: () => time })
  assert.equal(ours.next().readBigUInt64BE(0), 5828128208445124608n)
})

test('README properties: id, datacenter, worker', () => {
  const cases = [{ id: 100 }, { datacenter: 9, worker: 7 }, undefined]
  for (const options of cases) {
    const ours = new FlakeId(options)
    const theirs = new FlakeIdgen(options)
    assert.deepEqual(
      [ours.id, ours.datacenter, ours.worker, ours.epoch, ours.seqMask],
      [theirs.id, theirs.datacenter, theirs.worker, theirs.epoch, theirs.seqMask],
    )
  }
  assert.deepEqual(
    [new FlakeId({ id: 100 }).datacenter, new FlakeId({ datacenter: 9, worker: 7 }).id],
    [undefined, 295],
  )
})

test('options are coerced as flake-idgen coerces them', () => {
  const cases = [
    { worker: '7', datacenter: '3' },
    { id: '1000' },
    { epoch: '1300000000000' },
    { epoch: new Date(1300000000000) },
    { datacenter: null, worker: null, epoch: null, seqMask: null },
    { seqMask: 255 },
    // `typeof null !== 'undefined'`: `id` wins and is `null & 0x3FF`, 0.
    { id: null },
    { id: null, datacenter: 3, worker: 1 },
    { datacenter: null, worker: 5 },
    { datacenter: 3, worker: null },
    // `options.seqMask || 0xFFF`.
    { seqMask: 0 },
    { seqMask: -0, epoch: 0 },
  ]
  for (const options of cases) {
    const clock = scriptedClock(1400000000000)
    const ours = new FlakeId({ ...options, clock: clock.read })
    const theirs = new FlakeIdgen(options)
    assert.equal(ours.epoch, theirs.epoch, JSON.stringify(options))
    assert.equal(ours.id, theirs.id, JSON.stringify(options))
    assert.equal(ours.seqMask, theirs.seqMask, JSON.stringify(options))
    assert.deepEqual([ours.datacenter, ours.worker], [theirs.datacenter, theirs.worker], JSON.stringify(options))
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(
        outcome(() => ours.next()),
        clock.withDateNow(() => outcome(() => theirs.next())),
      )
    }
  }
})

test('instance keeps the options object it was given', () => {
  const options = { id: 3 }
  assert.equal(new FlakeId(options).options, options)
  assert.deepEqual(new FlakeId().options, {})
})

test('next() returns a fresh 8-byte Buffer with its own ArrayBuffer', () => {
  const ours = new FlakeId()
  const a = ours.next()
  const b = ours.next()
  for (const id of [a, b]) {
    assert.ok(Buffer.isBuffer(id))
    assert.equal(id.length, 8)
    assert.equal(id.byteOffset, 0)
    assert.equal(id.buffer.byteLength, 8)
  }
  assert.notEqual(a.buffer, b.buffer)
  assert.ok(Buffer.compare(a, b) < 0)
})

test('flake-idgen error messages, with codes', () => {
  const clock = scriptedClock(1400000000000)
  const ours = new FlakeId({ seqMask: 1, clock: clock.read })
  const theirs = new FlakeIdgen({ seqMask: 1 })
  const both = () => [outcome(() => ours.next()), clock.withDateNow(() => outcome(() => theirs.next()))]
  both()
  both()
  const [overflow, theirOverflow] = both()
  assert.deepEqual(overflow, theirOverflow)
  assert.deepEqual(overflow, [
    'error',
    'Sequence exceeded its maximum value. Provide callback function to handle sequence overflow',
  ])
  assert.throws(() => ours.next(), { name: 'Error', code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })

  clock.now -= 5
  const [backwards, theirBackwards] = both()
  assert.deepEqual(backwards, theirBackwards)
  assert.deepEqual(backwards, ['error', 'Clock moved backwards. Refusing to generate id for 5 milliseconds'])
  assert.throws(() => ours.next(), { name: 'Error', code: 'ERR_FLAKE_CLOCK_BACKWARDS' })
})

test('random clock walks: same bytes and same errors as flake-idgen', () => {
  const step = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }).map((ms) => ['advance', ms]) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 20 }).map((ms) => ['back', ms]) },
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => ['burst', n]) },
  )
  const scenario = fc.record({
    options: fc.oneof(
      fc.record({ id: fc.integer({ min: 0, max: 1023 }) }),
      fc.record({ datacenter: fc.integer({ min: 0, max: 31 }), worker: fc.integer({ min: 0, max: 31 }) }),
    ),
    epoch: fc.integer({ min: 0, max: 1_600_000_000_000 }),
    seqMaskBits: fc.integer({ min: 1, max: 5 }),
    steps: fc.array(step, { minLength: 1, maxLength: 60 }),
  })
  fc.assert(
    fc.property(scenario, ({ options, epoch, seqMaskBits, steps }) => {
      const settings = { ...options, epoch, seqMask: 2 ** seqMaskBits - 1 }
      // Start past the epoch: flake-idgen's first id at exactly the epoch gets counter 1.
      const clock = scriptedClock(1_700_000_000_000)
      const ours = new FlakeId({ ...settings, clock: clock.read })
      const theirs = new FlakeIdgen(settings)
      let last = Buffer.alloc(8)
      for (const [kind, n] of steps) {
        if (kind === 'advance') clock.now += n
        if (kind === 'back') clock.now -= n
        for (let i = 0; i < (kind === 'burst' ? n : 1); i++) {
          const mine = outcome(() => ours.next())
          assert.deepEqual(
            mine,
            clock.withDateNow(() => outcome(() => theirs.next())),
          )
          if (mine[0] === 'ok') {
            const id = Buffer.from(mine[1], 'hex')
            assert.ok(Buffer.compare(last, id) < 0, 'ids increase')
            assert.equal(decode(id).time, clock.now - epoch)
            last = id
          }
        }
      }
    }),
    { seed: fcSeed('random clock walks'), numRuns: 200 },
  )
})

test('random walks of the system clock: next() on a shared state gives the bytes and errors of flake-idgen', (t) => {
  const { shims, shimEnv } = require('../support/clock-shims.js')
  const { skip } = shims()
  if (skip) return t.skip(skip)
  const step = fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }).map((ms) => ['advance', ms]) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 20 }).map((ms) => ['back', ms]) },
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => ['burst', n]) },
  )
  // Every scenario in one child (a process each would take minutes under WebAssembly), each on
  // a node id of its own: the ids of a shared state are the process's for that node id.
  const scenarios = fc
    .sample(
      fc.record({
        epoch: fc.integer({ min: 0, max: 1_600_000_000_000 }),
        seqMaskBits: fc.integer({ min: 1, max: 5 }),
        start: fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }),
        steps: fc.array(step, { minLength: 1, maxLength: 60 }),
      }),
      { seed: fcSeed('system clock walks'), numRuns: 100 },
    )
    .map(({ epoch, seqMaskBits, start, steps }, id) => ({
      settings: { id, epoch, seqMask: 2 ** seqMaskBits - 1 },
      start,
      steps,
    }))
  const { status, signal, stdout, stderr } = require('node:child_process').spawnSync(
    process.execPath,
    [require('node:path').join(__dirname, '..', 'support', 'system-clock-child.js'), JSON.stringify(scenarios)],
    { encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 28, env: shimEnv('absclock') },
  )
  assert.deepEqual([status, signal], [0, null], `the child did not finish: ${stderr}`)
  const { target, pairs } = JSON.parse(stdout)
  assert.equal(target === 'wasm32-wasi', wasmBuild, `the child loaded ${target}`)
  const met = new Set()
  for (const [index, walked] of pairs.entries()) {
    for (const [ours, theirs] of walked) {
      assert.deepEqual(ours, theirs, `scenario ${index}: ${JSON.stringify(scenarios[index])}`)
      met.add(ours[0] === 'ok' ? 'ok' : ours[1].split('.')[0])
    }
  }
  // The walks met each path: ids, an overflow and a clock that stepped back.
  assert.deepEqual([...met].sort(), ['Clock moved backwards', 'Sequence exceeded its maximum value', 'ok'])
})

test('next() by the system clock takes its build’s path: under WebAssembly the module’s plain export', () => {
  // A child whose thread is set up before the package loads, its id function of next() replaced
  // by one that throws: native.js takes its id functions from that setup. Natively next() calls
  // it; under WebAssembly it must not (src/js/wasm_exports.rs), errors included.
  const child = `
    const binding = require('./lib/binding/load-binding.js')
    const thread = binding.setup(new Uint8Array(new SharedArrayBuffer(binding.SCRATCH_BYTES)))
    thread.issue = () => { throw new Error('the id function') }
    const FlakeId = require('.')
    const generator = new FlakeId({ id: 9, seqMask: 1, scope: 'process' })
    const outcomes = []
    for (let i = 0; i < 3; i++) {
      try {
        outcomes.push(generator.next().length)
      } catch (error) {
        outcomes.push(error.code ?? error.message)
      }
    }
    process.stdout.write(JSON.stringify({ target: binding.__napiBindingTarget, outcomes }))
  `
  const { status, stdout, stderr } = require('node:child_process').spawnSync(process.execPath, ['-e', child], {
    cwd: require('node:path').join(__dirname, '..', '..'),
    encoding: 'utf8',
  })
  assert.equal(status, 0, stderr)
  const { target, outcomes } = JSON.parse(stdout)
  assert.equal(target === 'wasm32-wasi', wasmBuild, `the child loaded ${target}`)
  // Two ids a millisecond (seqMask 1), so the third call may overflow: by the id function's
  // error when the plain export refuses, never through the id function.
  if (wasmBuild) assert.match(outcomes.join(), /^8,8,(8|ERR_FLAKE_SEQUENCE_OVERFLOW)$/)
  else assert.deepEqual(outcomes, ['the id function', 'the id function', 'the id function'])
})

'use strict'
// Every option flake-idgen would silently mask is refused, naming the option and the value.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const FlakeId = require('../..')
const { NO_HOST_SCOPE_IN_WASM, wasmBuild } = require('../support/helpers.js')

const refusals = [
  // [options, error class, message fragment naming option and value]
  [{ worker: 32 }, RangeError, 'option `worker` must be an integer from 0 to 31, got 32'],
  [{ worker: -1 }, RangeError, 'option `worker` must be an integer from 0 to 31, got -1'],
  [{ datacenter: 1.5 }, RangeError, 'option `datacenter` must be an integer from 0 to 31, got 1.5'],
  [{ datacenter: NaN }, RangeError, 'got NaN'],
  [{ id: 1024 }, RangeError, 'option `id` must be an integer from 0 to 1023, got 1024'],
  [{ id: '2000' }, RangeError, 'option `id` must be an integer from 0 to 1023, got "2000"'],
  [{ worker: 'abc' }, TypeError, 'option `worker` must be an integer from 0 to 31, got "abc"'],
  [{ worker: '' }, TypeError, 'option `worker` must be an integer from 0 to 31, got ""'],
  [{ worker: true }, TypeError, 'got true'],
  [{ worker: 3n }, TypeError, 'got 3n'],
  [{ worker: [3] }, TypeError, 'got an array'],
  [{ worker: {} }, TypeError, 'got an object'],
  [{ worker: Symbol('w') }, TypeError, 'got a symbol'],
  [{ seqMask: '0' }, RangeError, 'option `seqMask` must be 2^k - 1 for k from 1 to 12 (1, 3, 7, ..., 4095), got "0"'],
  [{ seqMask: 5 }, RangeError, 'option `seqMask`'],
  [{ seqMask: 8191 }, RangeError, 'got 8191'],
  [{ epoch: Date.now() + 60_000 }, RangeError, 'option `epoch` must be not in the future'],
  [{ epoch: new Date(NaN) }, RangeError, 'got Invalid Date'],
  [{ epoch: -1 }, RangeError, 'option `epoch`'],
  [
    { epoch: '2020-01-01' },
    TypeError,
    'option `epoch` must be a non-negative integer number (or bigint) of ms since 1970, a Date or a numeric string, got "2020-01-01"',
  ],
  [{ clock: 5 }, TypeError, 'option `clock` must be a function returning milliseconds since 1970, got 5'],
]

for (const [options, ErrorClass, message] of refusals) {
  test(`refuses ${require('node:util').inspect(options)}`, () => {
    assert.throws(
      () => new FlakeId(options),
      (error) => {
        assert.ok(error instanceof ErrorClass, `${error.name}: ${error.message}`)
        assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
        assert.ok(error.message.includes(message), error.message)
        return true
      },
    )
  })
}

test('options that are not an object are a TypeError', () => {
  for (const options of [5, 'id', true, [], () => {}]) {
    assert.throws(() => new FlakeId(options), {
      name: 'TypeError',
      code: 'ERR_FLAKE_INVALID_OPTION',
      message: /^options must be an object/,
    })
  }
})

test('no options, undefined and null all mean the defaults', () => {
  for (const generator of [new FlakeId(), new FlakeId(undefined), new FlakeId(null), new FlakeId({})]) {
    assert.deepEqual(
      [generator.id, generator.datacenter, generator.worker, generator.epoch, generator.seqMask],
      [0, 0, 0, 0, 4095],
    )
  }
})

test('every valid seqMask is accepted', () => {
  for (let k = 1; k <= 12; k++) assert.equal(new FlakeId({ seqMask: 2 ** k - 1 }).seqMask, 2 ** k - 1)
})

test('the edges of each range are accepted', () => {
  assert.equal(new FlakeId({ datacenter: 31, worker: 31 }).id, 1023)
  assert.equal(new FlakeId({ id: 1023 }).id, 1023)
  assert.equal(new FlakeId({ id: '0' }).id, 0)
  const now = Date.now()
  assert.equal(new FlakeId({ epoch: now }).epoch, now)
})

test('datacenter and worker are ignored, not checked, when id is given (as in flake-idgen)', () => {
  const generator = new FlakeId({ id: 7, datacenter: 99, worker: 'x' })
  assert.deepEqual([generator.id, generator.datacenter, generator.worker], [7, undefined, undefined])
})

test('an exception thrown by an option getter propagates unchanged', () => {
  const boom = new Error('boom')
  const options = {
    get worker() {
      throw boom
    },
  }
  assert.throws(
    () => new FlakeId(options),
    (error) => error === boom,
  )
})

test('properties are read-only', () => {
  const generator = new FlakeId({ id: 5 })
  assert.throws(() => {
    generator.id = 6
  }, TypeError)
  assert.equal(generator.id, 5)
})

/** Options whose every property is a getter answering `answers[name][n]` on its n-th read. */
function counted(answers) {
  const reads = {}
  const options = {}
  for (const [name, values] of Object.entries(answers)) {
    reads[name] = 0
    Object.defineProperty(options, name, {
      enumerable: true,
      get: () => values[Math.min(reads[name]++, values.length - 1)],
    })
  }
  return { options, reads }
}

test('each option is read exactly once, and the value used is the first one read', () => {
  const first = () => 1_700_000_000_000
  const later = () => 1_700_000_000_000 + 3_600_000
  // Either set of options alone configures a generator: a second read of any of them would
  // change what the instance reports, or make it refuse.
  const byId = counted({
    id: [9, 10],
    datacenter: [1, 2],
    worker: [3, 4],
    epoch: [1000, 2000],
    seqMask: [255, 4095],
    clock: [first, later],
    allowedFutureMs: [5, 7],
    scope: [undefined, 'host'],
    stateDir: [undefined, '/tmp'],
  })
  const generator = new FlakeId(byId.options)
  assert.deepEqual(byId.reads, {
    id: 1,
    datacenter: 1,
    worker: 1,
    epoch: 1,
    seqMask: 1,
    clock: 1,
    allowedFutureMs: 1,
    scope: 1,
    stateDir: 1,
  })
  assert.deepEqual(
    [
      generator.id,
      generator.datacenter,
      generator.worker,
      generator.epoch,
      generator.seqMask,
      generator.allowedFutureMs,
      generator.scope,
    ],
    [9, undefined, undefined, 1000, 255, 5, 'process'],
  )
  assert.equal(FlakeId.decompose(generator.next(), generator).timestamp, first())

  const byParts = counted({
    id: [undefined, 7],
    datacenter: [2, 'x'],
    worker: [3, 99],
    epoch: [undefined, Date.now() + 60_000],
    seqMask: [undefined, 5],
    clock: [undefined, 5],
    allowedFutureMs: [undefined, -1],
    scope: ['process', 'bogus'],
    stateDir: [undefined, 'relative'],
  })
  const plain = new FlakeId(byParts.options)
  assert.deepEqual(Object.values(byParts.reads), Array(9).fill(1))
  assert.deepEqual(
    [plain.id, plain.datacenter, plain.worker, plain.epoch, plain.seqMask, plain.scope],
    [(2 << 5) | 3, 2, 3, 0, 4095, 'process'],
  )
})

test('a clock getter that answers later cannot disturb other generators of its id', () => {
  let reads = 0
  const sneaky = new FlakeId({
    worker: 21,
    get clock() {
      return reads++ ? () => Date.now() + 3_600_000 : undefined
    },
  })
  sneaky.next()
  sneaky.nextBatch(10)
  assert.equal(reads, 1)
  // On the system clock, as read: the next generator of worker 21 is not an hour behind.
  for (let i = 0; i < 3; i++) new FlakeId({ worker: 21 }).next()
  assert.ok(Math.abs(FlakeId.decompose(new FlakeId({ worker: 21 }).next()).timestamp - Date.now()) < 1000)
})

test('messages never echo a whole value', () => {
  const long = '9'.repeat(1e6)
  for (const [options, got] of [
    [{ worker: long }, `got "${'9'.repeat(40)}…"`],
    [{ epoch: `x${long}` }, `got "x${'9'.repeat(39)}…"`],
    [{ seqMask: 10n ** 100n }, `got 1${'0'.repeat(39)}…n`],
    [{ worker: 1e300 }, 'got 1e+300'],
    [{ datacenter: 1.5e-7 }, 'got 1.5e-7'],
    [{ id: -Infinity }, 'got -Infinity'],
    [{ clock: 2 ** 70 }, 'got 1.1805916207174113e+21'],
  ]) {
    assert.throws(
      () => new FlakeId(options),
      (error) => {
        assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
        assert.ok(error.message.endsWith(got), error.message.slice(0, 200))
        return true
      },
    )
  }
  // A path is shown whole up to 120 characters, else cut in the middle, keeping its end; escaped
  // as a JSON string is (C:\\ on Windows).
  const longDir = `${path.parse(process.cwd()).root}${'a'.repeat(1e6)}`
  assert.throws(
    () => new FlakeId({ stateDir: longDir }),
    (error) => {
      assert.equal(error.code, 'ERR_FLAKE_STATE_DIR')
      assert.ok(
        error.message.startsWith(
          `state directory ${JSON.stringify(longDir.slice(0, 40)).slice(0, -1)}…${'a'.repeat(40)}" cannot be used: `,
        ),
        error.message.slice(0, 200),
      )
      assert.ok(error.message.length < 300, `${error.message.length} characters`)
      return true
    },
  )
})

// Issue 39, item 10: an option a FlakeId does not take is ignored, as flake-idgen ignores it,
// with one warning per process for each such name. In a process of its own: warnings are once
// per process, whichever test came first.
test('a misspelt option constructs as flake-idgen does, with one warning naming it and the option meant', {
  skip: NO_HOST_SCOPE_IN_WASM,
}, () => {
  const script = `
    const path = require('node:path')
    const root = process.cwd()
    const warnings = []
    process.on('warning', (w) => warnings.push({ name: w.name, code: w.code, message: w.message }))
    const report = {}
    let FlakeId = require(root)
    const typo = new FlakeId({ workerId: 3 })
    report.typo = { id: typo.id, worker: typo.worker, bytes: typo.next().length }
    new FlakeId({ workerId: 3 })
    // A fresh copy of the package's JS (require.cache cleared, as a test runner's registry) too.
    for (const key of Object.keys(require.cache)) if (!key.endsWith('.node')) delete require.cache[key]
    FlakeId = require(root)
    new FlakeId({ workerId: 3, id: 5 })
    // Every option a FlakeId takes, flake-idgen's among them: none warns.
    new FlakeId({ id: 1, datacenter: 1, worker: 1, process: undefined, epoch: 0, seqMask: 4095, layout: 'flake-idgen',
      scope: 'process', stateDir: undefined, allowedFutureMs: 0 })
    new FlakeId({ clock: () => Date.now() })
    new FlakeId({ datacenter: 2, worker: 3, [Symbol('tag')]: 1 })
    new FlakeId(Object.create({ inherited: 1 }))
    new FlakeId(Object.defineProperty({}, 'hidden', { value: 1, enumerable: false }))
    // Hostile names, and a getter on an unknown option, which is never called.
    let reads = 0
    new FlakeId({ datacenterId: 1, machineId: 2, 'a\\0b': 1, ['x'.repeat(5000)]: 1, get later() { reads++; return 1 } })
    new FlakeId(JSON.parse('{"__proto__": 7}'))
    report.reads = reads
    setImmediate(() => console.log(JSON.stringify({ ...report, warnings })))
  `
  const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', script], {
    cwd: path.join(__dirname, '..', '..'),
    encoding: 'utf8',
  })
  assert.equal(status, 0, stderr)
  // Warnings are emitted on a later tick, in the order of the constructions.
  const { typo, reads, warnings } = JSON.parse(stdout)
  assert.deepEqual(typo, { id: 0, worker: 0, bytes: 8 }, 'generator 0, as flake-idgen makes it')
  assert.equal(warnings.length, 7, `warnings: ${JSON.stringify(warnings, null, 1)}`)
  assert.equal(warnings[0].code, 'FLAKE_IDGEN_UNKNOWN_OPTION')
  assert.match(warnings[0].message, /no option "workerId" \(did you mean "worker"\?\)/)
  assert.equal(reads, 0, 'the value of an unknown option was read')
  const later = warnings.slice(1)
  assert.ok(
    later.every((warning) => warning.code === 'FLAKE_IDGEN_UNKNOWN_OPTION'),
    JSON.stringify(later),
  )
  // None for the same typo again, in a fresh copy, nor for the valid options: the next is the hostile ones'.
  const messages = later.map((warning) => warning.message)
  assert.match(messages[0], /"datacenterId" \(did you mean "datacenter"\?\)/)
  assert.match(messages[1], /"machineId" \(did you mean "id"\?\)/)
  assert.ok(messages[2].includes('"a\\0b" (it takes layout, id, datacenter, worker'), messages[2])
  assert.ok(messages[3].includes(`"${'x'.repeat(64)}..."`) && messages[3].length < 400, messages[3].slice(0, 200))
  assert.match(messages[4], /"later"/)
  assert.match(messages[5], /"__proto__"/)
})

test('the 128-bit kinds refuse an option they do not take, by name', () => {
  for (const make of [() => FlakeId.uuidv7.create({ workerId: 3 }), () => new FlakeId.Flake128({ workerId: 3 })]) {
    assert.throws(make, (error) => {
      assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
      assert.match(error.message, /workerId/)
      return true
    })
  }
})

test('the WebAssembly build: process scope by default, with one warning; host scope asked for is refused', {
  skip: !wasmBuild && 'the WebAssembly build only',
}, () => {
  const root = path.join(__dirname, '..', '..')
  // Each in a process of its own: the warning is once per process, and the environment is the
  // module's from its start.
  const run = (script, env = {}) => {
    const child = spawnSync(process.execPath, ['-e', script, root], {
      encoding: 'utf8',
      env: { ...process.env, FLAKE_IDGEN_STATE_DIR: '', ...env },
    })
    assert.equal(child.status, 0, child.stderr)
    return {
      out: JSON.parse(child.stdout),
      warnings: child.stderr.match(/\[FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE\]/g) ?? [],
    }
  }
  const plain = run(`
    const FlakeId = require(process.argv[1])
    const generators = [new FlakeId({ id: 9 }), new FlakeId({ id: 10 })]
    console.log(JSON.stringify(generators.map((generator) => [generator.scope, generator.next().length])))
  `)
  assert.deepEqual(plain.out, [
    ['process', 8],
    ['process', 8],
  ])
  // One line, for one fallback (issue 50: it printed twice).
  assert.equal(plain.warnings.length, 1)
  const asked = `
    const FlakeId = require(process.argv[1])
    const codes = []
    for (const options of [{ id: 9, scope: 'host' }, { id: 9, stateDir: '/tmp/flake-idgen-wasm' }, { id: 9 }])
      try {
        codes.push(new FlakeId(options).scope)
      } catch (error) {
        codes.push(error.code)
      }
    console.log(JSON.stringify(codes))
  `
  assert.deepEqual(run(asked).out, ['ERR_FLAKE_STATE_DIR', 'ERR_FLAKE_STATE_DIR', 'process'])
  // A directory the environment names is asked for too: the native processes that use it share
  // a state this build cannot.
  const named = run(asked, { FLAKE_IDGEN_STATE_DIR: '/tmp/flake-idgen-wasm' })
  assert.deepEqual(named.out, ['ERR_FLAKE_STATE_DIR', 'ERR_FLAKE_STATE_DIR', 'ERR_FLAKE_STATE_DIR'])
  assert.deepEqual(named.warnings, [])
})

'use strict'
// Flake128 (issue 24): Boundary's flake, 64-bit ms | 48-bit worker (a MAC address by default) |
// 16-bit sequence, as bytes, bigint and fixed-width base62 whose string order is numeric order.

const test = require('node:test')
const assert = require('node:assert/strict')
const os = require('node:os')
const fc = require('fast-check')
const { Flake128 } = require('../..')
const { fcSeed, NO_HOST_SCOPE_IN_WASM } = require('../support/helpers.js')
const { stateDir } = require('../support/state-files.js')
const {
  MAX128,
  bigIntOf,
  bytesOf,
  toBase62,
  fromBase62,
  flakeFields,
  assertIncreasing,
  assertRefused,
  duplicates,
  race,
  assertLogOrdered,
  childResult,
} = require('../support/wide-helpers.js')

const T = 1_700_000_000_000
const W = 0x0123456789ab
const ZERO_MAC = '00:00:00:00:00:00'

/** The id of ms `timestamp`, worker `worker`, sequence `sequence`, as a bigint. */
const idOf = (timestamp, worker, sequence) => (BigInt(timestamp) << 64n) | (BigInt(worker) << 16n) | BigInt(sequence)

/** Flake128.decompose's answer for `fields`. */
const parts = (fields) => ({ ...fields, date: new Date(fields.timestamp) })

/** What the default worker must be: the MAC of the first non-internal interface, by name, not all zeros. */
function expectedWorker(interfaces) {
  for (const name of Object.keys(interfaces).sort()) {
    for (const { internal, mac } of interfaces[name]) {
      if (!internal && mac !== ZERO_MAC) return Number.parseInt(mac.replaceAll(':', ''), 16)
    }
  }
  return undefined
}

test('the layout, read from the bytes: 64-bit ms | 48-bit worker | 16-bit sequence, big-endian', () => {
  const generator = new Flake128({ worker: W, clock: () => T })
  assert.equal(generator.worker, W)
  for (let sequence = 0; sequence < 3; sequence++) {
    const id = generator.next()
    assert.ok(Buffer.isBuffer(id))
    assert.equal(id.length, 16)
    assert.equal(
      id.toString('hex'),
      `${T.toString(16).padStart(16, '0')}0123456789ab${sequence.toString(16).padStart(4, '0')}`,
    )
    assert.deepEqual(Flake128.decompose(id), parts({ timestamp: T, worker: W, sequence }))
  }
  const before = Date.now()
  const id = new Flake128({ worker: 5 }).next()
  const after = Date.now()
  const { timestamp, worker } = flakeFields(id)
  assert.ok(before <= timestamp && timestamp <= after, `${timestamp} not in [${before}, ${after}]`)
  assert.equal(worker, 5)
  assert.deepEqual(Flake128.decompose(id), parts(flakeFields(id)))
})

test('the 16-bit sequence counts 0 to 65,535 in one fake ms, then overflows; the next ms starts at 0', () => {
  let now = T
  const generator = new Flake128({ worker: 1, clock: () => now })
  const ids = Buffer.alloc(65_536 * 16)
  for (let k = 0; k < 65_536; k++) ids.set(generator.next(), k * 16)
  for (let k = 0; k < 65_536; k++) {
    const fields = flakeFields(ids, k * 16)
    if (fields.sequence !== k || fields.timestamp !== T || fields.worker !== 1) {
      assert.fail(`id ${k}: ${JSON.stringify(fields)}`)
    }
  }
  assertIncreasing(assert, ids, 'one fake ms')
  assert.throws(() => generator.next(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })
  now = T + 1
  assert.equal(generator.nextBigInt(), idOf(T + 1, 1, 0))
})

test('a fake clock: overflow borrows within allowedFutureMs; a step back reuses the ms or throws', () => {
  const borrowing = new Flake128({ worker: 2, clock: () => T, allowedFutureMs: 1 })
  const batch = borrowing.nextBatch(65_536)
  assert.equal(batch.length, 65_536 * 16)
  assert.deepEqual(flakeFields(batch, 65_535 * 16), { timestamp: T, worker: 2, sequence: 65_535 })
  assert.equal(borrowing.nextBigInt(), idOf(T + 1, 2, 0))
  borrowing.nextBatch(65_535)
  assert.throws(() => borrowing.next(), { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' })

  let now = T
  const stepping = new Flake128({ worker: 3, clock: () => now, allowedFutureMs: 2 })
  const first = stepping.nextBigInt()
  now = T - 2
  const second = stepping.nextBigInt()
  assert.equal(second, idOf(T, 3, 1))
  assert.ok(second > first)
  now = T - 3
  assert.throws(() => stepping.next(), {
    code: 'ERR_FLAKE_CLOCK_BACKWARDS',
    message: 'Clock moved backwards. Refusing to generate id for 3 milliseconds',
  })
  // Past the 48 bits of ms the shared state counts: refused, never wrapped to a small id.
  assert.throws(() => new Flake128({ worker: 1, clock: () => 2 ** 48 }).next(), {
    name: 'RangeError',
    code: 'ERR_FLAKE_TIMESTAMP_OVERFLOW',
  })
})

test('the default worker is the MAC of the first non-internal interface by name, not all zeros', {
  skip: NO_HOST_SCOPE_IN_WASM,
}, () => {
  const expected = expectedWorker(os.networkInterfaces())
  if (expected === undefined) {
    assert.throws(() => new Flake128(), { code: 'ERR_FLAKE_NO_MAC_ADDRESS' })
    return
  }
  const generator = new Flake128()
  assert.equal(generator.worker, expected)
  assert.equal(generator.scope, 'host')
  assert.equal(flakeFields(generator.next()).worker, expected)
})

const iface = (mac, internal = false) => [
  { address: '192.0.2.9', family: 'IPv4', mac, internal },
  { address: 'fe80::9', family: 'IPv6', mac, internal },
]

// Keys out of name order; an internal interface and one of zeros sort before the expected one.
const STUB = {
  lo: iface(ZERO_MAC, true),
  eth1: iface('02:00:00:00:00:01'),
  docker0: iface(ZERO_MAC),
  eth0: iface('02:00:00:00:00:02'),
  aa0: iface('0a:00:00:00:00:09', true),
}

test('os.networkInterfaces() stubbed: the default worker, the interface option, and no MAC at all', async () => {
  const run = (stub, options) => childResult(assert, { mode: 'nomac', stub, options })
  assert.equal(expectedWorker(STUB), 0x020000000002)
  assert.deepEqual(await run(STUB), { worker: 0x020000000002 })
  assert.deepEqual(await run(STUB, { interface: 'eth1' }), { worker: 0x020000000001 })
  assert.deepEqual(await run(STUB, { worker: 9 }), { worker: 9 })
  for (const options of [{ interface: 'nope' }, { interface: 'lo' }, { interface: 'docker0' }]) {
    const { error } = await run(STUB, options)
    assert.ok(error, `${JSON.stringify(options)} was accepted`)
    assert.ok(error.message.includes('interface'), error.message)
  }
  for (const stub of [{}, { lo: STUB.lo, docker0: STUB.docker0, aa0: STUB.aa0 }]) {
    const { error } = await run(stub)
    assert.equal(error?.name, 'Error', JSON.stringify(error))
    assert.equal(error.code, 'ERR_FLAKE_NO_MAC_ADDRESS')
    assert.ok(error.message.includes('worker'), `the message does not say to pass worker: ${error.message}`)
    assert.deepEqual(await run(stub, { worker: 0 }), { worker: 0 })
  }
})

test('the worker option: a number, a bigint or a MAC string, all 48 bits', { skip: NO_HOST_SCOPE_IN_WASM }, () => {
  for (const [worker, expected] of [
    [W, W],
    [BigInt(W), W],
    ['01:23:45:67:89:ab', W],
    [0, 0],
    [0n, 0],
    [2 ** 48 - 1, 2 ** 48 - 1],
    [2n ** 48n - 1n, 2 ** 48 - 1],
    ['ff:ff:ff:ff:ff:ff', 2 ** 48 - 1],
    [ZERO_MAC, 0],
  ]) {
    const generator = new Flake128({ worker })
    assert.equal(generator.worker, expected, String(worker))
    assert.equal(flakeFields(generator.next()).worker, expected)
  }
  let reads = 0
  const generator = new Flake128({
    get worker() {
      reads++
      return reads === 1 ? 5 : 'not a worker'
    },
    // Host scope, as the generators above: one state per process for Flake128s (their worker
    // ids are not the state's), a second scope is refused.
    scope: 'host',
  })
  assert.deepEqual([generator.worker, generator.scope, reads], [5, 'host', 1])
  assert.throws(() => new Flake128({ worker: 5, scope: 'process' }), { code: 'ERR_FLAKE_STATE_DIR' })
})

test('bad options are refused, naming the option and the value', () => {
  for (const [options, ErrorClass, words] of [
    [{ worker: 2 ** 48 }, RangeError, ['worker', String(2 ** 48)]],
    [{ worker: -1 }, RangeError, ['worker', '-1']],
    [{ worker: 1.5 }, RangeError, ['worker', '1.5']],
    [{ worker: NaN }, RangeError, ['worker', 'NaN']],
    [{ worker: 2n ** 48n }, RangeError, ['worker']],
    [{ worker: -1n }, RangeError, ['worker']],
    [{ worker: 'zz:zz:zz:zz:zz:zz' }, TypeError, ['worker', 'zz:zz:zz:zz:zz:zz']],
    [{ worker: '01:23:45:67:89' }, TypeError, ['worker']],
    [{ worker: '01:23:45:67:89:ab:cd' }, TypeError, ['worker']],
    [{ worker: '0123456789ab' }, TypeError, ['worker']],
    [{ worker: '' }, TypeError, ['worker']],
    [{ worker: true }, TypeError, ['worker']],
    [{ worker: {} }, TypeError, ['worker']],
    [{ worker: 1, interface: 'eth0' }, TypeError, ['worker', 'interface']],
    [{ interface: 5 }, TypeError, ['interface']],
    [{ worker: 1, allowedFutureMs: 63 }, RangeError, ['allowedFutureMs', '63']],
    [{ worker: 1, allowedFutureMs: -1 }, RangeError, ['allowedFutureMs']],
    [{ worker: 1, scope: 'global' }, TypeError, ['scope']],
    [{ worker: 1, clock: 5 }, TypeError, ['clock']],
    [{ worker: 1, id: 1 }, TypeError, ['id']],
  ]) {
    assertRefused(assert, () => new Flake128(options), ErrorClass, 'ERR_FLAKE_INVALID_OPTION', words)
  }
  assert.equal(new Flake128({ worker: 1, allowedFutureMs: 62 }).worker, 1)
})

test('next, nextBigInt and nextBase62 are one sequence of one id, three forms', () => {
  const generator = new Flake128({ worker: W, clock: () => T })
  const [bytes, big, text] = [generator.next(), generator.nextBigInt(), generator.nextBase62()]
  assert.equal(bigIntOf(bytes), idOf(T, W, 0))
  assert.equal(typeof big, 'bigint')
  assert.equal(big, idOf(T, W, 1))
  assert.equal(text, toBase62(idOf(T, W, 2)))
  assert.deepEqual(
    [bytes, big, text].map((id) => Flake128.decompose(id)),
    [0, 1, 2].map((sequence) => parts({ timestamp: T, worker: W, sequence })),
  )
  assert.equal(Flake128.decompose(bytesOf(big)).sequence, 1)
  assert.deepEqual(Flake128.parse(text), bytesOf(idOf(T, W, 2)))

  const real = new Flake128({ worker: 77 })
  const ids = [real.next(), real.nextBigInt(), real.nextBase62()]
  const values = [bigIntOf(ids[0]), ids[1], fromBase62(ids[2])]
  assert.ok(values[0] < values[1] && values[1] < values[2], values.join(' '))
  assert.match(ids[2], /^[0-9A-Za-z]{22}$/)
  for (const [k, id] of ids.entries()) {
    assert.deepEqual(Flake128.decompose(id), parts(flakeFields(bytesOf(values[k]))))
    assert.equal(Flake128.toBase62(bytesOf(values[k])), toBase62(values[k]))
    assert.equal(Flake128.toBase62(values[k]), toBase62(values[k]))
  }
})

// 0, 2^128 − 1 and the powers of 62 with their neighbours: where a digit turns over.
const EDGES = [0n, 1n, MAX128, MAX128 - 1n]
for (let k = 1n; 62n ** k <= MAX128; k++) EDGES.push(62n ** k - 1n, 62n ** k, 62n ** k + 1n)

test('base62: 22 digits of 0-9A-Za-z, zero-padded, string order = numeric order = byte order', () => {
  const value = fc.oneof(fc.constantFrom(...EDGES), fc.bigInt({ min: 0n, max: MAX128 }))
  fc.assert(
    fc.property(value, value, (x, y) => {
      const [a, b] = [Flake128.toBase62(x), Flake128.toBase62(y)]
      assert.equal(a, toBase62(x))
      assert.equal(Flake128.toBase62(bytesOf(x)), a)
      assert.match(a, /^[0-9A-Za-z]{22}$/)
      assert.deepEqual(Flake128.parse(a), bytesOf(x))
      const numeric = x < y ? -1 : x > y ? 1 : 0
      assert.equal(a < b ? -1 : a > b ? 1 : 0, numeric, `${a} ${b}`)
      assert.equal(Buffer.compare(bytesOf(x), bytesOf(y)), numeric)
    }),
    { seed: fcSeed('base62 order'), numRuns: 2000 },
  )
  assert.equal(Flake128.toBase62(0n), '0'.repeat(22))
  assert.equal(Flake128.toBase62(MAX128), '7n42DGM5Tflk9n8mt7Fhc7')
})

test('parse, toBase62 and decompose refuse what is not a 128-bit id, naming it', () => {
  const text = new Flake128({ worker: 1 }).nextBase62()
  for (const bad of [
    text.slice(1),
    `${text}0`,
    `${text.slice(0, 21)}-`,
    `${text.slice(0, 21)}_`,
    `${text.slice(0, 21)} `,
    `${text.slice(0, 21)}é`,
    toBase62(MAX128 + 1n),
    'z'.repeat(22),
    '',
  ]) {
    assertRefused(assert, () => Flake128.parse(bad), TypeError, 'ERR_INVALID_ARG_VALUE', ['"string"'])
    assertRefused(assert, () => Flake128.decompose(bad), TypeError, 'ERR_INVALID_ARG_VALUE', ['"id"'])
    assertRefused(assert, () => Flake128.toBase62(bad), TypeError, 'ERR_INVALID_ARG_VALUE', ['"id"'])
  }
  for (const [bad, ErrorClass, code] of [
    [-1n, RangeError, 'ERR_OUT_OF_RANGE'],
    [MAX128 + 1n, RangeError, 'ERR_OUT_OF_RANGE'],
    [Buffer.alloc(15), RangeError, 'ERR_OUT_OF_RANGE'],
    [Buffer.alloc(17), RangeError, 'ERR_OUT_OF_RANGE'],
    [5, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [null, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [undefined, TypeError, 'ERR_INVALID_ARG_TYPE'],
    [[], TypeError, 'ERR_INVALID_ARG_TYPE'],
  ]) {
    assertRefused(assert, () => Flake128.toBase62(bad), ErrorClass, code, ['"id"'])
    assertRefused(assert, () => Flake128.decompose(bad), ErrorClass, code, ['"id"'])
  }
  for (const bad of [5, null, 5n, bytesOf(1n)]) {
    assertRefused(assert, () => Flake128.parse(bad), TypeError, 'ERR_INVALID_ARG_TYPE', ['"string"'])
  }
  // A time no Date holds (past 8.64e15 ms) would be an Invalid Date, and past 2^53 - 1 ms a
  // rounded number: refused.
  const lastDate = 8_640_000_000_000_000
  for (const time of [lastDate + 1, 2 ** 53, 2n ** 64n - 1n]) {
    assertRefused(assert, () => Flake128.decompose(idOf(time, 0, 0)), RangeError, 'ERR_OUT_OF_RANGE', ['"id"'])
  }
  assert.deepEqual(Flake128.decompose(idOf(lastDate, 1, 2)), parts({ timestamp: lastDate, worker: 1, sequence: 2 }))
})

test('the system clock never throws on overflow: a batch of 200,000 spans at least 4 ms', () => {
  const generator = new Flake128({ worker: 8 })
  const batch = generator.nextBatch(200_000)
  assertIncreasing(assert, batch, 'batch')
  const perMs = new Map()
  for (let offset = 0; offset < batch.length; offset += 16) {
    const { timestamp, worker } = flakeFields(batch, offset)
    if (worker !== 8) assert.fail(`id ${offset / 16}: worker ${worker}`)
    perMs.set(timestamp, (perMs.get(timestamp) ?? 0) + 1)
  }
  assert.ok(perMs.size >= Math.ceil(200_000 / 65_536), `${perMs.size} ms`)
  const ids = Buffer.alloc(100_000 * 16)
  for (let k = 0; k < 100_000; k++) {
    if (k % 3 === 0) ids.set(generator.next(), k * 16)
    else if (k % 3 === 1) ids.set(bytesOf(generator.nextBigInt()), k * 16)
    else ids.set(bytesOf(fromBase62(generator.nextBase62())), k * 16)
  }
  assertIncreasing(assert, ids, 'forms interleaved')
  assert.ok(Buffer.compare(batch.subarray(-16), ids.subarray(0, 16)) < 0)
})

test('4 processes on one worker share a state directory: none repeated, in issue order under a lock', {
  skip: NO_HOST_SCOPE_IN_WASM,
}, async () => {
  const dir = stateDir('flake128-host')
  const options = { worker: 42 }
  const { lists, log } = await race(assert, {
    dir,
    processes: 4,
    count: 100_000,
    kind: 'flake128',
    options,
    lockEvery: 50,
  })
  for (const [child, ids] of lists.entries()) assertIncreasing(assert, ids, `child ${child}`)
  assert.equal(duplicates(lists), 0)
  assertLogOrdered(assert, lists, log)
})

test("the same with scope: 'process' repeats ids (so the test above can fail)", async () => {
  const dir = stateDir('flake128-process')
  const options = { worker: 42, scope: 'process' }
  const { lists } = await race(assert, { dir, processes: 4, count: 100_000, kind: 'flake128', options })
  for (const [child, ids] of lists.entries()) assertIncreasing(assert, ids, `child ${child}`)
  assert.ok(duplicates(lists) > 0, 'no duplicates: the processes did not overlap')
})

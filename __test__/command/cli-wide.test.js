'use strict'
// The `flake-idgen` command's 128-bit ids: `uuid`, `flake128`, and `decompose` reading them.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')
const { assertUsageErrors, spawnCommand } = require('../support/helpers.js')
const { spawn } = require('node:child_process')
const { once } = require('node:events')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const uuid = require('uuid')
const { uuidv7, Flake128 } = require('../..')
const binding = require('../../lib/binding/load-binding.js')
const { WIDE_NAMES } = require('../../lib/formats/formats.js')

const BIN = path.join(__dirname, '..', '..', 'bin', 'flake-idgen.js')

/** Runs the command (in the state directory isolate.js set), with `options` for spawnSync. */
function run(args, input, options = {}) {
  const { status, stdout, stderr } = spawnCommand(process.execPath, [...(options.node ?? []), BIN, ...args], {
    input,
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
    env: options.env ?? process.env,
  })
  return { status, stdout, stderr, lines: stdout.split('\n').filter(Boolean) }
}

/** Runs the command in the background; resolves to its status and lines. */
async function runAsync(args) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const out = []
  const err = []
  child.stdout.on('data', (chunk) => out.push(chunk))
  child.stderr.on('data', (chunk) => err.push(chunk))
  const [status] = await once(child, 'close')
  const stdout = Buffer.concat(out).toString()
  return { status, stderr: Buffer.concat(err).toString(), lines: stdout.split('\n').filter(Boolean) }
}

const assertIncreasing = (lines, what) => {
  for (let i = 1; i < lines.length; i++) assert.ok(lines[i - 1] < lines[i], `${what}: ${lines[i - 1]} < ${lines[i]}`)
}

// base62 as Boundary's flake writes it, computed here, not by the library: 0-9A-Za-z, 22 digits.
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
function base62(value) {
  let text = ''
  for (let rest = value; rest > 0n; rest /= 62n) text = ALPHABET[Number(rest % 62n)] + text
  return text.padStart(22, '0')
}
const fromBase62 = (text) => [...text].reduce((value, c) => value * 62n + BigInt(ALPHABET.indexOf(c)), 0n)
const flake = (timestamp, worker, sequence) => (BigInt(timestamp) << 64n) | (BigInt(worker) << 16n) | BigInt(sequence)

/**
 * The expected parts of a printed UUIDv7, from its text: 48 bits of ms, version 7, the counter's
 * high 12 bits, variant 10, its low 3 bits, 59 random bits (src/kinds/uuid.rs).
 */
function uuidParts(text) {
  const hex = text.replaceAll('-', '')
  const timestamp = Number.parseInt(hex.slice(0, 12), 16)
  const low = BigInt(`0x${hex.slice(16)}`)
  const sequence = (Number.parseInt(hex.slice(13, 16), 16) << 3) | Number((low >> 59n) & 7n)
  const random = (low & ((1n << 59n) - 1n)).toString(16).padStart(15, '0')
  return { type: 'uuidv7', timestamp, date: new Date(timestamp).toISOString(), sequence, random }
}

/** The expected parts of a Flake128 given as a bigint. */
function flakeParts(value) {
  const timestamp = Number(value >> 64n)
  const worker = Number((value >> 16n) & 0xffffffffffffn)
  const workerMac = worker.toString(16).padStart(12, '0').match(/../g).join(':')
  const date = new Date(timestamp).toISOString()
  return { type: 'flake128', timestamp, date, worker, workerMac, sequence: Number(value & 0xffffn) }
}

const preloads = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-interfaces-'))
after(() => fs.rmSync(preloads, { recursive: true, force: true }))

/** A preload for the command's process: os.networkInterfaces() answers `interfaces`. */
function interfacesPreload(interfaces) {
  const file = path.join(preloads, `${fs.readdirSync(preloads).length}.js`)
  fs.writeFileSync(file, `require('node:os').networkInterfaces = () => (${JSON.stringify(interfaces)})\n`)
  return ['--require', file]
}
const nic = (mac, internal = false) => [
  { address: '10.0.0.2', netmask: '255.0.0.0', family: 'IPv4', mac, internal, cidr: '10.0.0.2/8' },
]

test('uuid prints one UUIDv7 of now; -n/--count that many, strictly increasing, across runs too', () => {
  const before = Date.now()
  const one = run(['uuid'])
  assert.equal(one.status, 0, one.stderr)
  assert.equal(one.lines.length, 1)
  assert.match(one.lines[0], /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  const { timestamp } = uuidParts(one.lines[0])
  assert.ok(timestamp >= before && timestamp <= Date.now(), `${timestamp} is now`)
  let last = one.lines[0]
  // Past one write's ids (65,536), and past the host's 16,384 of one ms.
  for (const [flag, count] of [
    ['-n', 3],
    ['--count', 65_537],
  ]) {
    const { status, stderr, lines } = run(['uuid', flag, String(count)])
    assert.equal(status, 0, stderr)
    assert.equal(lines.length, count)
    for (const line of lines) assert.ok(uuid.validate(line) && uuid.version(line) === 7, line)
    assertIncreasing([last, ...lines], 'uuid')
    last = lines.at(-1)
  }
})

/** Three processes print 30,000 ids each with `args` at once: each increasing, none repeated. */
async function printAtOnce(args, kind) {
  const runs = await Promise.all([1, 2, 3].map(() => runAsync([...args, '-n', '30000'])))
  const all = new Set()
  for (const { status, stderr, lines } of runs) {
    assert.equal(status, 0, stderr)
    assert.equal(lines.length, 30_000)
    assertIncreasing(lines, kind)
    for (const line of lines) all.add(line)
  }
  assert.equal(all.size, 90_000)
}

test('uuid: processes printing at once, from one state directory, never print the same id', () =>
  printAtOnce(['uuid'], 'uuid'))

test('uuid and flake128: --scope and --state-dir choose the state, as for 64-bit ids', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-uuid-'))
  try {
    const hosted = run(['uuid', '-n', '5', '--state-dir', dir])
    assert.equal(hosted.status, 0, hosted.stderr)
    assert.equal(hosted.lines.length, 5)
    assert.notDeepEqual(fs.readdirSync(dir), [], 'the host state is a file in --state-dir')
    const processScope = run(['uuid', '-n', '5', '--scope', 'process'])
    assert.equal(processScope.status, 0, processScope.stderr)
    for (const line of processScope.lines) assert.ok(uuid.validate(line) && uuid.version(line) === 7, line)
    assertIncreasing(processScope.lines, 'uuid --scope process')
    const flakesDir = path.join(dir, 'flakes')
    fs.mkdirSync(flakesDir, { mode: 0o700 })
    const flakes = run(['flake128', '--worker', '1', '-n', '5', '--state-dir', flakesDir])
    assert.equal(flakes.status, 0, flakes.stderr)
    assert.notDeepEqual(fs.readdirSync(flakesDir), [], 'the host state is a file in --state-dir')
    const processFlakes = run(['flake128', '--worker', '1', '-n', '5', '--scope', 'process'])
    assert.equal(processFlakes.status, 0, processFlakes.stderr)
    assertIncreasing(processFlakes.lines, 'flake128 --scope process')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('flake128 --worker: base62 (default) and 0x-hex of that worker, strictly increasing, as Flake128 reads them', () => {
  const before = Date.now()
  // The worker id as a MAC address, in decimal and in hex: the same 48 bits.
  const worker = 0xaabbccddeeff
  const forms = ['aa:bb:cc:dd:ee:ff', String(worker), '0xAABBCCDDEEFF']
  let last = ''
  for (const [k, form] of forms.entries()) {
    const count = k === 0 ? 65_537 : 100
    const based = run(['flake128', '--worker', form, '-n', String(count)])
    assert.equal(based.status, 0, based.stderr)
    assert.equal(based.lines.length, count)
    for (const line of based.lines) assert.match(line, /^[0-9A-Za-z]{22}$/)
    const hex = run(['flake128', '--worker', form, '-n', '100', '--format', 'hex'])
    assert.equal(hex.status, 0, hex.stderr)
    assert.equal(hex.lines.length, 100)
    for (const line of hex.lines) assert.match(line, /^0x[0-9a-f]{32}$/)
    // Each run's ids above the last run's: base62 compared as text, hex as the same base62.
    const lines = [...based.lines, ...hex.lines.map((line) => base62(BigInt(line)))]
    assertIncreasing([last, ...lines], `--worker ${form}`)
    last = lines.at(-1)
    for (const line of [...based.lines.slice(0, 100), ...based.lines.slice(-100)]) {
      const parts = Flake128.decompose(line)
      assert.equal(parts.worker, worker)
      assert.ok(parts.timestamp >= before && parts.timestamp <= Date.now())
      assert.equal(base62(flake(parts.timestamp, parts.worker, parts.sequence)), line)
    }
    for (const line of hex.lines) {
      assert.equal(Flake128.toBase62(BigInt(line)), base62(BigInt(line)))
      assert.deepEqual(Flake128.decompose(BigInt(line)), Flake128.decompose(base62(BigInt(line))))
      assert.equal(Flake128.decompose(BigInt(line)).worker, worker)
    }
  }
  const zero = run(['flake128', '--worker', '0', '--format=hex'])
  assert.equal(zero.status, 0, zero.stderr)
  assert.equal(Flake128.decompose(BigInt(zero.lines[0])).worker, 0)
})

test("uuid and flake128 --format: each 128-bit form of the rows (base32, ULID's; base62), fixed width, increasing, read back", () => {
  const { decodeTime } = require('ulid')
  const widths = Object.fromEntries(binding.textForms().map((form) => [form.name, form.wideWidth]))
  for (const command of [['uuid'], ['flake128', '--worker', '9']]) {
    for (const format of WIDE_NAMES) {
      const printed = run([...command, '-n', '2000', '--format', format])
      assert.equal(printed.status, 0, printed.stderr)
      assert.equal(printed.lines.length, 2000)
      for (const line of printed.lines) assert.equal(line.length, widths[format], line)
      assertIncreasing(printed.lines, `${command[0]} --format ${format}`)
      for (const line of [printed.lines[0], printed.lines.at(-1)]) {
        const bytes = command[0] === 'uuid' ? uuidv7.parse(line, format) : Flake128.parse(line, format)
        const parts = command[0] === 'uuid' ? uuidv7.decompose(bytes) : Flake128.decompose(bytes)
        assert.ok(Math.abs(parts.timestamp - Date.now()) < 60_000, line)
        // ULID's tools read a UUIDv7's time from its base32 text: the same 48 bits of ms.
        if (command[0] === 'uuid' && format === 'base32') assert.equal(decodeTime(line), parts.timestamp)
      }
    }
  }
})

test('flake128: processes printing at once, of one worker id, never print the same id', () =>
  printAtOnce(['flake128', '--worker', '7'], 'flake128'))

test('flake128: the worker id is a network interface MAC address, by default or by --interface', () => {
  const node = interfacesPreload({
    lo: nic('00:00:00:00:00:00', true),
    eth1: nic('02:00:00:00:00:02'),
    eth0: nic('02:00:00:00:00:01'),
    tun0: nic('00:00:00:00:00:00'),
  })
  const first = run(['flake128', '--format', 'hex'], undefined, { node })
  assert.equal(first.status, 0, first.stderr)
  assert.equal(Flake128.decompose(BigInt(first.lines[0])).worker, 0x020000000001, 'eth0, the first by name')
  const chosen = run(['flake128', '--interface', 'eth1'], undefined, { node })
  assert.equal(chosen.status, 0, chosen.stderr)
  assert.equal(Flake128.decompose(chosen.lines[0]).worker, 0x020000000002)

  // None to take: a failure of the host (status 1) that says how to give one.
  const none = run(['flake128'], undefined, { node: interfacesPreload({ lo: nic('00:00:00:00:00:00', true) }) })
  assert.deepEqual([none.status, none.stdout], [1, ''])
  assert.equal(
    none.stderr,
    'flake-idgen: no network interface has a MAC address to be the worker id: give one with --worker W or --interface NAME\n',
  )
  const missing = run(['flake128', '--interface', 'eth9'], undefined, { node })
  assert.deepEqual([missing.status, missing.stdout], [2, ''])
  assert.match(missing.stderr, /^flake-idgen: --interface [^\n]*"eth9"[^\n]*\n$/)
})

test('decompose reads back what uuid and flake128 printed, from arguments and stdin', () => {
  const uuids = run(['uuid', '-n', '200']).lines
  const based = run(['flake128', '--worker', '0x123456789abc', '-n', '200']).lines
  const hex = run(['flake128', '--worker', '0x123456789abc', '-n', '200', '--format', 'hex']).lines
  const expected = [
    ...uuids.map(uuidParts),
    ...based.map((line) => flakeParts(fromBase62(line))),
    ...hex.map((line) => flakeParts(BigInt(line))),
  ]
  const all = [...uuids, ...based, ...hex]
  const args = run(['decompose', ...all])
  assert.equal(args.status, 0, args.stderr)
  const stdin = run(['decompose'], `${all.join('\n')}\n`)
  assert.equal(stdin.status, 0, stdin.stderr)
  for (const read of [args, stdin]) {
    const parts = read.lines.map((line) => JSON.parse(line))
    assert.equal(parts.length, all.length)
    for (const [k, part] of parts.entries()) {
      // Field for field, in order: the type, then the time, as 64-bit ids print it.
      assert.deepEqual(Object.entries(part), Object.entries(expected[k]), all[k])
    }
  }
  // The oracles here agree with the library's readings.
  for (const line of [...based, ...hex]) {
    const { timestamp, worker, sequence } = flakeParts(BigInt(line.startsWith('0x') ? line : fromBase62(line)))
    assert.equal(worker, 0x123456789abc)
    const date = new Date(timestamp)
    assert.deepEqual(Flake128.decompose(line.startsWith('0x') ? BigInt(line) : line), {
      timestamp,
      date,
      worker,
      sequence,
    })
  }
  for (const line of uuids) {
    const { timestamp, sequence, random } = uuidv7.decompose(line)
    const parts = uuidParts(line)
    assert.deepEqual(
      [timestamp, sequence, random.toString(16).padStart(15, '0')],
      [parts.timestamp, parts.sequence, parts.random],
    )
  }
})

test('decompose: published and hand-made vectors, mixed with 64-bit ids on stdin', () => {
  // RFC 9562 appendix A.6: 2022-02-22 14:22:22 EST; rand_a 0xCC3, then 0b011 after the variant.
  const rfc = '017F22E2-79B0-7CC3-98C4-DC0C0C07398F'
  const rfcParts = {
    type: 'uuidv7',
    timestamp: 1645557742000,
    date: '2022-02-22T19:22:22.000Z',
    sequence: (0xcc3 << 3) | 0b011,
    random: '0c4dc0c0c07398f',
  }
  const value = flake(1389534046279, 0xaabbccddeeff, 7)
  const flakeExpected = {
    type: 'flake128',
    timestamp: 1389534046279,
    date: '2014-01-12T13:40:46.279Z',
    worker: 0xaabbccddeeff,
    workerMac: 'aa:bb:cc:dd:ee:ff',
    sequence: 7,
  }
  const narrow = {
    timestamp: 1389534046279,
    date: '2014-01-12T13:40:46.279Z',
    datacenter: 7,
    worker: 3,
    id: 227,
    sequence: 0,
  }
  const hex = `0x${value.toString(16).padStart(32, '0')}`
  const input = [
    '5828128208445124608',
    rfc,
    rfc.toLowerCase(),
    base62(value),
    hex,
    hex.toUpperCase().replace('0X', '0x'),
    '',
    '  0x50e1abba11ce3000 ',
    // 20 digits are still a 64-bit id; 22 characters, all digits, a Flake128.
    '00005828128208445124608'.slice(3),
    '0000000000000000001234',
  ]
  const { status, stderr, lines } = run(['decompose'], `${input.join('\r\n')}\n`)
  assert.equal(status, 0, stderr)
  assert.deepEqual(
    lines.map((line) => JSON.parse(line)),
    [
      narrow,
      rfcParts,
      rfcParts,
      flakeExpected,
      flakeExpected,
      flakeExpected,
      narrow,
      narrow,
      // 1234 in base62: 1·62³ + 2·62² + 3·62 + 4 = 246206, worker 3 and sequence 49598 of time 0.
      flakeParts(246206n),
    ],
  )
})

test('bad arguments: status 2, one line on stderr naming the problem, nothing on stdout', () => {
  const someUuid = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'
  const someFlake = base62(flake(1389534046279, 1, 0))
  const badWorker =
    '--worker must be an integer from 0 to 2^48-1 (decimal, or 0x and hex digits) or a MAC address such as aa:bb:cc:dd:ee:ff'
  const pastDate =
    'The "id" argument must be a Flake128 whose time is a valid Date, at most 8640000000000000 ms since 1970'
  const cases = [
    [['uuid', '--format', 'hex'], '--format must be uuid, base32 or base62, got "hex"'],
    [['uuid', '--worker', '1'], '--worker does not apply to uuid'],
    [['uuid', '--interface', 'eth0'], '--interface applies to flake128 only'],
    [['--interface', 'eth0'], '--interface applies to flake128 only'],
    [['decompose', '--interface', 'eth0', '1'], '--interface applies to flake128 only'],
    [['uuid', '--layout', 'discord'], '--layout does not apply to uuid'],
    [['uuid', '--epoch', '1000'], '--epoch does not apply to uuid'],
    [['uuid', '--id', '1'], '--id does not apply to uuid'],
    [['uuid', 'extra'], 'uuid takes no arguments, got "extra"'],
    [['uuid', '-n', '0'], '--count must be a positive integer, got "0"'],
    [['uuid', '-n', '-1'], '--count must be a positive integer, got "-1"'],
    [['uuid', '--count', '1.5'], '--count must be a positive integer, got "1.5"'],
    [['uuid', '-n', '9007199254740992'], '--count must be a positive integer, got "9007199254740992"'],
    [['uuid', '-n'], '--count needs a value (see --help)'],
    [['uuid', '-n', '1', '-n', '2'], '--count is given more than once'],
    [['uuid', '--scope', 'world'], '--scope must be host or process, got "world"'],
    [['uuid', '--state-dir', 'relative'], '--state-dir must be an absolute path, got "relative"'],
    [['flake128', '--format', 'dec'], '--format must be base62, base32 or hex, got "dec"'],
    [['flake128', '--format', 'base64'], '--format must be base62, base32 or hex, got "base64"'],
    [['flake128', '--worker', '1', '--interface', 'eth0'], 'flake128 takes --worker or --interface, not both'],
    [['flake128', '--worker', '281474976710656'], `${badWorker}, got "281474976710656"`],
    [['flake128', '--worker', '0x1000000000000'], `${badWorker}, got "0x1000000000000"`],
    [['flake128', '--worker', '9'.repeat(60)], `${badWorker}, got "${'9'.repeat(40)}…"`],
    [['flake128', '--worker', '-1'], `${badWorker}, got "-1"`],
    [['flake128', '--worker', '1.5'], `${badWorker}, got "1.5"`],
    [['flake128', '--worker', 'aa:bb:cc'], `${badWorker}, got "aa:bb:cc"`],
    [['flake128', '--worker', 'gg:bb:cc:dd:ee:ff'], `${badWorker}, got "gg:bb:cc:dd:ee:ff"`],
    [['flake128', '--worker', ''], `${badWorker}, got ""`],
    [['flake128', '--worker', '1', '--scope', 'world'], '--scope must be host or process, got "world"'],
    [['flake128', '--worker', '1', '--state-dir', 'relative'], '--state-dir must be an absolute path, got "relative"'],
    [['flake128', '--worker', '1', '-n', 'x'], '--count must be a positive integer, got "x"'],
    [['flake128', '--layout', 'discord'], '--layout does not apply to flake128'],
    [['flake128', '--datacenter', '1'], '--datacenter does not apply to flake128'],
    [['flake128', '--process', '1'], '--process does not apply to flake128'],
    [['flake128', '--epoch', '1000'], '--epoch does not apply to flake128'],
    [['flake128', '--id', '1'], '--id does not apply to flake128'],
    [['flake128', 'extra'], 'flake128 takes no arguments, got "extra"'],
    [['decompose', '--format', 'hex', someUuid], `--format applies to 64-bit ids only, got a UUIDv7 "${someUuid}"`],
    [['decompose', '--worker', '1', '1'], '--worker does not apply to decompose'],
    // A flag for 64-bit ids is refused with a 128-bit one, not ignored.
    [['decompose', '--epoch', '1000', someUuid], `--epoch applies to 64-bit ids only, got a UUIDv7 "${someUuid}"`],
    [
      ['decompose', '--layout', 'discord', '--epoch', '1', someFlake],
      `--layout and --epoch apply to 64-bit ids only, got a Flake128 "${someFlake}"`,
    ],
    // Neither a 64-bit id nor a 128-bit one: every form is named.
    [
      ['decompose', 'abc'],
      'The "id" argument must be a 64-bit id (at most 20 decimal digits, 13 base32 characters, 11 base62 characters, 16 hex digits, or 0x and 16 hex digits), a UUIDv7, or a Flake128 (22 base62 characters, or 0x and 32 hex digits), got "abc"',
    ],
    [['decompose', `${someFlake}0`], /^The "id" argument must be a 64-bit id .*, got "[0-9A-Za-z]{23}"$/],
    [['decompose', someUuid.replaceAll('-', '')], /^The "id" argument must be a 64-bit id .*, got "017f22e2/],
    [['decompose', `${someUuid}x`], /^The "id" argument must be a 64-bit id .*, got "017f22e2/],
    // 21 digits are a 64-bit id too large, in the library's words; 0x and 31 digits likewise.
    [['decompose', '1'.repeat(21)], /^The "id" argument must be .* of 64 bits at most, got "1{21}"$/],
    [['decompose', `0x${'1'.repeat(31)}`], /^The "id" argument must be .* of 64 bits at most, got "0x1{31}"$/],
    // The right form, not an id: not version 7, not variant 10, past 128 bits, past a Date.
    [
      ['decompose', '017f22e2-79b0-4cc3-98c4-dc0c0c07398f'],
      /^The "id" argument must be a UUIDv7 [^\n]*, got "017f22e2-79b0-4cc3-98c4-dc0c0c07398f"$/,
    ],
    [
      ['decompose', '017f22e2-79b0-7cc3-c8c4-dc0c0c07398f'],
      /^The "id" argument must be a UUIDv7 [^\n]*, got "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f"$/,
    ],
    [['decompose', 'zzzzzzzzzzzzzzzzzzzzzz'], /^The "id" argument must be [^\n]*, got "zzzzzzzzzzzzzzzzzzzzzz"$/],
    [['decompose', '6zzzzzzzzzzzzzzzzzzzzz'], `${pastDate}, got "6zzzzzzzzzzzzzzzzzzzzz"`],
    [['decompose', ` 0x${'f'.repeat(32)}`], `${pastDate}, got " 0x${'f'.repeat(32)}"`],
    [['decompose', base62(flake(8_640_000_000_000_001, 0, 0))], /^The "id" argument must be a Flake128 whose time/],
  ]
  assertUsageErrors(run, cases)
  // On stdin, the line is named, and the lines before it are printed.
  const stdin = run(['decompose'], `${someUuid}\n\n017f22e2-79b0-4cc3-98c4-dc0c0c07398f\n`)
  assert.equal(stdin.status, 2)
  assert.equal(stdin.lines.length, 1)
  assert.match(stdin.stderr, /^flake-idgen: line 3: [^\n]*"017f22e2-79b0-4cc3-98c4-dc0c0c07398f"\n$/)
  const epoch = run(['decompose', '--epoch', '1000'], `5828128208445124608\n${someFlake}\n`)
  assert.deepEqual([epoch.status, epoch.lines.length], [2, 1])
  assert.equal(epoch.stderr, `flake-idgen: line 2: --epoch applies to 64-bit ids only, got a Flake128 "${someFlake}"\n`)
})

test('--help names the commands, the formats and how decompose tells ids apart', () => {
  const { status, stdout } = run(['--help'])
  assert.equal(status, 0)
  // Each 128-bit command's --format, from its row: its own text first, then its other forms,
  // among them every 128-bit form of the rows.
  for (const [name, forms] of [
    ['uuid', 'uuid|base32|base62'],
    ['flake128', 'base62|base32|hex'],
  ]) {
    assert.ok(stdout.includes(`flake-idgen ${name} [-n N] [--format ${forms}]`), name)
    for (const form of WIDE_NAMES) assert.ok(forms.split('|').includes(form), `${name}: ${form}`)
  }
  assert.match(stdout, /flake-idgen flake128 \[-n N\] \[--format [a-z0-9|]+\] \[--worker W \| --interface NAME\]/)
  assert.match(stdout, /at\s+most 20 decimal digits/)
  assert.match(stdout, /22\s+base62 characters, or 0x and 32 hex digits/)
  assert.match(stdout, /--interface NAME/)
})

test('uuid and flake128 end, successfully, when their reader goes away', async () => {
  for (const args of [['uuid'], ['flake128', '--worker', '1'], ['flake128', '--worker', '1', '--format', 'hex']]) {
    // As many ids as a count may be: only the closed pipe can end it.
    const child = spawn(process.execPath, [BIN, ...args, '-n', String(Number.MAX_SAFE_INTEGER)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    const [first] = await once(child.stdout, 'data')
    assert.ok(first.length > 0)
    child.stdout.destroy()
    const [status, signal] = await once(child, 'close')
    assert.deepEqual([status, signal, stderr], [0, null, ''], args.join(' '))
  }
})

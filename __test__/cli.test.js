'use strict'
// The `flake-idgen` command.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const FlakeId = require('..')

const BIN = path.join(__dirname, '..', 'bin', 'flake-idgen.js')

function run(args, input) {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8' })
  return { status, stdout, stderr, lines: stdout.split('\n').filter(Boolean) }
}

test('prints one decimal id of now', () => {
  const before = Date.now()
  const { status, lines } = run([])
  assert.equal(status, 0)
  assert.equal(lines.length, 1)
  assert.match(lines[0], /^[0-9]+$/)
  const { timestamp } = FlakeId.decompose(lines[0])
  assert.ok(timestamp >= before && timestamp <= Date.now())
})

test('-n/--count prints that many, ascending', () => {
  for (const flag of ['-n', '--count']) {
    const { status, lines } = run([flag, '10000'])
    assert.equal(status, 0)
    assert.equal(lines.length, 10000)
    const ids = lines.map(BigInt)
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i])
  }
})

test('--format hex, base64 and json are the same ids', () => {
  const hex = run(['-n', '3', '--format', 'hex', '--id', '5']).lines
  assert.ok(hex.every((id) => /^0x[0-9a-f]{16}$/.test(id)), hex.join())
  const base64 = run(['-n', '3', '--format', 'base64', '--id', '5']).lines
  const json = JSON.parse(run(['-n', '3', '--format', 'json', '--id', '5']).stdout)
  assert.equal(json.length, 3)
  const fromBase64 = base64.map((id) => Buffer.from(id, 'base64'))
  assert.ok(fromBase64.every((id) => id.length === 8))
  // Later runs, later ids; each form reads back as generator 5.
  assert.ok(BigInt(hex[2]) < fromBase64[0].readBigUInt64BE() && fromBase64[2].readBigUInt64BE() < BigInt(json[0]))
  for (const id of [...hex, ...fromBase64, ...json]) assert.equal(FlakeId.decompose(id).id, 5)
})

test('--datacenter, --worker and --epoch configure the generator', () => {
  const { lines } = run(['--datacenter', '7', '--worker', '3', '--epoch', '2020-01-01'])
  const parts = FlakeId.decompose(lines[0], { epoch: Date.parse('2020-01-01') })
  assert.deepEqual([parts.datacenter, parts.worker], [7, 3])
  assert.ok(Math.abs(parts.timestamp - Date.now()) < 60_000)
  const plain = FlakeId.decompose(run(['--epoch', String(Date.parse('2020-01-01'))]).lines[0])
  assert.ok(Math.abs(plain.timestamp + Date.parse('2020-01-01') - Date.now()) < 60_000)
})

test('decompose prints one JSON object per id, from arguments or stdin', () => {
  const expected = { timestamp: 1389534046279, date: '2014-01-12T13:40:46.279Z', datacenter: 7, worker: 3, id: 227, sequence: 0 }
  const args = run(['decompose', '5828128208445124608', '0x50e1abba11ce3001'])
  assert.equal(args.status, 0)
  assert.deepEqual(args.lines.map((line) => JSON.parse(line)), [expected, { ...expected, sequence: 1 }])
  const stdin = run(['decompose'], '5828128208445124608\n\n5828128208445124609\n')
  assert.deepEqual(stdin.lines.map((line) => JSON.parse(line)), [expected, { ...expected, sequence: 1 }])
  const epoch = run(['decompose', '--epoch', '1000', '5828128208445124608'])
  assert.equal(JSON.parse(epoch.stdout).timestamp, expected.timestamp + 1000)
})

test('--help', () => {
  const { status, stdout } = run(['--help'])
  assert.equal(status, 0)
  assert.match(stdout, /^Usage:/)
  assert.match(stdout, /decompose/)
})

test('bad arguments: status 2, one line on stderr naming the problem, nothing on stdout', () => {
  const cases = [
    [['--bogus'], /Unknown option '--bogus'/],
    [['--worker', '32'], /^flake-idgen: --worker must be an integer from 0 to 31, got "32"$/],
    [['--count', '0'], /--count must be a positive integer, got '0'/],
    [['-n', 'many'], /--count must be a positive integer, got 'many'/],
    [['--format', 'xml'], /--format must be dec, hex, base64 or json, got 'xml'/],
    [['--epoch', 'someday'], /--epoch must be ms since 1970 or a date, got 'someday'/],
    [['--epoch', '9999-01-01'], /--epoch must be not in the future/],
    [['generate'], /unknown command 'generate'/],
    [['decompose', '1', 'abc'], /The "id" argument must be .*, got "abc"/],
    [['decompose', '-n', '2', '1'], /--count does not apply to decompose/],
    [['--count'], /argument missing/],
  ]
  for (const [args, reason] of cases) {
    const { status, stdout, stderr } = run(args)
    assert.equal(status, 2, args.join(' '))
    assert.equal(stdout, '', args.join(' '))
    assert.equal(stderr.split('\n').filter(Boolean).length, 1, stderr)
    assert.match(stderr.trim(), reason)
  }
  const stdin = run(['decompose'], '1\nnot an id\n')
  assert.equal(stdin.status, 2)
  assert.match(stdin.stderr, /^flake-idgen: line 2: The "id" argument/)
})

test('state lists the state files; --reset forgets an id, refused while a process has the file', () => {
  const { stateDir, stateFile, word, plant } = require('./state-files.js')
  const dir = stateDir('cli')
  plant(dir, 0, stateFile(0, { 3: word(Date.parse('2026-01-02T03:04:05.678Z'), 9), 4: word(1) }))
  plant(dir, 1000, stateFile(1000, { 3: word(0) }))
  const listed = run(['state', '--state-dir', dir])
  assert.equal(listed.status, 0, listed.stderr)
  assert.deepEqual(listed.lines.slice(1).map((line) => line.split(/ {2,}/)), [
    ['id', 'epoch', 'last id issued at', 'sequence', 'file'],
    ['3', '0', '2026-01-02T03:04:05.678Z', '9', 'epoch-0.state'],
    ['4', '0', '1970-01-01T00:00:00.001Z', '0', 'epoch-0.state'],
    ['3', '1000 (1970-01-01T00:00:01.000Z)', '1970-01-01T00:00:01.000Z', '0', 'epoch-1000.state'],
  ])

  // A process holding the file (it has mapped it): the reset is refused and changes nothing.
  const holder = spawnSync(
    process.execPath,
    ['-e', `new (require('.'))({ id: 4, stateDir: ${JSON.stringify(dir)} }).next(); process.stdout.write(JSON.stringify(require('node:child_process').spawnSync(process.execPath, ${JSON.stringify([BIN, 'state', '--reset', '3', '--state-dir', dir])}, { encoding: 'utf8' })))`],
    { cwd: path.join(__dirname, '..'), encoding: 'utf8' },
  )
  const refused = JSON.parse(holder.stdout)
  assert.equal(refused.status, 1)
  assert.match(refused.stderr, /^flake-idgen: state file ".*epoch-0\.state" is in use by a running process; stop it first\n$/)
  assert.equal(run(['state', '--state-dir', dir]).lines.length, 5)

  const reset = run(['state', '--reset', '3', '--state-dir', dir])
  assert.equal(reset.status, 0, reset.stderr)
  assert.deepEqual(reset.lines, [`reset generator 3 in ${path.join(dir, 'epoch-0.state')}`, `removed ${path.join(dir, 'epoch-1000.state')}`])
  assert.deepEqual(run(['state', '--state-dir', dir]).lines.slice(2).map((line) => line.split(/ {2,}/)[0]), ['4'])
  const again = run(['state', '--reset', '3', '--state-dir', dir])
  assert.equal(again.status, 1)
  assert.match(again.stderr, /generator 3 has no state in/)
  assert.equal(run(['state', '--reset', '1024']).status, 2)
})

'use strict'
// The `flake-idgen` command.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const FlakeId = require('../..')
const { assertUsageErrors, NO_HOST_SCOPE_IN_WASM, spawnCommand } = require('../support/helpers.js')

const BIN = path.join(__dirname, '..', '..', 'bin', 'flake-idgen.js')

function run(args, input) {
  const { status, stdout, stderr } = spawnCommand(process.execPath, [BIN, ...args], { input, encoding: 'utf8' })
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
  // Hex as the library's hex row writes it (issue 53): 16 digits, no 0x.
  const hex = run(['-n', '3', '--format', 'hex', '--id', '5']).lines
  assert.ok(
    hex.every((id) => /^[0-9a-f]{16}$/.test(id)),
    hex.join(),
  )
  const base64 = run(['-n', '3', '--format', 'base64', '--id', '5']).lines
  const json = JSON.parse(run(['-n', '3', '--format', 'json', '--id', '5']).stdout)
  assert.equal(json.length, 3)
  const fromBase64 = base64.map((id) => Buffer.from(id, 'base64'))
  const fromHex = hex.map((id) => Buffer.from(id, 'hex'))
  assert.ok(fromBase64.every((id) => id.length === 8))
  // Later runs, later ids; each form reads back as generator 5.
  assert.ok(
    fromHex[2].readBigUInt64BE() < fromBase64[0].readBigUInt64BE() && fromBase64[2].readBigUInt64BE() < BigInt(json[0]),
  )
  for (const id of [...fromHex, ...fromBase64, ...json]) assert.equal(FlakeId.decompose(id).id, 5)
  // Earlier versions' hex, 0x-prefixed, is still read back, by the library and by decompose.
  const prefixed = `0x${hex[0]}`
  assert.deepEqual(FlakeId.decompose(prefixed), FlakeId.decompose(fromHex[0]))
  assert.equal(JSON.parse(run(['decompose', prefixed]).stdout).id, 5)
})

test('--format base32 and base62: fixed width, in issue order bytewise, decompose reads them back', () => {
  for (const [format, width] of [
    ['base32', 13],
    ['base62', 11],
    ['hex', 16],
    ['decimal', 19],
  ]) {
    const { status, lines, stderr } = run(['-n', '5000', '--format', format, '--id', '6'])
    assert.equal(status, 0, stderr)
    assert.ok(
      lines.every((line) => line.length === width),
      `${format}: ${lines.find((line) => line.length !== width)}`,
    )
    // Ascending as bytes (what a binary collation and Buffer.compare see), as the ids are.
    for (let i = 1; i < lines.length; i++)
      assert.ok(Buffer.compare(Buffer.from(lines[i - 1]), Buffer.from(lines[i])) < 0)
    // Piped into decompose with no --format: each told by its form, or by --format where
    // digits alone leave two forms open.
    const read = run(['decompose', '--format', format], `${lines.join('\n')}\n`)
    assert.equal(read.status, 0, read.stderr)
    assert.ok(read.lines.every((line) => JSON.parse(line).id === 6))
  }
  // The default's earlier name is still taken.
  assert.match(run(['--format', 'dec']).lines[0], /^[0-9]{19}$/)
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
  const expected = {
    timestamp: 1389534046279,
    date: '2014-01-12T13:40:46.279Z',
    datacenter: 7,
    worker: 3,
    id: 227,
    sequence: 0,
  }
  const args = run(['decompose', '5828128208445124608', '0x50e1abba11ce3001'])
  assert.equal(args.status, 0)
  assert.deepEqual(
    args.lines.map((line) => JSON.parse(line)),
    [expected, { ...expected, sequence: 1 }],
  )
  const stdin = run(['decompose'], '5828128208445124608\n\n5828128208445124609\n')
  assert.deepEqual(
    stdin.lines.map((line) => JSON.parse(line)),
    [expected, { ...expected, sequence: 1 }],
  )
  const epoch = run(['decompose', '--epoch', '1000', '5828128208445124608'])
  assert.equal(JSON.parse(epoch.stdout).timestamp, expected.timestamp + 1000)
})

test('--layout: each preset prints ids of its node id that decompose --layout reads back', () => {
  // A node id and its parts' flags in each layout: the highest id where there are no parts.
  const cases = [
    ['flake-idgen', ['--datacenter', '31', '--worker', '30'], { id: 1022, datacenter: 31, worker: 30 }],
    ['twitter', ['--datacenter', '2', '--worker', '3'], { id: 67, datacenter: 2, worker: 3 }],
    ['discord', ['--worker', '1', '--process', '2'], { id: 34, worker: 1, process: 2 }],
    ['instagram', ['--id', '8191'], { id: 8191, shardId: 8191 }],
    ['snowcast', ['--id', '1234'], { id: 1234 }],
    ['hazelcast', ['--id', '65535'], { id: 65535 }],
    ['sonyflake', ['--id', '300'], { id: 300, machineId: 300 }],
  ]
  for (const [layout, flags, expected] of cases) {
    const before = Date.now()
    // Past one time unit's ids (64 in hazelcast's, 256 per 10 ms in sonyflake's): the batches wait.
    const printed = run(['--layout', layout, ...flags, '-n', '300', '--format', 'hex'])
    assert.equal(printed.status, 0, `${layout}: ${printed.stderr}`)
    assert.equal(printed.lines.length, 300)
    const values = printed.lines.map((line) => BigInt(`0x${line}`))
    for (let i = 1; i < values.length; i++) assert.ok(values[i - 1] < values[i], `${layout}: ascending`)
    const read = run(['decompose', '--layout', layout, '--format', 'hex'], `${printed.lines.join('\n')}\n`)
    assert.equal(read.status, 0, `${layout}: ${read.stderr}`)
    const parts = read.lines.map((line) => JSON.parse(line))
    for (const [k, part] of parts.entries()) {
      assert.deepEqual(part, JSON.parse(JSON.stringify(FlakeId.decompose(values[k], { layout }))))
      for (const [name, value] of Object.entries(expected)) assert.equal(part[name], value, `${layout}: ${name}`)
      assert.ok(part.timestamp >= before - 10 && part.timestamp <= Date.now(), `${layout}: ${part.date} is now`)
    }
    // Read by the default layout, another layout's ids say something else.
    const other = JSON.parse(run(['decompose', '--format', 'hex', printed.lines[0]]).stdout)
    if (layout !== 'flake-idgen') assert.notDeepEqual(other, parts[0], layout)
  }
})

test('decompose --layout: the field names each scheme uses, on published vectors', () => {
  // Discord's API reference: 175928847299117063 is 2016-04-30T11:18:25.796Z, worker 1, process 0, increment 7.
  assert.deepEqual(JSON.parse(run(['decompose', '--layout', 'discord', '175928847299117063']).stdout), {
    timestamp: 1462015105796,
    date: '2016-04-30T11:18:25.796Z',
    worker: 1,
    process: 0,
    id: 32,
    sequence: 7,
    increment: 7,
  })
  // snowcast's example as a custom layout: epoch 2014-01-01, node 1234, 5289132000 ms later.
  const snowcast = ((5289132000n << 23n) | (1234n << 10n) | 5n).toString()
  const custom = '{"timeBits":41,"nodeBits":13,"sequenceBits":10,"epoch":1388534400000}'
  const expected = { timestamp: 1393823532000, date: '2014-03-03T05:12:12.000Z', id: 1234, sequence: 5 }
  assert.deepEqual(JSON.parse(run(['decompose', '--layout', custom, snowcast]).stdout), expected)
  assert.deepEqual(JSON.parse(run(['decompose', '--layout=snowcast', snowcast]).stdout), expected)
  // --epoch wins over the layout's.
  const later = JSON.parse(run(['decompose', '--layout', 'snowcast', '--epoch', '1388534400001', snowcast]).stdout)
  assert.equal(later.timestamp, expected.timestamp + 1)
})

test('--layout with a custom layout as JSON prints ids of that shape', () => {
  // 10 ms units, sequence before a 4-bit node: the node id is the low 4 bits.
  const layout = '{"timeBits":47,"timeUnitMs":10,"nodeBits":4,"sequenceBits":12,"order":"sequence-node"}'
  const { status, stderr, lines } = run(['--layout', layout, '--id', '9', '-n', '5000'])
  assert.equal(status, 0, stderr)
  assert.equal(new Set(lines).size, 5000)
  for (const line of lines) assert.equal(BigInt(line) & 0xfn, 9n)
  const parts = JSON.parse(run(['decompose', '--layout', layout, lines[0]]).stdout)
  assert.equal(parts.id, 9)
  assert.equal(parts.timestamp % 10, 0, 'a time unit starts at a multiple of 10 ms')
})

test('--help', () => {
  const { status, stdout } = run(['--help'])
  assert.equal(status, 0)
  assert.match(stdout, /^Usage:/)
  assert.match(stdout, /decompose/)
  assert.match(
    stdout,
    /--layout LAYOUT .* a preset\s+\(flake-idgen \(default\), twitter, discord, instagram, snowcast,\s+hazelcast, sonyflake\)/s,
  )
  assert.match(stdout, /--process N/)
})

test('bad arguments: status 2, one line on stderr naming the problem in our words, nothing on stdout', () => {
  const cases = [
    [['--bogus'], 'unknown option "--bogus" (see --help)'],
    [['--bogus=1'], 'unknown option "--bogus" (see --help)'],
    [['-x'], 'unknown option "-x" (see --help)'],
    [['--count'], '--count needs a value (see --help)'],
    [['-n'], '--count needs a value (see --help)'],
    [['decompose', '--epoch'], '--epoch needs a value (see --help)'],
    [['--help=yes'], '--help takes no value, got "yes"'],
    [['-hx'], '--help takes no value, got "x"'],
    [['-n', '1', '--count', '2'], '--count is given more than once'],
    // An option's value is the next argument whatever it is (parseArgs printed three lines).
    [['-n', '-1'], '--count must be a positive integer, got "-1"'],
    [['--count', '0'], '--count must be a positive integer, got "0"'],
    [['-n', 'many'], '--count must be a positive integer, got "many"'],
    [['-n', '1e3'], '--count must be a positive integer, got "1e3"'],
    [['--count', 'line\nbreak'], '--count must be a positive integer, got "line\\nbreak"'],
    [['-n', '9'.repeat(100)], `--count must be a positive integer, got "${'9'.repeat(40)}…"`],
    [['--worker', '32'], '--worker must be an integer from 0 to 31, got "32"'],
    [['--id', '-3'], '--id must be an integer from 0 to 1023, got "-3"'],
    [['--scope', 'world'], '--scope must be host or process, got "world"'],
    [['--state-dir', 'relative'], '--state-dir must be an absolute path, got "relative"'],
    [['--format', 'xml'], '--format must be decimal, base32, base62, hex, base64 or json, got "xml"'],
    [['decompose', '--format', 'base64', '1'], '--format must be decimal, base32, base62 or hex, got "base64"'],
    // Digits alone in a width two forms share: never guessed.
    [
      ['decompose', '0000000000001'],
      '"0000000000001" is a 64-bit id as decimal or as base32: give --format decimal or --format base32',
    ],
    [
      ['decompose', '--format', 'base32', '0000000000o01'],
      /^The "id" argument must be 13 Crockford base32 characters .*: "o" at index 10 is not one of them$/,
    ],
    [['--epoch', 'someday'], '--epoch must be ms since 1970 or a date, got "someday"'],
    [['generate'], 'unknown command "generate" (see --help)'],
    [['--id', '3', '--', 'x'], 'unknown command "x" (see --help)'],
    [['decompose', '-n', '2', '1'], '--count does not apply to decompose'],
    [
      ['decompose', '--epoch', '9007199254740991', '1'],
      /^--epoch must be a time a Date holds, at most 8640000000000000 ms since 1970, got "9007199254740991"$/,
    ],
    [['decompose', '1', 'abc'], /^The "id" argument must be .*, got "abc"$/],
    [['decompose', '9'.repeat(1000)], /^The "id" argument must be .*, got "9{40}…"$/],
    [['state', 'extra'], 'state takes no arguments, got "extra"'],
    [['state', '--epoch', '1000'], '--epoch does not apply to state'],
    [['state', '--reset', '3', '--epoch', '1000'], '--epoch does not apply to state'],
    // Limits the library checks, in its words, naming the flag and the value as typed.
    [['state', '--reset', 'every'], '--reset must be a node id from 0 to 1023, start or all, got "every"'],
    [['state', '--reset', '1024'], '--reset must be a node id from 0 to 1023, start or all, got "1024"'],
    [['state', '--reset', '1.5'], '--reset must be a node id from 0 to 1023, start or all, got "1.5"'],
    [
      ['state', '--reset', '1', '--file', 'layout-48_0_15.state'],
      '--reset must be a node id from 0 to 0, start or all, got "1"',
    ],
    [
      ['state', '--reset', 'all', '--file', '../epoch-0.state'],
      '--file must be the name of a state file as listed (epoch-0.state, or layout-<shape>.state), got "../epoch-0.state"',
    ],
    [['state', '--file', 'epoch-0.state'], '--file needs --reset: state lists every file (see --help)'],
    [['--file', 'epoch-0.state'], '--file applies to state only'],
    [['state', '--state-dir', 'relative'], '--state-dir must be an absolute path, got "relative"'],
    [['state', '--reset', '3', '--state-dir', 'relative'], '--state-dir must be an absolute path, got "relative"'],
    [['--epoch', '9999-01-01'], /^--epoch must be not in the future/],
    // --layout: a preset's name, else JSON; the library's checks name the flag (and the field).
    [['--layout', 'bogus'], /^--layout must be one of flake-idgen, twitter, discord, .*, got "bogus"$/],
    [['decompose', '--layout', 'Discord', '1'], /^--layout must be one of flake-idgen, .*, got "Discord"$/],
    [
      ['--layout', '{timeBits: 41}'],
      '--layout must be a preset name or a custom layout as a JSON object, got "{timeBits: 41}"',
    ],
    [['--layout', '[41, 10, 12]'], /^--layout must be one of flake-idgen, .*, got "\[41, 10, 12\]"$/],
    [
      ['--layout', '{"timeBits":41,"nodeBits":17,"sequenceBits":6}'],
      '--layout: nodeBits must be an integer from 0 to 16, got 17',
    ],
    [
      ['decompose', '--layout', '{"timeBits":41,"nodeBits":13,"sequenceBits":0}', '1'],
      /^--layout: sequenceBits must be an integer from 1 to 16, got 0$/,
    ],
    [
      ['--layout', '{"timeBits":41,"nodeBits":16,"sequenceBits":6,"order":"node-first"}'],
      '--layout: order must be node-sequence or sequence-node, got "node-first"',
    ],
    [['--layout', '{"timeBits":40,"nodeBits":10,"sequenceBits":12}'], /^--layout: timeBits must be .*, got 40$/],
    [
      ['--layout', '{"timeBits":41,"nodeBits":10,"sequenceBits":12,"epoch":99999999999999}'],
      /^--layout: epoch must be not in the future .*, got 99999999999999$/,
    ],
    [['--layout', 'hazelcast', '--id', '65536'], '--id must be an integer from 0 to 65535, got "65536"'],
    [
      ['--layout', 'hazelcast', '--worker', '3'],
      '--worker must be unset with layout hazelcast (its node id is given as --id), got "3"',
    ],
    [
      ['--layout', 'discord', '--datacenter', '3'],
      '--datacenter must be unset with layout discord (its node id is given as --id, --worker, --process), got "3"',
    ],
    [
      ['--process', '1'],
      '--process must be unset with layout flake-idgen (its node id is given as --id, --datacenter, --worker), got "1"',
    ],
    [['--layout', 'discord', '--process', '32'], '--process must be an integer from 0 to 31, got "32"'],
    [['--layout', 'discord', '--layout', 'twitter'], '--layout is given more than once'],
    [['state', '--layout', 'discord'], '--layout does not apply to state'],
    [['decompose', '--process', '1', '1'], '--process does not apply to decompose'],
  ]
  assertUsageErrors(run, cases)
  const stdin = run(['decompose'], '1\nnot an id\n')
  assert.equal(stdin.status, 2)
  assert.match(stdin.stderr, /^flake-idgen: line 2: The "id" argument/)
})

test('decompose: a 50 MB line on stdin is one short line on stderr', () => {
  const { status, stdout, stderr } = run(['decompose'], `1\n${'9'.repeat(50 * 2 ** 20)}\n`)
  assert.equal(status, 2)
  assert.equal(JSON.parse(stdout).sequence, 1)
  assert.match(stderr, /^flake-idgen: line 2: The "id" argument must be [^\n]*, got "9{40}…"\n$/)
  assert.ok(stderr.length < 300, `${stderr.length} characters`)
})

test('state lists the state file; --reset forgets an id, refused while a process has the file', {
  skip: NO_HOST_SCOPE_IN_WASM,
}, () => {
  const { stateDir, stateFile, word, plant } = require('../support/state-files.js')
  const fs = require('node:fs')
  const dir = stateDir('cli')
  const file = plant(dir, stateFile({ 3: word(Date.parse('2026-01-02T03:04:05.678Z'), 9), 4: word(1) }))
  // Named like other epochs' files, which no build that shipped wrote: never listed nor touched.
  const strays = [
    plant(dir, stateFile({ 3: word(0) }, 1000), 'epoch-1000.state'),
    plant(dir, stateFile({ 3: word(0) }), 'epoch-00.state'),
  ]
  const stray = strays.map((name) => fs.readFileSync(name))
  const listed = run(['state', '--state-dir', dir])
  assert.equal(listed.status, 0, listed.stderr)
  assert.equal(listed.lines[0], `state file: ${file}`)
  assert.equal(listed.lines[1], 'layout 42/10/12 (flake-idgen, discord), start none')
  assert.deepEqual(
    listed.lines.slice(2).map((line) => line.split(/ {2,}/)),
    [
      ['id', 'last id issued at', 'sequence'],
      ['3', '2026-01-02T03:04:05.678Z', '9'],
      ['4', '1970-01-01T00:00:00.001Z', '0'],
    ],
  )

  // A process holding the file (it has mapped it): the reset is refused and changes nothing.
  const holder = spawnSync(
    process.execPath,
    [
      '-e',
      `new (require('.'))({ id: 4, stateDir: ${JSON.stringify(dir)} }).next(); process.stdout.write(JSON.stringify(require('node:child_process').spawnSync(process.execPath, ${JSON.stringify([BIN, 'state', '--reset', '3', '--state-dir', dir])}, { encoding: 'utf8' })))`,
    ],
    { cwd: path.join(__dirname, '..', '..'), encoding: 'utf8' },
  )
  const refused = JSON.parse(holder.stdout)
  assert.equal(refused.status, 1)
  assert.match(
    refused.stderr,
    /^flake-idgen: state file ".*epoch-0\.state" is in use by a running process; stop it first\n$/,
  )
  assert.equal(run(['state', '--state-dir', dir]).lines.length, 5)

  const reset = run(['state', '--reset', '3', '--state-dir', dir])
  assert.equal(reset.status, 0, reset.stderr)
  assert.deepEqual(reset.lines, [`reset generator 3 in ${file}`])
  assert.deepEqual(
    run(['state', '--state-dir', dir])
      .lines.slice(3)
      .map((line) => line.split(/ {2,}/)[0]),
    ['4'],
  )
  const again = run(['state', '--reset', '3', '--state-dir', dir])
  assert.equal(again.status, 1)
  assert.equal(again.stderr, `flake-idgen: generator 3 has no state in ${file}\n`)
  const last = run(['state', '--reset', '4', '--state-dir', dir])
  assert.deepEqual([last.status, last.lines], [0, [`removed ${file}`]])
  assert.deepEqual(run(['state', '--state-dir', dir]).lines, [`state directory: ${dir}`, '(no state)'])
  for (const [i, name] of strays.entries()) assert.deepEqual(fs.readFileSync(name), stray[i], name)
  assert.equal(run(['state', '--reset', '1024']).status, 2)
})

test('state: a damaged state file is listed as such, status 1, and left as it is', {
  skip: NO_HOST_SCOPE_IN_WASM,
}, () => {
  const { stateDir, stateFile, plant } = require('../support/state-files.js')
  const dir = stateDir('cli-damaged')
  const file = plant(dir, stateFile().subarray(0, 100))
  const { status, lines, stderr } = run(['state', '--state-dir', dir])
  assert.equal(status, 1)
  assert.deepEqual(lines, [`state file: ${file}`, 'layout 42/10/12 (flake-idgen, discord)', '(not read: see below)'])
  assert.match(
    stderr,
    /^flake-idgen: state file ".*epoch-0\.state" cannot be used: it is 100 bytes, .* \[ERR_FLAKE_STATE_FILE\]\n$/,
  )
  assert.equal(run(['state', '--reset', '0', '--state-dir', dir]).status, 1)
  assert.equal(require('node:fs').statSync(file).size, 100)
})

test('state: a stray epoch-00.state is no state of ours, whatever it holds', { skip: NO_HOST_SCOPE_IN_WASM }, () => {
  const { stateDir, stateFile, word, plant } = require('../support/state-files.js')
  const dir = stateDir('cli-stray')
  const stray = plant(dir, stateFile({ 7: word(5) }), 'epoch-00.state')
  assert.deepEqual(run(['state', '--state-dir', dir]).lines, [`state directory: ${dir}`, '(no state)'])
  const reset = run(['state', '--reset', '7', '--state-dir', dir])
  assert.deepEqual(
    [reset.status, reset.stderr],
    [1, `flake-idgen: generator 7 has no state in ${path.join(dir, 'epoch-0.state')}\n`],
  )
  assert.deepEqual(require('node:fs').readFileSync(stray), stateFile({ 7: word(5) }))
})

test("state lists every layout's file, a start ahead of the clock flagged; --reset ID, start or all of a --file", {
  skip: NO_HOST_SCOPE_IN_WASM,
}, () => {
  const fs = require('node:fs')
  const os = require('node:os')
  const { stateDir, writeWord } = require('../support/state-files.js')
  const dir = stateDir('cli-layouts')
  const root = path.join(__dirname, '..', '..')
  const env = { ...process.env, FLAKE_IDGEN_STATE_DIR: dir }
  const made = spawnSync(
    process.execPath,
    [
      '-e',
      "const F = require('.'); F.uuidv7(); new F.Flake128({ worker: 1 }).next(); new F({ layout: 'twitter', id: 5 }).next()",
    ],
    { cwd: root, env, encoding: 'utf8' },
  )
  assert.equal(made.status, 0, made.stderr)
  // UUIDv7's file as a process whose clock ran an hour ahead left it: its word and its start.
  const ahead = Date.now() + 3_600_000
  const [twitter, uuid, flake128] = ['layout-41_10_12.state', 'layout-48_0_15.state', 'layout-48_0_16.state']
  const uuidFile = path.join(dir, uuid)
  const bytes = fs.readFileSync(uuidFile)
  bytes[os.endianness() === 'LE' ? 'writeBigUInt64LE' : 'writeBigUInt64BE'](BigInt(ahead), 32)
  writeWord(bytes, 0, (BigInt(ahead) << 22n) | 7n)
  fs.writeFileSync(uuidFile, bytes)
  const blocks = () => {
    const listed = run(['state', '--state-dir', dir])
    assert.equal(listed.status, 0, listed.stderr)
    return listed.stdout.split('\n\n').map((block) => block.trim().split('\n'))
  }
  const iso = (ms) => new Date(ms).toISOString()
  const [first, second, third] = blocks()
  assert.deepEqual(
    [first[0], second[0], third[0]],
    [twitter, uuid, flake128].map((name) => `state file: ${path.join(dir, name)}`),
  )
  assert.match(first[1], /^layout 41\/10\/12 \(twitter\), start \d{4}-[\d-]+T[\d:.]+Z$/)
  assert.match(third[1], /^layout 48\/0\/16 \(Flake128\), start \d{4}-[\d-]+T[\d:.]+Z$/)
  const late = /^ahead of the clock by \d+ ms/
  assert.match(
    second[1],
    new RegExp(
      `^layout 48/0/15 \\(uuidv7\\), start ${iso(ahead)}, ahead of the clock by \\d+ ms: no id is issued until then$`,
    ),
  )
  const [id, time, sequence, flag] = second[3].split(/ {2,}/)
  assert.deepEqual([id, time, sequence], ['0', iso(ahead), '7'])
  assert.match(flag, late)
  assert.deepEqual(first[3].split(/ {2,}/).slice(0, 1), ['5'])
  assert.equal(first[3].split(/ {2,}/).length, 3, 'a time behind the clock is not flagged')

  // A process holding the twitter file: every reset of it is refused, and changes nothing.
  const resets = ['5', 'start', 'all'].map((what) => [BIN, 'state', '--reset', what, '--file', twitter])
  const holder = spawnSync(
    process.execPath,
    [
      '-e',
      `new (require('.'))({ layout: 'twitter', id: 5 }).next(); const { spawnSync } = require('node:child_process'); process.stdout.write(JSON.stringify(${JSON.stringify(resets)}.map((args) => spawnSync(process.execPath, args, { encoding: 'utf8' }))))`,
    ],
    { cwd: root, env, encoding: 'utf8' },
  )
  for (const refused of JSON.parse(holder.stdout)) {
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, /^flake-idgen: state file ".*layout-41_10_12\.state" is in use by a running process/)
  }
  assert.equal(blocks()[0][3].split(/ {2,}/)[0], '5')

  const reset = (what, file) => run(['state', '--state-dir', dir, '--reset', what, '--file', file])
  const said = ({ status, stdout, stderr }) => [status, stdout || stderr]
  // The word goes; the start stays ahead, holding back what the file's other ids may not issue.
  assert.deepEqual(said(reset('0', uuid)), [0, `reset generator 0 in ${uuidFile}\n`])
  assert.deepEqual(blocks()[1].slice(2), ['(no state)'])
  assert.match(blocks()[1][1], /ahead of the clock by/)
  // Then the start, and the file, holding nothing more, goes.
  assert.deepEqual(said(reset('start', uuid)), [0, `removed ${uuidFile}\n`])
  const flakeFile = path.join(dir, flake128)
  assert.deepEqual(said(reset('start', flake128)), [1, `flake-idgen: ${flakeFile} has no start ahead of the clock\n`])
  assert.deepEqual(said(reset('all', flake128)), [0, `removed ${flakeFile}\n`])
  assert.deepEqual(said(reset('all', flake128)), [1, `flake-idgen: no state to reset in ${flakeFile}\n`])
  assert.deepEqual(fs.readdirSync(dir), [twitter])
})

test('state: a directory whose name is not UTF-8, in use, by FLAKE_IDGEN_STATE_DIR or --state-dir: listed, reset', {
  skip: NO_HOST_SCOPE_IN_WASM,
}, async (t) => {
  const fs = require('node:fs')
  const { spawn } = require('node:child_process')
  const { once } = require('node:events')
  const { stateDir } = require('../support/state-files.js')
  const parent = stateDir('cli-bytes')
  // Byte 0xFF, which no UTF-8 string holds: Node's arguments and environment are UTF-8 strings,
  // so sh writes it into the child's ($D below).
  const dir = Buffer.concat([Buffer.from(`${parent}/state-`), Buffer.from([0xff])])
  try {
    fs.mkdirSync(dir, { mode: 0o700 })
  } catch (error) {
    // macOS's APFS, and Windows, accept Unicode names only.
    if (error.code === 'EILSEQ' || process.platform === 'win32') return t.skip(error.code)
    throw error
  }
  const shown = `"${parent}/state-\\xFF`
  const sh = (script, ...args) =>
    spawnSync('/bin/sh', ['-c', `D="$(printf '%s\\377' "$1")"; shift; ${script}`, 'sh', `${parent}/state-`, ...args], {
      encoding: 'utf8',
    })
  const command = (env, ...args) =>
    sh(
      `${env ? 'FLAKE_IDGEN_STATE_DIR="$D"' : ''} exec "$@"${env ? '' : ' --state-dir "$D"'}`,
      process.execPath,
      BIN,
      ...args,
    )

  // A process issuing from it, by FLAKE_IDGEN_STATE_DIR (the library reads it as bytes).
  const script = "new (require('.'))({ id: 4 }).next(); console.log('ready'); setInterval(() => {}, 1000)"
  const holder = spawn(
    '/bin/sh',
    [
      '-c',
      `FLAKE_IDGEN_STATE_DIR="$(printf '%s\\377' "$1")" exec "$2" -e "$3"`,
      'sh',
      `${parent}/state-`,
      process.execPath,
      script,
    ],
    {
      cwd: path.join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  t.after(() => holder.kill())
  assert.equal(String((await once(holder.stdout, 'data'))[0]), 'ready\n')
  for (const env of [true, false]) {
    const listed = command(env, 'state')
    assert.equal(listed.status, 0, listed.stderr)
    const lines = listed.stdout.split('\n')
    assert.equal(lines[0], `state file: ${shown}/epoch-0.state"`)
    assert.deepEqual(
      lines.slice(3, -1).map((line) => line.split(/ {2,}/)[0]),
      ['4'],
    )
    const refused = command(env, 'state', '--reset', '4')
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, /is in use by a running process/)
  }
  holder.kill()
  await once(holder, 'exit')
  const reset = command(false, 'state', '--reset', '4')
  assert.deepEqual([reset.status, reset.stdout], [0, `removed ${shown}/epoch-0.state"\n`], reset.stderr)
  assert.deepEqual(fs.readdirSync(dir), [])
  assert.equal(command(true, 'state').stdout, `state directory: ${shown}"\n(no state)\n`)
  // The generator's own option takes strings: a name it cannot say is refused, not changed.
  const ids = command(false)
  assert.deepEqual([ids.status, ids.stdout], [2, ''])
  assert.match(ids.stderr, /--state-dir is not UTF-8/)
})

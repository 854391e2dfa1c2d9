'use strict'
// Issue 32: a process whose clock ran an hour ahead left UUIDv7's state file an hour ahead (its
// start and its word); `flake-idgen state` resets that file, and UUIDv7s follow the clock again.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { stateDir, writeWord } = require('../support/state-files.js')

const ROOT = path.join(__dirname, '..', '..')
const BIN = path.join(ROOT, 'bin', 'flake-idgen.js')
const HOUR = 3_600_000

test('a UUIDv7 state left an hour ahead is reset by `flake-idgen state`, and UUIDv7s follow the clock again', () => {
  const dir = stateDir('reset-ahead')
  const env = { ...process.env, FLAKE_IDGEN_STATE_DIR: dir }
  // The time of a UUIDv7 a fresh process makes: its first 48 bits, ms since 1970.
  const uuidTime = () => {
    const made = spawnSync(process.execPath, ['-e', "process.stdout.write(require('.').uuidv7())"], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
    })
    return made.status === 0 ? Number.parseInt(made.stdout.replaceAll('-', '').slice(0, 12), 16) : made.stderr
  }
  assert.equal(typeof uuidTime(), 'number')
  // The file as a process whose clock ran an hour ahead leaves it: its start and its word.
  const file = path.join(dir, 'layout-48_0_15.state')
  const bytes = fs.readFileSync(file)
  const ahead = Date.now() + HOUR
  bytes[os.endianness() === 'LE' ? 'writeBigUInt64LE' : 'writeBigUInt64BE'](BigInt(ahead), 32)
  writeWord(bytes, 0, BigInt(ahead) << 22n)
  fs.writeFileSync(file, bytes)

  const reset = spawnSync(process.execPath, [BIN, 'state', '--reset', 'all', '--file', 'layout-48_0_15.state'], {
    env,
    encoding: 'utf8',
  })
  assert.deepEqual([reset.status, reset.stdout], [0, `removed ${file}\n`], reset.stderr)
  const before = Date.now()
  const time = uuidTime()
  assert.ok(typeof time === 'number' && time >= before - 1000 && time <= Date.now(), `${time}, not ${before}`)
})

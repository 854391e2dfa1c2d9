'use strict'
// 128-bit ids on a state file lost under a running process: as for 64-bit ids
// (state-loss.test.js), the generators stop with ERR_FLAKE_STATE_LOST, never issue on, and ones
// made after the loss is seen issue above every id the lost file gave.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')
const { stateDir } = require('../support/state-files.js')

// In a process of its own: a process issues each kind of id from one state directory.
const SCRIPT = `
const fs = require('node:fs')
const path = require('node:path')
const { uuidv7, Flake128 } = require(${JSON.stringify(path.join(__dirname, '..', '..'))})
const dir = process.env.FLAKE_IDGEN_STATE_DIR
const flake = new Flake128({ worker: 1 })
const last = { uuid: uuidv7(), flake: flake.nextBase62() }
for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name))
// Calls go on until each notices (within a horizon, 20 ms, of the clock); the last id each
// issued from the lost file is kept.
const refusal = (kind, call) => {
  const until = Date.now() + 5000
  while (Date.now() < until) {
    try {
      const id = call()
      if (kind !== undefined) last[kind] = id
    } catch (error) {
      return error.code
    }
  }
  return 'none'
}
const refused = {
  uuid: refusal('uuid', () => uuidv7()),
  flake: refusal('flake', () => flake.nextBase62()),
  uuidBatch: refusal(undefined, () => uuidv7.batch(2)),
  flakeBuffer: refusal(undefined, () => flake.next()),
}
const after = { uuid: uuidv7.create()(), flake: new Flake128({ worker: 1 }).nextBase62() }
process.stdout.write(JSON.stringify({ last, refused, after, files: fs.readdirSync(dir).sort() }))
`

// The loss needs Unix file semantics: Windows refuses to remove a file a process has mapped.
const unixLoss =
  process.platform === 'win32' && 'removes a file another process has open and mapped, which Windows refuses'

test('a state file removed under a running process: refused, then issued above by new generators', {
  skip: unixLoss,
}, () => {
  const dir = stateDir('wide-loss')
  const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', SCRIPT], {
    env: { ...process.env, FLAKE_IDGEN_STATE_DIR: dir },
    encoding: 'utf8',
    timeout: 60_000,
  })
  assert.equal(status, 0, stderr)
  const { last, refused, after, files } = JSON.parse(stdout)
  for (const [call, code] of Object.entries(refused)) assert.equal(code, 'ERR_FLAKE_STATE_LOST', call)
  // Both kinds' files are back, made anew by the generators after the loss.
  assert.deepEqual(files, ['layout-48_0_15.state', 'layout-48_0_16.state'])
  // Above the last id the lost files gave, removal or not: a new file starts a horizon past it.
  // (Both forms sort as strings in id order: the UUIDs' hex, the flakes' base62.)
  for (const kind of ['uuid', 'flake'])
    assert.ok(after[kind] > last[kind], `${kind}: ${after[kind]} after ${last[kind]}`)
})

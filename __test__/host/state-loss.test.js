'use strict'
// A state file lost under a running process (removed, replaced, its directory removed,
// truncated): the process notices and stops with ERR_FLAKE_STATE_LOST, never dies of it, and a
// process started on the directory afterwards issues no id the first one did.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')
const FlakeId = require('../..')
const { stateDir } = require('../support/state-files.js')

const CHILD = path.join(__dirname, '..', 'support', 'loss-child.js')
const STATE = 'epoch-0.state'
// The loss needs Unix file semantics: on Windows the attack itself fails (EPERM), the file kept.
const unixLoss =
  process.platform === 'win32' &&
  'removes, replaces or truncates a file another process has open and mapped, which Windows refuses'

function child(dir, out, count) {
  const proc = spawn(process.execPath, [CHILD, dir, out, ...(count ? [String(count)] : [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  proc.stdout.on('data', (chunk) => (stdout += chunk))
  proc.stderr.on('data', (chunk) => (stderr += chunk))
  const done = once(proc, 'close').then(([code, signal]) => ({ code, signal, stdout, stderr }))
  return { proc, done }
}

const sizeOf = (file) => (fs.existsSync(file) ? fs.statSync(file).size : 0)

function idsOf(file) {
  const bytes = fs.readFileSync(file)
  const ids = []
  for (let at = 0; at + 8 <= bytes.length; at += 8) ids.push(bytes.readBigUInt64BE(at))
  return ids
}

function duplicates(lists) {
  const all = BigUint64Array.from(lists.flat()).sort()
  let count = 0
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) count++
  return count
}

async function until(condition, what, ms = 30_000) {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const attacks = {
  'the file removed': (dir) => fs.rmSync(path.join(dir, STATE)),
  'a stale copy renamed over it': (dir, stale) => fs.renameSync(stale, path.join(dir, STATE)),
  'its directory removed (rm -rf)': (dir) => fs.rmSync(dir, { recursive: true }),
  'the file truncated to 0 bytes': (dir) => fs.truncateSync(path.join(dir, STATE), 0),
  'the file truncated to 4096 bytes': (dir) => fs.truncateSync(path.join(dir, STATE), 4096),
}

for (const [what, attack] of Object.entries(attacks)) {
  test(`${what} while A issues: A stops with ERR_FLAKE_STATE_LOST, B started after repeats none of its ids`, {
    skip: unixLoss,
  }, async () => {
    const dir = path.join(stateDir('loss'), 'state')
    const outs = path.dirname(dir)
    const [outA, outB] = [path.join(outs, 'a'), path.join(outs, 'b')]
    // At most 20 M ids (160 MB): on a build that never notices, A stops there, and fails below.
    const a = child(dir, outA, 20_000_000)
    await until(() => sizeOf(outA) >= 8 * 200_000, 'A to issue 200,000 ids')
    // A valid state file from a moment ago, as a backup would be.
    const stale = path.join(dir, 'stale')
    fs.copyFileSync(path.join(dir, STATE), stale)
    fs.chmodSync(stale, 0o600)
    attack(dir, stale)
    const b = child(dir, outB, 300_000)
    const doneB = await b.done
    // A notices within 20 ms of issuing; the rest is room for a loaded machine.
    const timer = setTimeout(() => a.proc.kill('SIGKILL'), 30_000)
    const doneA = await a.done
    clearTimeout(timer)
    assert.notEqual(doneA.signal, 'SIGKILL', 'A never noticed the loss')
    assert.equal(doneA.signal, null, `A was killed by ${doneA.signal}`)
    assert.equal(doneA.code, 0, doneA.stderr)
    assert.equal(doneA.stdout, 'ERR_FLAKE_STATE_LOST')
    assert.equal(doneB.code, 0, doneB.stderr)
    // B issues from a new file, or refuses a truncated one; either way, none of A's ids.
    if (what.includes('truncated')) assert.equal(doneB.stdout, 'ERR_FLAKE_STATE_FILE')
    else assert.equal(doneB.stdout, 'done')
    const [idsA, idsB] = [idsOf(outA), idsOf(outB)]
    assert.ok(idsA.length >= 200_000)
    assert.equal(duplicates([idsA, idsB]), 0)
  })
}

test('a second stateDir for a generator id this process issues from is refused, naming both', () => {
  const [first, second] = [stateDir('one-id-a'), stateDir('one-id-b')]
  const generator = new FlakeId({ id: 4, stateDir: first })
  generator.next()
  assert.throws(
    () => new FlakeId({ id: 4, stateDir: second }),
    // Quoted and escaped as JSON strings are: C:\\ on Windows.
    (error) =>
      error.code === 'ERR_FLAKE_STATE_DIR' &&
      error.message.includes(JSON.stringify(first)) &&
      error.message.includes(JSON.stringify(second)),
  )
  // The first directory again, or another id in the second: both fine.
  assert.equal(new FlakeId({ id: 4, stateDir: first }).next().length, 8)
  assert.equal(new FlakeId({ id: 5, stateDir: second }).next().length, 8)
})

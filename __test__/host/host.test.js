'use strict'
// Host scope: processes of one host share each generator id's state through a state file.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')
const FlakeId = require('../..')
const { stateFile, readWord, word, lastId, stateDir, plant } = require('../support/state-files.js')

const CHILD = path.join(__dirname, '..', 'support', 'host-child.js')

/** Runs host-child.js with FLAKE_IDGEN_STATE_DIR=dir; resolves to its exit code and stderr. */
function child(dir, args) {
  const proc = spawn(process.execPath, [CHILD, ...args], {
    env: { ...process.env, FLAKE_IDGEN_STATE_DIR: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  proc.stderr.on('data', (chunk) => (stderr += chunk))
  const done = once(proc, 'close').then(([code, signal]) => ({ code, signal, stderr }))
  return { proc, done }
}

/** The ids of a file host-child.js wrote, as bigints. */
function idsOf(file) {
  const bytes = fs.readFileSync(file)
  const ids = new Array(bytes.length >> 3)
  for (let i = 0; i < ids.length; i++) ids[i] = bytes.readBigUInt64BE(i * 8)
  return ids
}

const increasing = (ids) => ids.every((id, i) => i === 0 || ids[i - 1] < id)

function duplicates(lists) {
  const all = BigUint64Array.from(lists.flat()).sort()
  let count = 0
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) count++
  return count
}

/** `processes` children taking `count` ids each at the same moment, with `options`. */
async function race(name, options, processes = 4, count = 200_000) {
  const dir = stateDir(name)
  // Late enough for every child to be up and spinning: they start issuing together.
  const startAt = Date.now() + 1500
  const outs = Array.from({ length: processes }, (_, i) => path.join(dir, `ids-${i}`))
  const children = outs.map((out) => child(dir, ['take', JSON.stringify(options), String(count), String(startAt), out]))
  for (const { done } of children) {
    const { code, stderr } = await done
    assert.equal(code, 0, stderr)
  }
  return outs.map(idsOf)
}

test('4 processes with default options, 200,000 ids each at once: no duplicates, each increasing', async () => {
  const lists = await race('host', {})
  for (const ids of lists) {
    assert.equal(ids.length, 200_000)
    assert.ok(increasing(ids))
  }
  assert.equal(duplicates(lists), 0)
})

test("the same with scope: 'process' repeats ids (so the test above can fail)", async () => {
  const lists = await race('process', { scope: 'process' })
  for (const ids of lists) assert.ok(increasing(ids))
  assert.ok(duplicates(lists) > 0, 'no duplicates: the processes did not overlap')
})

test('kill -9 in the middle: the next process on that id continues above the last id issued', async () => {
  const dir = stateDir('kill')
  const options = JSON.stringify({ id: 77 })
  const killedOut = path.join(dir, 'killed')
  const victim = child(dir, ['forever', options, killedOut])
  while (!(fs.existsSync(killedOut) && fs.statSync(killedOut).size >= 8 * 20_000)) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  victim.proc.kill('SIGKILL')
  assert.equal((await victim.done).signal, 'SIGKILL')
  const killed = idsOf(killedOut)
  // The state file knows the last id issued, even one killed before it was written out.
  const stored = lastId(readWord(fs.readFileSync(path.join(dir, 'epoch-0.state')), 77), 77)
  assert.ok(stored >= killed.at(-1))

  const nextOut = path.join(dir, 'next')
  const next = child(dir, ['take', options, '10000', '0', nextOut])
  assert.equal((await next.done).code, 0)
  const after = idsOf(nextOut)
  assert.ok(after[0] > stored, `first id ${after[0]} not above the killed process's last ${stored}`)
  assert.equal(duplicates([killed, after]), 0)
})

test('a state ahead of the clock: next() throws clock-backwards, next(cb) waits it out', async () => {
  const dir = stateDir('ahead')
  const ahead = Date.now() + 300
  plant(dir, stateFile({ 5: word(ahead) }))
  const generator = new FlakeId({ id: 5, stateDir: dir })
  assert.equal(generator.scope, 'host')
  assert.throws(() => generator.next(), { name: 'Error', code: 'ERR_FLAKE_CLOCK_BACKWARDS' })
  const id = await new Promise((resolve, reject) =>
    generator.next((error, id) => (error ? reject(error) : resolve(id))),
  )
  const { timestamp, sequence } = FlakeId.decompose(id)
  // Above the stored id: its millisecond, next sequence number (or a later millisecond).
  assert.ok(timestamp > ahead || (timestamp === ahead && sequence > 0), `${timestamp} ${sequence}`)
  assert.ok(Date.now() >= ahead - 1)
})

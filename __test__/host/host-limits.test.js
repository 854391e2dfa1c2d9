'use strict'
// Host scope where its machinery runs out or meets what it did not expect, attacked as a user's
// host would: a state file lost hundreds of times in one process, a copy put over a file in
// use, a start another clock put an hour ahead.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { once } = require('node:events')
const { stateDir } = require('../support/state-files.js')

const ROOT = path.join(__dirname, '..', '..')
const linux = process.platform === 'linux' ? false : 'counts descriptors in /proc/self/fd'
const truncates = process.platform === 'win32' && 'truncates a file other processes have mapped, which Windows refuses'

/** Runs `script` in a fresh process with the package as `F`; returns its stdout as JSON. */
function run(script, env = {}) {
  const { status, stdout, stderr } = spawnSync(
    process.execPath,
    ['-e', `const F = require(${JSON.stringify(ROOT)});\n${script}`],
    { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 },
  )
  assert.equal(status, 0, stderr)
  return JSON.parse(stdout)
}

test('a state file removed 300 times under one process: every new generator works, nothing leaks', {
  skip: linux,
}, () => {
  const dir = stateDir('many-losses')
  const [lost, fdsBefore, fdsAfter, scopes] = run(`
    const fs = require('node:fs')
    const file = ${JSON.stringify(path.join(dir, 'epoch-0.state'))}
    const fds = () => fs.readdirSync('/proc/self/fd').length
    let lost = 0, before
    const scopes = new Set()
    for (let round = 0; round < 300; round++) {
      const g = new F({ id: 1, stateDir: ${JSON.stringify(dir)} })
      g.next()
      scopes.add(g.scope)
      if (round === 1) before = fds()
      fs.rmSync(file)
      // Noticed within the horizon: the old generator refuses from then on.
      for (;;) {
        try { g.next() } catch (error) {
          if (error.code === 'ERR_FLAKE_STATE_LOST') { lost++; break }
          if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
        }
      }
    }
    process.stdout.write(JSON.stringify([lost, before, fds(), [...scopes]]))`)
  assert.equal(lost, 300)
  assert.deepEqual(scopes, ['host'])
  assert.ok(fdsAfter <= fdsBefore + 2, `${fdsBefore} descriptors, then ${fdsAfter}`)
  // And nothing is left locked: another process maps the directory's file at once.
  const [scope] = run(
    `const g = new F({ id: 1, stateDir: ${JSON.stringify(dir)} }); g.next(); process.stdout.write(JSON.stringify([g.scope]))`,
  )
  assert.equal(scope, 'host')
})

test('a copy put over a file two processes issue from (cp: truncate, write): no id is issued twice', {
  skip: truncates,
}, async () => {
  for (const timeUnitMs of [1, 1000]) {
    const dir = stateDir(`copied-over-${timeUnitMs}`)
    const layout = { timeBits: 41, timeUnitMs, nodeBits: 10, sequenceBits: 12 }
    // The children issue until the parent, done with the file, puts `stop` in place: a fixed
    // time of theirs ran out before a parent slowed by a busy machine had put the copy back.
    const stop = path.join(dir, '..stop')
    const child = `
      const F = require(${JSON.stringify(ROOT)})
      const fs = require('node:fs')
      const options = { id: 2, stateDir: ${JSON.stringify(dir)}, layout: ${JSON.stringify(layout)} }
      let g = new F(options), lost = 0
      const ids = []
      for (let i = 0; (i & 1023) !== 0 || !fs.existsSync(${JSON.stringify(stop)}); i++) {
        try { ids.push((g ??= new F(options)).next().toString('hex')) } catch (error) {
          // Made while the copy was half written: refused, tried again.
          if (error.code === 'ERR_FLAKE_STATE_FILE') continue
          if (error.code === 'ERR_FLAKE_STATE_LOST') { lost++; g = undefined }
          // Refusals of a unit used up, by itself or (a 1000 ms unit on a busy machine) by the
          // other process every time this one woke for it: no id was issued by them.
          else if (!['ERR_FLAKE_SEQUENCE_OVERFLOW', 'ERR_FLAKE_SEQUENCE_BUSY', 'ERR_FLAKE_CLOCK_BACKWARDS'].includes(error.code)) throw error
        }
      }
      fs.writeFileSync(process.argv[1], JSON.stringify({ ids, lost }))`
    const outs = [0, 1].map((i) => path.join(dir, `..${path.basename(dir)}-out-${i}.json`))
    // Each child's end is listened for from its spawn: one that ended while the parent waited
    // below has emitted 'close' already, and a later once() would wait for ever. The spawn's
    // timeout ends a child that never sees `stop` (a parent that failed first).
    const results = outs.map((out) => {
      const proc = spawn(process.execPath, ['-e', child, out], {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 120_000,
      })
      let stderr = ''
      proc.stderr.on('data', (chunk) => (stderr += chunk))
      return once(proc, 'close').then(([code, signal]) => {
        assert.equal(code, 0, `signal ${signal}: ${stderr}`)
        return JSON.parse(fs.readFileSync(out, 'utf8'))
      })
    })
    try {
      // The state file, once both issue from it (a busy machine may take seconds to start
      // them); a backup of it, then (later) the backup put back.
      let file
      for (const deadline = Date.now() + 30_000; file === undefined && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        file = fs.readdirSync(dir).find((entry) => entry.endsWith('.state'))
      }
      assert.ok(file, `no state file in ${dir}`)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const backup = fs.readFileSync(path.join(dir, file))
      // Put back a unit later at least: a counter used up within one unit would be the same word.
      await new Promise((resolve) => setTimeout(resolve, 300 + timeUnitMs * 1.1))
      fs.writeFileSync(path.join(dir, file), backup)
      // Issuing on over the copy for a unit and more, as before the backup.
      await new Promise((resolve) => setTimeout(resolve, 300 + timeUnitMs * 1.1))
    } finally {
      fs.writeFileSync(stop, '')
    }
    const done = await Promise.all(results)
    const ids = done.flatMap((result) => result.ids)
    assert.ok(ids.length > 1000, `${ids.length} ids`)
    assert.ok(
      done.some((result) => result.lost > 0),
      'neither process noticed',
    )
    assert.equal(new Set(ids).size, ids.length, `unit ${timeUnitMs} ms: ${ids.length - new Set(ids).size} duplicates`)
  }
})

test('a start put an hour ahead by another clock does not stop generator ids it never used', async () => {
  const dir = stateDir('start-ahead')
  // A process that holds the file (so the next one is not its first mapping), as the one whose
  // clock was ahead would.
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `const g = new (require(${JSON.stringify(ROOT)}))({ id: 1, stateDir: ${JSON.stringify(dir)} }); g.next(); console.log('held'); setTimeout(() => {}, 60_000)`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  await once(holder.stdout, 'data')
  try {
    const file = path.join(dir, 'epoch-0.state')
    const bytes = fs.readFileSync(file)
    const ahead = BigInt(Date.now() + 3_600_000)
    if (os.endianness() === 'LE') bytes.writeBigUInt64LE(ahead, 32)
    else bytes.writeBigUInt64BE(ahead, 32)
    const fd = fs.openSync(file, 'r+')
    fs.writeSync(fd, bytes, 32, 8, 32)
    fs.closeSync(fd)
    const [ok] = run(`
      const g = new F({ id: 5, stateDir: ${JSON.stringify(dir)} })
      for (let i = 0; i < 1000; i++) g.next()
      process.stdout.write(JSON.stringify([g.scope]))`)
    assert.equal(ok, 'host')
  } finally {
    holder.kill()
  }
})

'use strict'
// A state file put back in place under a process that maps it and idles (issue 39, item 2): an
// older copy written over it (pwrite), `cp backup file` (truncates, then writes), or truncated to
// its header and grown back. A process started after it repeats none of the idle one's ids, on
// every unit, and the idle one, waking, reports the file lost where a word it took from went
// back and nobody has moved it past since.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync, fork, spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')
const { stateDir } = require('../support/state-files.js')

const CHILD = path.join(__dirname, '..', 'support', 'restore-child.js')
const unix =
  process.platform === 'win32' && 'truncates and rewrites a file another process has mapped, which Windows refuses'

const LAYOUTS = {
  '1 ms (the default)': {},
  // 64 ids a ms, borrowing ahead: A's 1,000 ids run about 15 ms ahead of the clock.
  '1 ms, borrowing ahead': { allowedFutureMs: 20, seqMask: 63 },
  '10 ms': { layout: { timeBits: 42, timeUnitMs: 10, nodeBits: 10, sequenceBits: 12 } },
  '1000 ms': { layout: { timeBits: 42, timeUnitMs: 1000, nodeBits: 10, sequenceBits: 12 } },
}

const RESTORES = {
  'an older copy written over it (pwrite)': (file, backup) => {
    const fd = fs.openSync(file, 'r+')
    fs.writeSync(fd, backup, 0, backup.length, 0)
    fs.closeSync(fd)
  },
  'cp backup file (truncated, then written)': (file, _backup, backupFile) => fs.copyFileSync(backupFile, file),
  'truncated to 4,096 bytes and grown back': (file, backup) => {
    fs.truncateSync(file, 4096)
    fs.truncateSync(file, backup.length)
  },
}

function child(dir, options, out, forkOptions = {}) {
  const proc = fork(CHILD, [dir, JSON.stringify(options), out], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...forkOptions,
  })
  const ask = async (id, count) => {
    proc.send({ id, count })
    const [reply] = await once(proc, 'message')
    return reply
  }
  return { proc, ask }
}

function idsOf(file) {
  const bytes = fs.readFileSync(file)
  const ids = []
  for (let at = 0; at + 8 <= bytes.length; at += 8) ids.push(bytes.readBigUInt64BE(at))
  return ids
}

function duplicates(ids) {
  const all = BigUint64Array.from(ids).sort()
  let count = 0
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) count++
  return count
}

/** Resolves early in a second of the clock: so that A's ids and B's share one on a build that lets B trust the file. */
async function earlyInASecond() {
  while (Date.now() % 1000 > 50) await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)))
}

for (const [unit, options] of Object.entries(LAYOUTS)) {
  for (const [how, restore] of Object.entries(RESTORES)) {
    test(`${unit}: ${how} while A idles; B started after repeats none of A's ids, A reports the loss`, {
      skip: unix,
    }, async () => {
      const root = stateDir('restore')
      const dir = path.join(root, 'state')
      const [outA, outB] = [path.join(root, 'a'), path.join(root, 'b')]
      const a = child(dir, options, outA)
      // Started now, made into a generator only after the restore: its start is what is tested.
      const b = child(dir, options, outB)
      try {
        assert.deepEqual(await a.ask(1, 1), { taken: 1, code: 'done', message: '' })
        const [file] = fs.readdirSync(dir).filter((name) => name.endsWith('.state'))
        const stateFile = path.join(dir, file)
        const backupFile = path.join(root, 'backup')
        fs.copyFileSync(stateFile, backupFile)
        const backup = fs.readFileSync(backupFile)
        if (unit === '1000 ms') await earlyInASecond()
        // A: 1,000 ids of generator 1, one of generator 2 (a word nobody else touches), then idle.
        assert.equal((await a.ask(1, 1000)).taken, 1000)
        assert.equal((await a.ask(2, 1)).taken, 1)
        restore(stateFile, backup, backupFile)
        const fromB = await b.ask(1, 1000)
        assert.deepEqual(fromB, { taken: 1000, code: 'done', message: '' })
        // A wakes past its horizon (B's start waited at least that long).
        const woken = await a.ask(1, 1000)
        const ids = [...idsOf(outA), ...idsOf(outB)]
        assert.equal(duplicates(ids), 0, `${duplicates(ids)} duplicates among ${ids.length} ids`)
        // Generator 2's word went back below what A took, and B never touched it.
        assert.equal(woken.code, 'ERR_FLAKE_STATE_LOST', woken.message)
        assert.match(woken.message, /went back/)
      } finally {
        a.proc.kill()
        b.proc.kill()
      }
    })
  }
}

// The same restores once every process has ended: the next process is a first mapping, which
// takes its start from the kernel's change times. An older copy written over the file changes
// the file's time alone (not its directory's), so that is the time that must count.
for (const [how, restore] of Object.entries(RESTORES)) {
  test(`1000 ms: ${how} after every process ended; the next one repeats none of their ids`, {
    skip: unix,
  }, async () => {
    const options = LAYOUTS['1000 ms']
    const root = stateDir('restore-ended')
    const dir = path.join(root, 'state')
    const [outA, outB] = [path.join(root, 'a'), path.join(root, 'b')]
    const a = child(dir, options, outA)
    assert.equal((await a.ask(1, 1)).taken, 1)
    const [file] = fs.readdirSync(dir).filter((name) => name.endsWith('.state'))
    const stateFile = path.join(dir, file)
    const backupFile = path.join(root, 'backup')
    fs.copyFileSync(stateFile, backupFile)
    const backup = fs.readFileSync(backupFile)
    await earlyInASecond()
    assert.equal((await a.ask(1, 1000)).taken, 1000)
    a.proc.kill()
    await once(a.proc, 'exit')
    restore(stateFile, backup, backupFile)
    const b = child(dir, options, outB)
    try {
      assert.deepEqual(await b.ask(1, 1000), { taken: 1000, code: 'done', message: '' })
      const ids = [...idsOf(outA), ...idsOf(outB)]
      assert.equal(duplicates(ids), 0, `${duplicates(ids)} duplicates among ${ids.length} ids`)
    } finally {
      b.proc.kill()
    }
  })
}

// A copy put over the live file by a means that changes no time the kernel keeps (issue 51,
// item 1): a bind mount of an older copy of the file, or of its directory, while A maps the file
// and idles, and B started at once. In a mount namespace of the test's own, so that the mounts
// go with it; A and B are started in it.
const bindMounts =
  (process.platform !== 'linux' && 'a mount namespace of its own is Linux-only') ||
  (process.getuid() !== 0 && 'a bind mount needs root') ||
  false

const BIND_MOUNTS = {
  'an older copy of the file': (stateFile, root) => [path.join(root, 'copy'), stateFile],
  'an older copy of its directory': (stateFile, root) => [path.join(root, 'copy'), path.dirname(stateFile)],
}

/** A mount namespace of its own, kept by a process that sleeps in it until killed. */
async function mountNamespace() {
  const keeper = spawn('unshare', ['--mount', '--propagation', 'private', 'sleep', '600'], { stdio: 'ignore' })
  const ours = fs.readlinkSync('/proc/self/ns/mnt')
  // unshare execs sleep once the namespace is made: the same pid, another namespace.
  for (let tries = 0; ; tries++) {
    try {
      if (fs.readlinkSync(`/proc/${keeper.pid}/ns/mnt`) !== ours) break
    } catch (error) {
      if (tries > 1000) throw error
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const enter = ['-t', String(keeper.pid), '-m']
  return {
    fork: { execPath: 'nsenter', execArgv: [...enter, process.execPath] },
    run: (...command) => execFileSync('nsenter', [...enter, ...command]),
    close: () => keeper.kill(),
  }
}

// On a 1000 ms unit, as reported: B's ids share A's second. (On 1 ms, B's start is later than
// A's last ms for as long as a process takes to start.)
for (const [what, mounted] of Object.entries(BIND_MOUNTS)) {
  test(`1000 ms: ${what} bind-mounted while A idles; B started at once repeats none of A's ids`, {
    skip: bindMounts,
  }, async () => {
    const options = LAYOUTS['1000 ms']
    const root = stateDir('bind-mount')
    const dir = path.join(root, 'state')
    const [outA, outB] = [path.join(root, 'a'), path.join(root, 'b')]
    const namespace = await mountNamespace()
    const a = child(dir, options, outA, namespace.fork)
    let b
    try {
      assert.deepEqual(await a.ask(1, 1), { taken: 1, code: 'done', message: '' })
      const [file] = fs.readdirSync(dir).filter((name) => name.endsWith('.state'))
      const stateFile = path.join(dir, file)
      const [from, over] = mounted(stateFile, root)
      execFileSync('cp', ['-a', over, from])
      // Older than the horizon and than A's second: no time of the copy's says it is recent.
      await new Promise((resolve) => setTimeout(resolve, 1100))
      await earlyInASecond()
      assert.equal((await a.ask(1, 1000)).taken, 1000)
      namespace.run('mount', '--bind', from, over)
      b = child(dir, options, outB, namespace.fork)
      assert.deepEqual(await b.ask(1, 1000), { taken: 1000, code: 'done', message: '' })
      // A wakes past its horizon (B's start waited at least that long).
      const woken = await a.ask(1, 1000)
      const ids = [...idsOf(outA), ...idsOf(outB)]
      assert.equal(duplicates(ids), 0, `${duplicates(ids)} duplicates among ${ids.length} ids`)
      assert.equal(woken.code, 'ERR_FLAKE_STATE_LOST', woken.message)
      assert.match(woken.message, /put in its place/)
    } finally {
      a.proc.kill()
      b?.proc.kill()
      namespace.close()
    }
  })
}

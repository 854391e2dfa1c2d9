'use strict'
// Host scope refuses state it cannot trust: a damaged or foreign file, a symlink, a directory
// another user owns or others can write. Explicitly asked for, it throws; by default, it falls
// back to process scope with one warning per process. Never a crash, never a silent reset.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const FlakeId = require('../..')
const { LENGTH, stateFile, stateDir, plant } = require('../support/state-files.js')

// Owners and mode bits are Unix's: host scope reads no ACL on Windows.
const modes = process.platform === 'win32' && "sets POSIX mode bits, which Windows's ACLs replace"
// Making a symlink on Windows needs a privilege (or Developer Mode), Wine 8 reports one made and
// makes none, and host scope there opens a state file through one (src/os/windows.rs: no
// open there refuses a link).
const symlinks =
  process.platform === 'win32' &&
  'makes symlinks, which need a privilege on Windows, where a state file is opened through one'

const damaged = {
  truncated: [
    stateFile().subarray(0, 100),
    /it is 100 bytes, a state file of its layout is 69632: truncated or not ours/,
  ],
  empty: [Buffer.alloc(0), /it is 0 bytes/],
  'with the wrong magic': [Buffer.concat([Buffer.from('NOTFLAKE'), stateFile().subarray(8)]), /wrong magic/],
  'of another format version': [
    (() => {
      const bytes = stateFile()
      bytes.writeUInt32LE(2, 8)
      return bytes
    })(),
    /format version 2, this version reads 1/,
  ],
  'of another epoch': [stateFile({}, 1000), /holds epoch 1000, its name says 0/],
}

for (const [what, [bytes, reason]] of Object.entries(damaged)) {
  test(`a state file ${what}: ERR_FLAKE_STATE_FILE naming it, the file left as it was`, () => {
    const dir = stateDir('damaged')
    const file = plant(dir, bytes)
    assert.throws(
      () => new FlakeId({ stateDir: dir }),
      (error) => {
        assert.equal(error.name, 'Error')
        assert.equal(error.code, 'ERR_FLAKE_STATE_FILE')
        // Quoted and escaped as a JSON string is: C:\\ on Windows.
        assert.ok(error.message.includes(JSON.stringify(file)), error.message)
        assert.match(error.message, reason)
        return true
      },
    )
    assert.deepEqual(fs.readFileSync(file), bytes)
    // Refused every time, not only the first.
    assert.throws(() => new FlakeId({ stateDir: dir, scope: 'host' }), { code: 'ERR_FLAKE_STATE_FILE' })
  })
}

test('a symlinked state file or directory is not followed', { skip: symlinks }, () => {
  const real = stateDir('real')
  const target = plant(real, stateFile())
  const dir = stateDir('linked')
  fs.symlinkSync(target, path.join(dir, 'epoch-0.state'))
  assert.throws(() => new FlakeId({ stateDir: dir }), {
    code: 'ERR_FLAKE_STATE_FILE',
    message: /symlink \(not followed\)/,
  })
  const linkedDir = path.join(stateDir('parent'), 'state')
  fs.symlinkSync(real, linkedDir)
  assert.throws(() => new FlakeId({ stateDir: linkedDir }), {
    code: 'ERR_FLAKE_STATE_DIR',
    message: /symlink \(not followed\)/,
  })
  assert.equal(fs.statSync(target).size, LENGTH)
})

test('a directory another user owns, or others can write, is refused', { skip: modes }, () => {
  const open = stateDir('mode-777')
  fs.chmodSync(open, 0o777)
  assert.throws(() => new FlakeId({ stateDir: open }), {
    code: 'ERR_FLAKE_STATE_DIR',
    message: /writable by group or others \(mode 777\)/,
  })
  const theirs = stateDir('nobody')
  // The tests run as root, which can give a directory away; anyone else cannot.
  if (process.getuid() === 0) {
    fs.chownSync(theirs, 65534, 65534)
    assert.throws(() => new FlakeId({ stateDir: theirs }), {
      code: 'ERR_FLAKE_STATE_DIR',
      message: /owned by uid 65534, not by this process's user \(uid 0\)/,
    })
  }
  assert.deepEqual(fs.readdirSync(open), [])
})

test('a file others can write is refused', { skip: modes }, () => {
  const dir = stateDir('file-666')
  const file = plant(dir, stateFile())
  fs.chmodSync(file, 0o666)
  assert.throws(() => new FlakeId({ stateDir: dir }), {
    code: 'ERR_FLAKE_STATE_FILE',
    message: /writable by group or others/,
  })
})

// The default directories are per user: another user's are made unusable here, so this needs
// root (as CI runs) to start a process as that user.
const NOBODY = 65534
/** Whether a user of no group of its own can run `file`: it and every folder above it open to others. */
function othersCanRun(file) {
  for (let at = file; ; at = path.dirname(at)) {
    if ((fs.statSync(at).mode & 0o001) === 0) return false
    if (path.dirname(at) === at) return true
  }
}
const asNobody =
  process.getuid?.() !== 0
    ? 'starts a process as another user: needs root'
    : !othersCanRun(process.execPath)
      ? `starts this Node as another user, who cannot reach it at ${process.execPath}`
      : false

test('by default, unusable directories fall back to process scope with one warning per process', {
  skip: asNobody,
}, (t) => {
  const roots = ['/tmp', '/var/tmp', '/dev/shm'].filter((root) => fs.existsSync(root))
  const dirs = roots.map((root) => path.join(root, `flake-idgen-${NOBODY}`))
  const planted = dirs.filter((dir) => !fs.existsSync(dir))
  if (planted.length < dirs.length) return t.skip(`${NOBODY}'s state directories exist already`)
  for (const dir of dirs) fs.mkdirSync(dir, { mode: 0o777 })
  t.after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
  })
  for (const dir of dirs) {
    fs.chownSync(dir, NOBODY, NOBODY)
    fs.chmodSync(dir, 0o777)
  }
  const script = `
    const F = require(${JSON.stringify(path.join(__dirname, '..', '..'))})
    const a = new F({ id: 1 }), b = new F({ id: 2 }), c = new F({ id: 1, epoch: 1000 })
    a.next(); b.next(); c.next()
    let threw
    try { new F({ scope: 'host' }) } catch (error) { threw = error.code }
    process.stdout.write(JSON.stringify([a.scope, b.scope, c.scope, threw]))`
  const { FLAKE_IDGEN_STATE_DIR, ...env } = process.env
  const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', script], {
    cwd: '/',
    env: { ...env, HOME: '/' },
    uid: NOBODY,
    gid: NOBODY,
    encoding: 'utf8',
  })
  assert.equal(status, 0, stderr)
  assert.deepEqual(JSON.parse(stdout), ['process', 'process', 'process', 'ERR_FLAKE_STATE_DIR'])
  // Once, as a process warning (issue 50: it was written at once and printed again a tick later).
  const warnings = stderr.split('\n').filter((line) => line.includes('[FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE]'))
  assert.deepEqual(
    warnings.map((line) => line.includes('] Warning: ')),
    [true],
    stderr,
  )
  for (const line of warnings) {
    assert.match(
      line,
      /host scope unavailable, ids are unique per process only: state directory ".*" cannot be used: writable by group or others/,
    )
  }
})

test('a directory FLAKE_IDGEN_STATE_DIR names that cannot be used is an error, never a fall-back', {
  skip: modes,
}, () => {
  const dir = stateDir('named-unusable')
  fs.chmodSync(dir, 0o777)
  const script = `
    const F = require('.')
    let threw
    try { new F({ id: 1 }).next() } catch (error) { threw = [error.code, error.message] }
    process.stdout.write(JSON.stringify(threw))`
  const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', script], {
    cwd: path.join(__dirname, '..', '..'),
    env: { ...process.env, FLAKE_IDGEN_STATE_DIR: dir },
    encoding: 'utf8',
  })
  assert.equal(status, 0, stderr)
  const [code, message] = JSON.parse(stdout)
  assert.equal(code, 'ERR_FLAKE_STATE_DIR')
  assert.match(message, /writable by group or others/)
  assert.ok(message.includes(JSON.stringify(dir)), message)
  assert.doesNotMatch(stderr, /FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE/)
})

test('scope and stateDir are checked like the other options', () => {
  // An absolute path on this platform: /tmp/x on Unix, C:\tmp\x on Windows.
  const absolute = path.join(path.parse(process.cwd()).root, 'tmp', 'x')
  const cases = [
    [{ scope: 'cluster' }, "option `scope` must be 'host' or 'process', got \"cluster\""],
    [{ stateDir: 'relative' }, 'option `stateDir` must be an absolute path, got "relative"'],
    [
      { scope: 'process', stateDir: absolute },
      `option \`stateDir\` must be unset with scope 'process', got ${JSON.stringify(absolute)}`,
    ],
    [{ scope: 'host', clock: Date.now }, /option `scope` must be 'process' or unset with a `clock` option/],
  ]
  for (const [options, message] of cases) {
    assert.throws(() => new FlakeId(options), { name: 'TypeError', code: 'ERR_FLAKE_INVALID_OPTION', message })
  }
  assert.equal(new FlakeId({ clock: Date.now }).scope, 'process')
  assert.equal(new FlakeId({ scope: 'process' }).scope, 'process')
})

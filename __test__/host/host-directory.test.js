'use strict'
// Where host scope lives by default: one directory per user whatever the environment, and a
// fallback that says so before the first id, even in a process that exits right after.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')
const binding = require('../../lib/binding/load-binding.js')
const { stateDir } = require('../support/state-files.js')

const ROOT = path.join(__dirname, '..', '..')
const CHILD = path.join(__dirname, '..', 'support', 'host-child.js')
const CODE = 'FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE'

/** The environment of a process that sets no state directory, with `env` on top. */
function defaults(env) {
  const { FLAKE_IDGEN_STATE_DIR, XDG_RUNTIME_DIR, TMPDIR, ...rest } = process.env
  return { ...rest, ...env }
}

const runIn = (env, script) => spawnSync(process.execPath, ['-e', script], { cwd: ROOT, env, encoding: 'utf8' })

test('two processes, one with XDG_RUNTIME_DIR and TMPDIR and one without, default options: one state, 0 duplicates', async (t) => {
  const session = defaults({ XDG_RUNTIME_DIR: stateDir('xdg'), TMPDIR: stateDir('tmpdir') })
  const service = defaults({})
  const where = "process.stdout.write(require('./lib/binding/load-binding.js').defaultStateDir())"
  const dirs = [session, service].map((env) => runIn(env, where).stdout)
  // The user's own default directory, as any program using the library would use it: what the
  // test found there stays; what it made goes, unless a process (another run's) still has it.
  const dir = dirs[0]
  const file = path.join(dir, 'epoch-0.state')
  const [hadDir, hadFile] = [fs.existsSync(dir), fs.existsSync(file)]
  const id = 1021
  t.after(() => {
    if (!hadFile) {
      try {
        binding.resetState(dir, 'epoch-0.state', id)
      } catch (error) {
        if (error.code !== 'ERR_FLAKE_STATE_IN_USE') throw error
      }
    }
    // Only if empty: another run may have put its file there meanwhile.
    if (!hadDir) fs.rmdir(dir, () => {})
  })
  const outs = [stateDir('ids-a'), stateDir('ids-b')].map((out) => path.join(out, 'ids'))
  const startAt = Date.now() + 1500
  const children = [session, service].map((env, i) => {
    const args = [CHILD, 'take', JSON.stringify({ id }), '100000', String(startAt), outs[i]]
    const proc = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    proc.stderr.on('data', (chunk) => (stderr += chunk))
    return once(proc, 'close').then(([code]) => assert.equal(code, 0, stderr))
  })
  await Promise.all(children)
  const ids = outs.flatMap((out) => {
    const bytes = fs.readFileSync(out)
    return Array.from({ length: bytes.length / 8 }, (_, i) => bytes.readBigUInt64BE(i * 8))
  })
  assert.equal(new Set(ids).size, ids.length, `${ids.length - new Set(ids).size} duplicates`)
  assert.equal(dirs[0], dirs[1])
  if (process.platform === 'linux') assert.equal(dirs[0], `/tmp/flake-idgen-${process.getuid()}`)
})

test('4 cluster workers on a named directory that cannot be used: each throws, none issues an id', async () => {
  // FLAKE_IDGEN_STATE_DIR names a file (or a path under one): a fall-back to process scope
  // would give each worker the same ids.
  const file = path.join(stateDir('cluster'), 'a-file')
  fs.writeFileSync(file, '')
  const script = `
    const cluster = require('node:cluster')
    if (cluster.isPrimary) {
      for (let i = 0; i < 4; i++) cluster.fork()
    } else {
      let ids = 0
      try {
        const g = new (require(${JSON.stringify(ROOT)}))({ id: 3 })
        for (let i = 0; i < 1000; i++, ids++) g.next()
        process.stdout.write(g.scope + ' ' + ids + '\\n')
      } catch (error) {
        process.stdout.write(error.code + ' ' + ids + '\\n')
      }
      process.exit(0)
    }`
  // A file: cluster forks the main module, which -e has none of.
  const main = path.join(stateDir('cluster-main'), 'main.js')
  fs.writeFileSync(main, script)
  for (const named of [file, path.join(file, 'under')]) {
    const proc = spawn(process.execPath, [main], {
      env: { ...process.env, FLAKE_IDGEN_STATE_DIR: named },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let [stdout, stderr] = ['', '']
    proc.stdout.on('data', (chunk) => (stdout += chunk))
    proc.stderr.on('data', (chunk) => (stderr += chunk))
    const [code] = await once(proc, 'close')
    assert.equal(code, 0, stderr)
    assert.deepEqual(stdout.split('\n').sort(), ['', ...Array(4).fill('ERR_FLAKE_STATE_DIR 0')], stderr)
    assert.doesNotMatch(stderr, new RegExp(CODE))
  }
})

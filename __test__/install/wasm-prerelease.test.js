'use strict'
// Issue 50: the WebAssembly build before the first release, by docs/install.md's commands as
// written: `npm run pack:local -- <dir> --wasm` in the checkout, `npm install <dir>/*.tgz` in a
// project, then require it and take an id. No --force, then or at the project's later installs
// (`npm install`, `npm ci`). The build is the checkout's (`npm run build:wasm`; .ci/platforms's
// wasm step makes one): built here it would take minutes.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { decode } = require('../support/helpers.js')

const root = path.join(__dirname, '..', '..')
const { name, version } = require('../../package.json')
const wasmPackage = require('../../npm/wasm32-wasi/package.json')
const missing = wasmPackage.files.filter((file) => !fs.existsSync(path.join(root, file)))

// The project's environment is a user's: no state directory of the harness's (isolate.js), which
// the WebAssembly build, having no host scope, refuses.
const { FLAKE_IDGEN_STATE_DIR, ...env } = process.env

function run(file, args, cwd) {
  return execFileSync(file, args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 180_000,
    shell: file === 'npm' && process.platform === 'win32',
  })
}

// What npm fetches besides the tarballs (the loader's runtime) is in its cache after the
// checkout's own install: these are devDependencies too.
const npm = (args, cwd) => run('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], cwd)

const APP = `
  const FlakeId = require('${name}')
  const { createRequire } = require('node:module')
  const loaded = createRequire(require.resolve('${name}'))('./binding.js').__napiBindingTarget
  const id = new FlakeId({ id: 77 }).next()
  console.log(JSON.stringify({ id: id.toString('hex'), loaded }))
`

test('the WebAssembly build before the release: pack:local --wasm, npm install of its tarballs, require, an id; no --force', {
  skip:
    missing.length > 0 &&
    `no WebAssembly build in the checkout (no ${missing.join(', ')}): \`npm run build:wasm\` makes one`,
  timeout: 600_000,
}, (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-wasm-prerelease-`))
  t.after(() => fs.rmSync(work, { recursive: true, force: true }))
  const pack = path.join(work, 'pack')

  run('npm', ['run', 'pack:local', '--', pack, '--wasm'], root)
  const tarballs = fs.readdirSync(pack).sort()
  assert.deepEqual(tarballs, [`${name}-${version}.tgz`, `${wasmPackage.name}-${version}.tgz`])

  const app = path.join(work, 'app')
  fs.mkdirSync(app)
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }))
  fs.writeFileSync(path.join(app, 'app.js'), APP)
  npm(['install', ...tarballs.map((tarball) => path.join(pack, tarball))], app)

  const since = Date.now()
  const takeId = () => {
    const printed = JSON.parse(run(process.execPath, ['app.js'], app).trim().split('\n').at(-1))
    assert.equal(printed.loaded, 'wasm32-wasi', 'the WebAssembly build loaded')
    const { id, time } = decode(Buffer.from(printed.id, 'hex'))
    assert.equal(id, 77)
    assert.ok(time >= since - 1000 && time <= Date.now(), 'an id of now')
  }
  takeId()

  // The project's later installs keep it, from the lockfile the first wrote.
  npm(['install'], app)
  takeId()
  fs.rmSync(path.join(app, 'node_modules'), { recursive: true })
  npm(['ci'], app)
  takeId()
})

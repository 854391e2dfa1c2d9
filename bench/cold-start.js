'use strict'
// Cold start (issue 32): a fresh process to its first id, ours against flake-idgen, in the same
// rounds. Each sample is a process of its own (cold-start-child.js): the time its script takes to
// `require` the package, and to its first `next()`, by the process's own timer, and the whole
// process as the parent sees it, from spawn to exit.
//
// Both packages are required by name from an app's node_modules, laid out as npm installs them:
// ours with its binary in the platform's package. Required from this repository instead, ours
// skips what users pay: resolving through package.json's `exports`, which Node does in code it
// runs for the first time in the process (1.1-1.7 ms here, on Node 20 to 26), and finding the
// platform's package.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { stageMain } = require('../scripts/stage-main.js')

const ROOT = path.join(__dirname, '..')

// The app: its node_modules, the state directory each timed start finds its state file in
// (created by the first run: held by no one then, as a CLI call or a serverless start finds it),
// and the child, copied in so that it requires as the app's own code does.
const app = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-bench-cold-'))
process.on('exit', () => fs.rmSync(app, { recursive: true, force: true }))
const stateDir = path.join(app, 'state')
fs.mkdirSync(stateDir, { mode: 0o700 })
const modules = path.join(app, 'node_modules')
const CHILD = path.join(app, 'cold-start-child.js')
fs.cpSync(path.join(__dirname, 'cold-start-child.js'), CHILD)
fs.writeFileSync(path.join(app, 'package.json'), '{ "private": true }\n')

// The binary this package loads, as its require() found it (none in the WebAssembly build).
require('..')
const binary = Object.keys(require.cache).find((file) => file.endsWith('.node'))

/** Installs the package here into the app as npm would, its binary in the platform's package. */
function install() {
  const { name: main, version, napi } = require('../package.json')
  // flake-idgen-rs.linux-x64-gnu.node is npm/linux-x64-gnu's.
  const abi = path.basename(binary).slice(napi.binaryName.length + 1, -'.node'.length)
  const platform = path.join(ROOT, 'npm', abi)
  const { name } = JSON.parse(fs.readFileSync(path.join(platform, 'package.json'), 'utf8'))
  fs.cpSync(path.join(platform, 'package.json'), path.join(modules, name, 'package.json'))
  fs.cpSync(binary, path.join(modules, name, path.basename(binary)))
  // The main package as it is published (`npm pack`'s files, the published package.json).
  fs.mkdirSync(path.join(modules, main), { recursive: true })
  stageMain(path.join(modules, main), { [name]: version })
}

// A package of one empty file that has an `exports` map, as ours does: what Node's first
// resolution through one costs a process, whichever package has it.
function installEmpty() {
  const into = path.join(modules, 'empty-with-exports')
  fs.mkdirSync(into, { recursive: true })
  fs.writeFileSync(path.join(into, 'index.js'), '')
  const manifest = { name: 'empty-with-exports', version: '1.0.0', main: 'index.js', exports: { '.': './index.js' } }
  fs.writeFileSync(path.join(into, 'package.json'), JSON.stringify(manifest))
}

fs.cpSync(path.dirname(require.resolve('flake-idgen/package.json')), path.join(modules, 'flake-idgen'), {
  recursive: true,
})
installEmpty()
// The WebAssembly build has no platform's package to install: required from here.
if (binary !== undefined) install()
const candidates = [
  {
    key: 'coldOurs',
    pkg: 'flake-idgen-rs',
    call: '`require` + `new FlakeId()` + `next()`',
    child: binary === undefined ? ROOT : 'flake-idgen-rs',
  },
  { key: 'coldTheirs', pkg: 'flake-idgen', call: 'the same', child: 'flake-idgen' },
  { key: 'coldExports', call: 'an empty package with an `exports` map, no id', child: 'empty-with-exports' },
]
if (binary !== undefined)
  candidates.push({ key: 'coldBinary', pkg: 'flake-idgen-rs', call: 'its binary alone, no id', child: 'binary' })

/** One fresh process of `candidate`: { required, first, whole } in ms, and its id. */
function sample(candidate) {
  const env = { ...process.env, FLAKE_IDGEN_STATE_DIR: stateDir }
  const begin = process.hrtime.bigint()
  const args = [CHILD, candidate.child, ...(candidate.child === 'binary' ? [binary] : [])]
  const { status, stdout, stderr } = spawnSync(process.execPath, args, { cwd: app, env, encoding: 'utf8' })
  const whole = Number(process.hrtime.bigint() - begin) / 1e6
  if (status !== 0) throw new Error(`${candidate.child} cold start exited ${status}: ${stderr}`)
  return { ...JSON.parse(stdout), whole }
}

/** Why `candidate`'s first id is not one, or it loaded from elsewhere than the app; or null. */
function check(candidate) {
  const { id, from } = sample(candidate)
  if (candidate.child === 'binary' || candidate.child === 'empty-with-exports') return null
  if (candidate.child !== ROOT && !from.startsWith(`${modules}${path.sep}`)) return `it loaded from ${from}`
  return /^[0-9a-f]{16}$/.test(id) ? null : `its first id is ${JSON.stringify(id)}`
}

module.exports = { candidates, sample, check }

'use strict'
// Cold start (issue 32): a fresh process to its first id, ours against flake-idgen, in the same
// rounds. Each sample is a process of its own (cold-start-child.js): the time its script takes to
// `require` the package, and to its first `next()`, by the process's own timer, and the whole
// process as the parent sees it, from spawn to exit.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const CHILD = path.join(__dirname, 'cold-start-child.js')

// A state directory of the bench's own, which its first run creates: every timed start then
// finds the state file there and held by no one, as a CLI call or a serverless start does.
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-bench-cold-'))
fs.chmodSync(stateDir, 0o700)
process.on('exit', () => fs.rmSync(stateDir, { recursive: true, force: true }))

// The binary this package loads, as its require() found it (none in the WebAssembly build): a
// start that loads it and nothing else is less than any start of ours can take.
require('..')
const binary = Object.keys(require.cache).find((file) => file.endsWith('.node'))

const candidates = [
  { key: 'coldOurs', pkg: 'flake-idgen-rs', call: '`require` + `new FlakeId()` + `next()`', child: 'ours' },
  { key: 'coldTheirs', pkg: 'flake-idgen', call: 'the same', child: 'flake-idgen' },
]
if (binary !== undefined)
  candidates.push({ key: 'coldBinary', pkg: 'flake-idgen-rs', call: 'its binary alone, no id', child: 'binary' })

/** One fresh process of `candidate`: { required, first, whole } in ms, and its id. */
function sample(candidate) {
  const env = { ...process.env, FLAKE_IDGEN_STATE_DIR: stateDir }
  const begin = process.hrtime.bigint()
  const args = [CHILD, candidate.child, ...(candidate.child === 'binary' ? [binary] : [])]
  const { status, stdout, stderr } = spawnSync(process.execPath, args, { env, encoding: 'utf8' })
  const whole = Number(process.hrtime.bigint() - begin) / 1e6
  if (status !== 0) throw new Error(`${candidate.pkg} cold start exited ${status}: ${stderr}`)
  return { ...JSON.parse(stdout), whole }
}

/** Why `candidate`'s first id is not one (or its binary did not load), or null. */
function check(candidate) {
  const { id } = sample(candidate)
  if (candidate.child === 'binary') return null
  return /^[0-9a-f]{16}$/.test(id) ? null : `its first id is ${JSON.stringify(id)}`
}

module.exports = { candidates, sample, check }

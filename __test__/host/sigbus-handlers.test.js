'use strict'
// A SIGBUS handler of the user's beside ours (docs/host-scope.md, "Another SIGBUS handler"):
// ours takes the faults of a truncated state file only while it is the one installed; Node's
// `process.on('SIGBUS')` installs one that replaces it, and removing that one leaves none.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')

const CHILD = path.join(__dirname, '..', 'support', 'sigbus-child.js')
const linuxOnly = { skip: process.platform !== 'linux' && 'the SIGBUS handler is Linux only' }

const { stateDir } = require('../support/state-files.js')

const run = (mode) => spawnSync(process.execPath, [CHILD, mode, stateDir('sigbus')], { encoding: 'utf8' })

test('a listener added before the first host-scope generator: ours still takes the fault', linuxOnly, () => {
  const { status, signal, stdout, stderr } = run('before')
  assert.deepEqual([status, signal, stdout], [0, null, 'faulted\n'], stderr)
})

test('a listener added before and removed: no handler is left, the fault ends the process', linuxOnly, () => {
  const { signal, stdout, stderr } = run('removed')
  assert.deepEqual([signal, stdout], ['SIGBUS', ''], stderr)
})

test('a listener added after: it takes the fault, and the faulting thread never returns', linuxOnly, () => {
  const { signal, stdout, stderr } = run('after')
  // The listener ran on the main thread and ended the process; the worker never got an answer.
  assert.deepEqual([signal, stdout], ['SIGKILL', 'listener\n'], stderr)
})

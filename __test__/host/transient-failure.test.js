'use strict'
// A state directory the OS is short of descriptors for (issue 39, item 3): the generator throws
// ERR_FLAKE_STATE_UNAVAILABLE, with a stateDir or with the defaults, rather than fall back to
// process scope (where a sibling process on the same id would repeat its ids); and the failure
// is not kept: once descriptors are free, the next generator is on host scope.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { stateDir } = require('../support/state-files.js')

const CHILD = path.join(__dirname, '..', 'support', 'transient-child.js')
const unix = { skip: (process.platform === 'win32' || !fs.existsSync('/bin/sh')) && 'ulimit is a Unix shell builtin' }

test('EMFILE at the first generator of a layout throws a coded error, and is tried again', unix, () => {
  const dir = stateDir('emfile')
  const { status, stdout, stderr } = spawnSync(
    '/bin/sh',
    ['-c', 'ulimit -n 64 && exec "$0" "$@"', process.execPath, CHILD, path.join(dir, 'given')],
    {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, FLAKE_IDGEN_STATE_DIR: path.join(dir, 'default') },
    },
  )
  assert.equal(status, 0, stderr)
  const { exhausted, freed, warnings } = JSON.parse(stdout)
  assert.deepEqual(exhausted, { defaults: 'ERR_FLAKE_STATE_UNAVAILABLE', stateDir: 'ERR_FLAKE_STATE_UNAVAILABLE' })
  assert.deepEqual(freed, { defaults: 'host', stateDir: 'host' })
  assert.deepEqual(warnings, [], 'a fallback was warned about')
  assert.ok(fs.existsSync(path.join(dir, 'default', 'epoch-0.state')))
  assert.ok(fs.existsSync(path.join(dir, 'given', 'epoch-0.state')))
})

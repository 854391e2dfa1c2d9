'use strict'
// Preloaded into every test process (package.json's `test:node`): a state directory of its own,
// so that test files running in parallel do not share generator state through the host's
// default one (a test counting ids up to an overflow would see another file's ids), and no run
// sees what an earlier one left. Processes a test starts inherit it, as they should.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { isMainThread } = require('node:worker_threads')
const { removeAtExit } = require('./support/remove-at-exit.js')

// Workers get the preload too (they inherit execArgv), but share their process's directory.
// The WebAssembly build (NAPI_RS_FORCE_WASI) has no host scope: a directory named by the
// environment is refused there as `stateDir` is, and its default generators take process scope.
if (isMainThread && !process.env.NAPI_RS_FORCE_WASI) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-test-'))
  process.env.FLAKE_IDGEN_STATE_DIR = dir
  removeAtExit(dir)
}

'use strict'
// Issue 41: a client's batch expires by the monotonic clock too. A client whose wall clock is
// stepped back 60 s (the fakeclock LD_PRELOAD shim of ../support/faults, built here: Linux, gcc)
// while it holds a batch of 500 ms validity finds it expired 800 ms later, though its wall clock
// says no time passed: it issues no id of it.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFile, execFileSync } = require('node:child_process')
const fs = require('node:fs')
const http = require('node:http')
const os = require('node:os')
const path = require('node:path')
const { promisify } = require('node:util')
const FlakeId = require('../..')
const { removeAtExit } = require('../support/remove-at-exit.js')

const CHILD = path.join(__dirname, '..', 'support', 'client-clock-child.js')
const FAULTS = path.join(__dirname, '..', 'support', 'faults')
const TOKEN = 'client-clock-token'

/** The fakeclock shim, built into a temporary directory, with its offsets file; or why not. */
function build() {
  if (process.platform !== 'linux') return { skip: 'the clock shim is an LD_PRELOAD one (Linux)' }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-client-shim-'))
  removeAtExit(out)
  try {
    execFileSync('gcc', [
      '-O2',
      '-shared',
      '-fPIC',
      '-o',
      path.join(out, 'fakeclock.so'),
      path.join(FAULTS, 'fakeclock.c'),
      '-ldl',
    ])
  } catch (err) {
    return { skip: `gcc cannot build the clock shim: ${err.message.split('\n')[0]}` }
  }
  fs.writeFileSync(path.join(out, 'offsets'), Buffer.alloc(4096))
  return { out }
}
const shim = build()

test('a wall clock stepped back while a batch is held: the monotonic clock expires it', {
  skip: shim.skip ?? false,
  timeout: 60_000,
}, async () => {
  const server = http.createServer(new FlakeId({ id: 13 }).batchHandler({ token: TOKEN }))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    // Asynchronously: the member answering it is in this process.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CHILD, `http://127.0.0.1:${server.address().port}/`, TOKEN],
      {
        timeout: 30_000,
        env: {
          ...process.env,
          LD_PRELOAD: path.join(shim.out, 'fakeclock.so'),
          FAKE_OFFSET_FILE: path.join(shim.out, 'offsets'),
          FAKE_SLOT: '0',
        },
      },
    )
    const { threw, code, wallMoved, fresh } = JSON.parse(stdout)
    assert.ok(wallMoved < 0, `the shim stepped the wall clock back (it moved ${wallMoved} ms)`)
    assert.ok(threw, 'an id of the expired batch was issued')
    assert.equal(code, 'ERR_FLAKE_NO_PREFETCHED_ID')
    assert.ok(fresh, 'the next id came from a new batch')
  } finally {
    server.close()
    server.closeAllConnections()
  }
})

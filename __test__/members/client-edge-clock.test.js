'use strict'
// Issue 50: a client whose wall clock stands still (the absclock LD_PRELOAD shim freezes
// CLOCK_REALTIME) keeps its batches' validity by the monotonic clock. Before, the monotonic clock
// was read only when Date.now() changed: 129 of 166 ids came from a batch 3.7 s old (validity 1 s).
// The child takes an id every 20 ms for 2.5 s; none may be older than the validity when issued.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFile } = require('node:child_process')
const http = require('node:http')
const path = require('node:path')
const { promisify } = require('node:util')
const FlakeId = require('../..')
const { shims, shimEnv } = require('../support/clock-shims.js')

const CHILD = path.join(__dirname, 'fixtures-edge', 'frozen-wall-child.js')
const TOKEN = 'client-edge-clock-token'
const VALIDITY_MS = 1000
// The real time is read as the time origin plus the monotonic clock: a few ms either way.
const SLACK_MS = 100

test('a wall clock standing still: no id older than the validity, by the monotonic clock', {
  skip: shims().skip ?? false,
  timeout: 60_000,
}, async () => {
  const server = http.createServer(new FlakeId({ id: 37 }).batchHandler({ token: TOKEN }))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CHILD, `http://127.0.0.1:${server.address().port}/`, TOKEN],
      { timeout: 30_000, env: shimEnv('absclock') },
    )
    const { ids, batches, oldestMs, wallStood } = JSON.parse(stdout)
    assert.ok(wallStood, 'the shim froze the wall clock')
    assert.ok(ids >= 20, `${ids} ids taken`)
    assert.ok(oldestMs <= VALIDITY_MS + SLACK_MS, `an id ${oldestMs} ms old was issued (validity ${VALIDITY_MS} ms)`)
    assert.ok(batches >= 2, `${batches} batches: the first expired and another was fetched`)
  } finally {
    server.close()
    server.closeAllConnections()
  }
})

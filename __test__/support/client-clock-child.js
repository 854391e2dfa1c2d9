'use strict'
// For client-clock.test.js: node client-clock-child.js MEMBER_URL TOKEN, under the fakeclock shim.
// Takes a batch (validity 500 ms), steps its own wall clock back 60 s (the shim's offsets file),
// waits 800 ms of real (monotonic) time, then tries a sync id: the batch must be found expired.
// Prints { threw, code, wallMoved, fresh } as JSON.

const fs = require('node:fs')
const client = require('../../client.js')

const [url, token] = process.argv.slice(2)
const ids = client({ members: [url], token, prefetchCount: 1000, prefetchValidityMs: 500 })

async function main() {
  const first = await ids.nextAsync()
  const before = Date.now()
  const step = Buffer.alloc(8)
  step.writeBigInt64LE(-60_000n)
  const fd = fs.openSync(process.env.FAKE_OFFSET_FILE, 'r+')
  fs.writeSync(fd, step, 0, 8, 8 * Number(process.env.FAKE_SLOT))
  fs.closeSync(fd)
  await new Promise((resolve) => setTimeout(resolve, 800))
  const wallMoved = Date.now() - before
  let threw = false
  let code
  try {
    ids.next()
  } catch (error) {
    threw = true
    code = error.code
  }
  const fresh = (await ids.nextAsync()).readBigUInt64BE(0) > first.readBigUInt64BE(0)
  ids.close()
  process.stdout.write(`${JSON.stringify({ threw, code, wallMoved, fresh })}\n`)
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`)
  process.exit(1)
})

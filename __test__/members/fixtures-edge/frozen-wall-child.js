'use strict'
// For client-edge-clock.test.js: node frozen-wall-child.js MEMBER_URL TOKEN, under the absclock
// shim. Freezes its own wall clock (the shim's file), then for 2.5 s of monotonic time takes an id
// every 20 ms from a client of validity 1 s (sync, or async once none is at hand). Prints
// { ids, batches, oldestMs }: oldestMs the age of the oldest id when issued, by the real time
// (the process's time origin, read before the freeze, plus the monotonic clock).

const fs = require('node:fs')
const FlakeId = require('../../..')
const client = require('../../../client.js')

const [url, token] = process.argv.slice(2)
const ids = client({ members: [url], token, prefetchCount: 1000, prefetchValidityMs: 1000 })
const realNow = () => performance.timeOrigin + performance.now()

async function main() {
  const frozen = Buffer.alloc(8)
  frozen.writeBigInt64LE(BigInt(Date.now()))
  fs.writeFileSync(process.env.FAKE_ABS_FILE, frozen)
  let oldestMs = 0
  let count = 0
  const end = performance.now() + 2500
  while (performance.now() < end) {
    let id
    try {
      id = ids.next()
    } catch {
      id = await ids.nextAsync()
    }
    oldestMs = Math.max(oldestMs, realNow() - FlakeId.decompose(id).timestamp)
    count++
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const wallStood = Date.now() === Number(frozen.readBigInt64LE(0))
  fs.writeFileSync(process.env.FAKE_ABS_FILE, Buffer.alloc(8))
  const { batches } = ids.stats()
  ids.close()
  process.stdout.write(`${JSON.stringify({ ids: count, batches, oldestMs: Math.round(oldestMs), wallStood })}\n`)
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`)
  process.exit(1)
})

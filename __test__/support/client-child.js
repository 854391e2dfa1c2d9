'use strict'
// A client for the members tests: node client-child.js CONFIG_JSON. Takes `count` ids from
// `members` through flake-idgen-rs/client (sync next() while ids are at hand, else nextAsync or
// nextBatchAsync, in turn), appending each to `out` as `hex ms` where ms is Date.now() read
// before the id was taken: an id must never be older than that minus prefetchValidityMs. Prints
// the client's stats as JSON when done.

const fs = require('node:fs')
const client = require('../../client.js')

const config = JSON.parse(process.argv[2])
const { count, out } = config
const ids = client({
  members: config.members,
  token: config.token,
  prefetchCount: config.prefetchCount,
  prefetchValidityMs: config.prefetchValidityMs,
})
const file = fs.openSync(out, 'a')

async function main() {
  let taken = 0
  let lines = ''
  let turn = 0
  while (taken < count) {
    const before = Date.now()
    let got
    try {
      got = ids.next()
    } catch (error) {
      if (error.code !== 'ERR_FLAKE_NO_PREFETCHED_ID') throw error
      got = turn++ % 2 === 0 ? await ids.nextAsync() : await ids.nextBatchAsync(Math.min(7, count - taken))
    }
    for (let offset = 0; offset < got.length; offset += 8)
      lines += `${got.toString('hex', offset, offset + 8)} ${before}\n`
    taken += got.length / 8
    // Written often, so that what a stop or a kill interrupts is little.
    if (lines.length > 4096 || taken >= count) {
      fs.writeSync(file, lines)
      lines = ''
    }
  }
  process.stdout.write(`${JSON.stringify(ids.stats())}\n`)
  ids.close()
}

main().catch((error) => {
  process.stderr.write(`${error.code}: ${error.message}\n`)
  process.exit(1)
})

'use strict'
// A member for the members tests: node member-child.js ID OUT [TOKEN]. Serves batches of
// generator ID's ids on a free loopback port (printed as `port N` on stdout) and issues its own
// ids meanwhile, appended to OUT (hex, one per line) as they are issued: after a SIGKILL the file
// holds every id it handed to itself, for the test to count duplicates with the clients' ids.

const fs = require('node:fs')
const http = require('node:http')
const FlakeId = require('../..')

const [id, out, token = 'members-test-token'] = process.argv.slice(2)
const generator = new FlakeId({ id: Number(id) })
const server = http.createServer(generator.batchHandler({ token }))
const file = fs.openSync(out, 'a')

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${server.address().port}\n`)
  // Its own ids, a few at a time between requests: written before the next are taken.
  const own = () => {
    const ids = generator.nextBatch(20)
    let text = ''
    for (let offset = 0; offset < ids.length; offset += 8) text += `${ids.toString('hex', offset, offset + 8)}\n`
    fs.writeSync(file, text)
    setTimeout(own, 1)
  }
  own()
})
process.on('SIGTERM', () => {
  server.close()
  server.closeAllConnections()
  process.exit(0)
})

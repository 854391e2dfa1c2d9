'use strict'
// A process of state-loss.test.js: issues ids from generator 33's host state in DIR with sync
// next() (spinning through overflow), writing them to OUT as 8-byte big-endian ids, until a
// call throws something else; then prints that error's code and exits 0.
//
//   node loss-child.js DIR OUT [COUNT]   COUNT ids at most (default: until an error)

const fs = require('node:fs')
const FlakeId = require('../..')

const [dir, out, count = 'Infinity'] = process.argv.slice(2)
const fd = fs.openSync(out, 'w')
const chunk = Buffer.alloc(8 * 1024)
let filled = 0
let issued = 0

function flush() {
  fs.writeSync(fd, chunk, 0, filled)
  filled = 0
}

let code = 'done'
try {
  const generator = new FlakeId({ id: 33, stateDir: dir, scope: 'host' })
  while (issued < Number(count)) {
    let id
    try {
      id = generator.next()
    } catch (error) {
      if (error.code === 'ERR_FLAKE_SEQUENCE_OVERFLOW' || error.code === 'ERR_FLAKE_SEQUENCE_BUSY') continue
      throw error
    }
    chunk.set(id, filled)
    filled += 8
    issued++
    // Written out often: the test reads how far this process got while it runs.
    if (filled === chunk.length) flush()
  }
} catch (error) {
  code = error.code ?? String(error)
}
flush()
process.stdout.write(code)

'use strict'
// A process of state-restore.test.js, driven over IPC so that it can idle between steps with its
// state file mapped. `{ id, count }` takes COUNT ids with sync next() from generator ID (made on
// first use, with OPTIONS_JSON and stateDir DIR), appends them to OUT as 8-byte big-endian ids,
// and answers `{ taken, code }`: how many were issued, and the code of the error that stopped it
// (or 'done').
//
//   node restore-child.js DIR OPTIONS_JSON OUT

const fs = require('node:fs')
const FlakeId = require('../..')

const [dir, optionsJson, out] = process.argv.slice(2)
const options = JSON.parse(optionsJson)
const generators = new Map()
const fd = fs.openSync(out, 'a')

function next(generator) {
  for (;;) {
    try {
      return generator.next()
    } catch (error) {
      if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW' && error.code !== 'ERR_FLAKE_SEQUENCE_BUSY') throw error
    }
  }
}

process.on('message', ({ id, count }) => {
  const ids = Buffer.alloc(count * 8)
  let taken = 0
  let code = 'done'
  let message = ''
  try {
    if (!generators.has(id)) generators.set(id, new FlakeId({ ...options, id, stateDir: dir, scope: 'host' }))
    const generator = generators.get(id)
    for (; taken < count; taken++) ids.set(next(generator), taken * 8)
  } catch (error) {
    code = error.code ?? String(error)
    message = error.message
  }
  fs.writeSync(fd, ids, 0, taken * 8)
  process.send({ taken, code, message })
})

'use strict'
// A process of host.test.js: takes ids with sync next(), spinning through overflow, and writes
// them to a file, as 8-byte big-endian ids one after the other.
//
//   node host-child.js take OPTIONS_JSON COUNT START_AT OUT   COUNT ids from when Date.now()
//                                                              reaches START_AT, written at the end
//   node host-child.js forever OPTIONS_JSON OUT                ids until killed, each written as
//                                                              soon as it is issued

const fs = require('node:fs')
const FlakeId = require('../..')

const [mode, optionsJson, ...rest] = process.argv.slice(2)
const generator = new FlakeId(JSON.parse(optionsJson))

function next() {
  for (;;) {
    try {
      return generator.next()
    } catch (error) {
      // Its own unit used up, or (a neighbour winning every race for a while, as under Wine's
      // scheduler) every unit others took: either way no id was issued, and it tries again.
      if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW' && error.code !== 'ERR_FLAKE_SEQUENCE_BUSY') throw error
    }
  }
}

if (mode === 'take') {
  const [count, startAt, out] = [Number(rest[0]), Number(rest[1]), rest[2]]
  const ids = Buffer.alloc(count * 8)
  while (Date.now() < startAt);
  for (let offset = 0; offset < ids.length; offset += 8) ids.set(next(), offset)
  fs.writeFileSync(out, ids)
} else if (mode === 'forever') {
  const fd = fs.openSync(rest[0], 'w')
  for (;;) fs.writeSync(fd, next())
} else {
  throw new Error(`unknown mode ${mode}`)
}

'use strict'
// The floor every per-id ratio is taken against: one clock reading and one 8-byte Buffer of its
// own, the least an id can cost (bench/README.md, "Where the time of `next()` goes").

// Buffer from the module, as lib/binding/native.js takes it: the global `Buffer` is an accessor in
// Node 20 that costs a few ns on each use.
const { Buffer } = require('node:buffer')

/** A clock reading and a fresh 8-byte Buffer: what an id costs at least. */
function floor() {
  Date.now()
  return Buffer.alloc(8)
}

module.exports = { floor }

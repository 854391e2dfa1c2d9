'use strict'
// One process of bench/alternating.js: `node alternating-child.js <checkout> <rounds>` times
// the 64-generator round-robin `next()` of the build at <checkout> beside the floor, in
// interleaved rounds of one batch each, and prints {"ratio": the median ratio of the rounds}.

const path = require('node:path')
const timing = require('./timing.js')
const { median } = require('./stats.js')
const { floor: floorFn } = require('./floor.js')

const [checkout, rounds] = process.argv.slice(2)
const FlakeId = require(path.resolve(checkout))
const sixtyFour = Array.from({ length: 64 }, (_, id) => new FlakeId({ id }))
let turn = 0
const next64 = { fn: () => sixtyFour[turn++ & 63].next(), loop: timing.compileLoop('alternating next64') }
const floor = { fn: floorFn, loop: timing.compileLoop('alternating floor') }
const BATCH = 1000
const WARM_ROUNDS = 200

const ratios = []
for (let round = 0; round < WARM_ROUNDS + Number(rounds); round++) {
  // The order flips each round: the second of two batches inherits the garbage of the first.
  for (const candidate of round % 2 === 0 ? [next64, floor] : [floor, next64]) {
    candidate.ns = timing.sample(candidate, 1, BATCH)
  }
  if (round >= WARM_ROUNDS) ratios.push(next64.ns / floor.ns)
}
console.log(JSON.stringify({ ratio: median(ratios) }))

'use strict'
// Run by memory.test.js with --expose-gc: runs one scenario and prints, as JSON, how much it
// grew RSS once its garbage is collected, and how much work it did.

const FlakeId = require('../..')
const { collected } = require('./collected')

const scenarios = {
  // From next(), nextBigInt() and nextString() of four generators, none kept. One generator
  // gives at most 4,096 ids a millisecond; beyond that next() throws, and the loop goes on.
  ids() {
    const generators = [1, 2, 3, 4].map((id) => new FlakeId({ id }))
    let made = 0
    while (made < 10_000_000) {
      const generator = generators[made & 3]
      try {
        if (made % 3 === 0) generator.nextBigInt()
        else if (made % 3 === 1) generator.nextString()
        else generator.next()
        made++
      } catch (error) {
        if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
      }
    }
    return made
  },
  // Created, used for one id each, and dropped: every generator id, in both option forms.
  generators() {
    let made = 0
    while (made < 200_000) {
      const options = made & 1 ? { id: made % 1024 } : { datacenter: made % 32, worker: (made >> 5) % 32 }
      try {
        new FlakeId(options).next()
      } catch (error) {
        if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
      }
      made++
    }
    return made
  },
  // The synchronous loops, which never let the event loop turn: every batch dropped, ...
  batches() {
    const generator = new FlakeId({ id: 12 })
    let made = 0
    for (let r = 0; r < 600; r++) made += generator.nextBatch(16_384).length / 8
    return made
  },
  // ... an instance with a clock of its own per id, ...
  clocks() {
    let made = 0
    for (; made < 200_000; made++) new FlakeId({ id: made & 1023, clock: () => Date.now() }).next()
    return made
  },
  // ... and a new epoch per instance.
  epochs() {
    let made = 0
    for (; made < 100_000; made++) {
      try {
        new FlakeId({ id: 7, epoch: 1000 + made }).next()
      } catch (error) {
        if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
      }
    }
    return made
  },
}

async function main() {
  const scenario = scenarios[process.argv[2]]
  // Warm up first: the module, the JIT and the first generators are not what is measured.
  new FlakeId().next()
  const before = (await collected()).rss
  const work = scenario()
  const after = (await collected()).rss
  console.log(JSON.stringify({ work, grownMb: (after - before) / 2 ** 20 }))
}

main()

'use strict'
// A child of __test__/core/compat.test.js, under LD_PRELOAD's absclock.so (see clock-shims.js):
// it walks the process's clock, frozen through FAKE_ABS_FILE, through each scenario of its
// argument (JSON), with one of our generators on a shared state by the system clock (next()'s
// usual path: the WebAssembly build's plain export there) and a flake-idgen 1.4.0 one beside it,
// and prints what each call of each returned or threw, as pairs.

const fs = require('node:fs')
const FlakeIdgen = require('flake-idgen')
const FlakeId = require('../..')
const { outcome } = require('./helpers.js')

/** Freezes the system clock at `ms` (an int64, where the shim reads it). */
function freeze(ms) {
  const bytes = Buffer.alloc(8)
  bytes.writeBigInt64LE(BigInt(ms))
  const fd = fs.openSync(process.env.FAKE_ABS_FILE, 'r+')
  fs.writeSync(fd, bytes, 0, 8, 0)
  fs.closeSync(fd)
}

const scenarios = JSON.parse(process.argv[2])
const pairs = scenarios.map(({ settings, start, steps }) => {
  let now = start
  freeze(now)
  // A node id per scenario: each has a shared state of its own, as nothing else issues from.
  const ours = new FlakeId({ ...settings, scope: 'process' })
  const theirs = new FlakeIdgen(settings)
  const walked = []
  for (const [kind, n] of steps) {
    if (kind === 'advance') now += n
    if (kind === 'back') now -= n
    freeze(now)
    for (let i = 0; i < (kind === 'burst' ? n : 1); i++) {
      walked.push([outcome(() => ours.next()), outcome(() => theirs.next())])
    }
  }
  return walked
})
freeze(0)
process.stdout.write(JSON.stringify({ target: require('../../binding.js').__napiBindingTarget, pairs }))

'use strict'

/** Splits an id into its fields (time is ms after the epoch). */
function decode(id) {
  const n = id.readBigUInt64BE(0)
  return { time: Number(n >> 22n), id: Number((n >> 12n) & 0x3ffn), sequence: Number(n & 0xfffn) }
}

/** A clock for both generators: `clock` for ours, `withDateNow(fn)` runs fn with `Date.now` on it. */
function scriptedClock(start) {
  const clock = { now: start }
  clock.read = () => clock.now
  clock.withDateNow = (fn) => {
    const realNow = Date.now
    Date.now = clock.read
    try {
      return fn()
    } finally {
      Date.now = realNow
    }
  }
  return clock
}

/** Runs fn and returns ['ok', hex] or ['error', message], to compare outcomes. */
function outcome(fn) {
  try {
    return ['ok', fn().toString('hex')]
  } catch (error) {
    return ['error', error.message]
  }
}

/** A seed for fast-check, printed so a failure can be replayed with FC_SEED=<seed>. */
function fcSeed(name) {
  const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : (Date.now() ^ (Math.random() * 2 ** 31)) | 0
  console.log(`${name}: fast-check seed ${seed} (replay: FC_SEED=${seed})`)
  return seed
}

module.exports = { decode, scriptedClock, outcome, fcSeed }

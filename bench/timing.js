'use strict'
// How every per-call part of the bench times a call: a loop compiled for each candidate, and
// its nanoseconds per call over batches that each start at a fresh time unit.

const freshMillisecond = require('./millisecond.js')

/**
 * A loop of `fn` `n` times, compiled for the candidate `tag` names: its call site sees one
 * function and inlines it, as a user's code would (one loop shared by every candidate would go
 * megamorphic and add a real call to each). The comment makes each source unique, so V8 caches
 * none. It returns the last result, which keeps every result alive at no cost; with `kept`,
 * all of them in an array, so that the collector pays for each, as where a user keeps every id.
 */
function compileLoop(tag, kept = false) {
  const body = kept
    ? `const ids = new Array(n)
    for (let i = 0; i < n; i++) ids[i] = fn()
    return ids`
    : `let last
    for (let i = 0; i < n; i++) last = fn()
    return last`
  return new Function('fn', 'n', `'use strict' // ${tag}\n${body}`)
}

// Where each batch's result goes, so that nothing of the loop is dead code.
let _sink

/**
 * Nanoseconds per call of `candidate.fn` through `candidate.loop`, over `batches` batches of
 * `batch` calls, each started at a fresh unit of `unitMs` (a millisecond by default).
 */
function sample(candidate, batches, batch, unitMs = 1) {
  let ns = 0
  for (let b = 0; b < batches; b++) {
    freshMillisecond(unitMs)
    const t0 = process.hrtime.bigint()
    _sink = candidate.loop(candidate.fn, batch)
    ns += Number(process.hrtime.bigint() - t0)
  }
  return ns / (batches * batch)
}

module.exports = { compileLoop, sample }

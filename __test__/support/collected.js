'use strict'
// For children run with --expose-gc that measure what a piece of work kept: memory as it is once
// the work's garbage is collected.

// From Node 22 on, a regular major GC keeps the heap pages it emptied pooled for reuse, mapped:
// some runs end with 27 MB of them in RSS that nothing holds. A last-resort GC (what V8 runs
// before it gives up for lack of memory) hands them back. Node 20's V8 takes no options here,
// and its GC does not keep them.
const GC_OPTIONS =
  Number(process.versions.node.split('.')[0]) >= 22
    ? { type: 'major', execution: 'sync', flavor: 'last-resort' }
    : undefined

/** `process.memoryUsage()` after every finalizer has run and what it freed is collected. */
async function collected() {
  // Finalizers run after a GC, on a later turn; what they free is collected by the next.
  for (let i = 0; i < 4; i++) {
    globalThis.gc(GC_OPTIONS)
    await new Promise(setImmediate)
  }
  return process.memoryUsage()
}

module.exports = { collected }

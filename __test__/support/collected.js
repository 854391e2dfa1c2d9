'use strict'
// For children run with --expose-gc that measure what a piece of work kept: memory as it is once
// the work's garbage is collected.

const os = require('node:os')
const v8 = require('node:v8')

// From Node 22 on, a regular major GC keeps the heap pages it emptied pooled for reuse, mapped:
// some runs end with 27 MB of them in RSS that nothing holds. A last-resort GC (what V8 runs
// before it gives up for lack of memory) hands them back. Node 20's V8 takes no options here,
// and its GC does not keep them.
const LAST_RESORT_GC = Number(process.versions.node.split('.')[0]) >= 22
const GC_OPTIONS = LAST_RESORT_GC ? { type: 'major', execution: 'sync', flavor: 'last-resort' } : undefined

/**
 * `process.memoryUsage()` after every finalizer has run and what it freed is collected. With
 * `lastResort`, also with the young generation shrunk back: V8 grows it (to 32 MB) under the
 * allocation of much short-lived work, such as loading JS again and again, and only a GC that
 * reduces memory shrinks it. Node 20's gc() cannot run one; a heap snapshot runs that GC first.
 * With `ordinary`, by V8's own full GC alone: memory as a process that never runs the last resort
 * (a test runner's) holds it, the pooled pages and a grown young generation counted.
 */
async function collected({ lastResort = false, ordinary = false } = {}) {
  // Finalizers run after a GC, on a later turn; what they free is collected by the next.
  for (let i = 0; i < 4; i++) {
    globalThis.gc(ordinary ? undefined : GC_OPTIONS)
    await new Promise(setImmediate)
  }
  if (lastResort && !LAST_RESORT_GC) v8.writeHeapSnapshot(os.devNull)
  return process.memoryUsage()
}

module.exports = { collected }

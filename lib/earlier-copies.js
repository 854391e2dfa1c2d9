'use strict'

// Node keeps every module a file required among that file's `children`, even once require.cache
// has forgotten it, and a module keeps its exports and its own children: so each copy of this
// package loaded again after require.cache was cleared (a test runner's fresh module registry,
// watch mode) would keep every earlier copy's whole module graph alive: 20 KB a copy on Node 22
// and later, 60 KB on Node 20.
const loaded = Symbol.for('flake-idgen-rs: entry files loaded')

/**
 * Drops from every module's `children` the earlier copies of `entry` (the package's index.js
 * module, as it loads) that require.cache no longer holds, so that a copy nothing else reaches
 * can be collected. Walks the module tree only when this thread loaded `entry`'s file before.
 */
function forgetEarlierCopies(entry, cache) {
  const { filename } = entry
  // A copy loaded other than by Node's require (a vm context's loader of its own) has no cache.
  if (cache === undefined || typeof filename !== 'string') return
  if (!Object.hasOwn(process, loaded)) Object.defineProperty(process, loaded, { value: new Set() })
  const files = process[loaded]
  if (!files.has(filename)) {
    files.add(filename)
    return
  }
  // The requirer of an earlier copy may itself be out of the cache, kept by its own requirer.
  const seen = new Set()
  const pending = Object.values(cache)
  if (require.main !== undefined) pending.push(require.main)
  while (pending.length > 0) {
    const parent = pending.pop()
    if (parent == null || seen.has(parent) || !Array.isArray(parent.children)) continue
    seen.add(parent)
    const { children } = parent
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]
      if (child !== entry && child?.filename === filename && cache[filename] !== child) children.splice(i, 1)
      else pending.push(child)
    }
  }
}

module.exports = forgetEarlierCopies

'use strict'

// Node keeps every module a file required among that file's `children`, even once require.cache
// has forgotten it, and a module keeps its exports: so each copy of index.js loaded again after
// require.cache was cleared (a test runner's fresh module registry, watch mode) would stay alive,
// one more class and module a load.

/**
 * Drops from every module's `children` the earlier copies of `entry` (the package's index.js
 * module, as a later copy of it loads) that require.cache no longer holds, so that a copy
 * nothing else reaches can be collected.
 */
function forgetEarlierCopies(entry, cache) {
  const { filename } = entry
  // A copy loaded other than by Node's require (a vm context's loader of its own) has no cache.
  if (cache === undefined || typeof filename !== 'string') return
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

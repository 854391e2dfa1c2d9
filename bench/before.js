'use strict'
// BENCH_BEFORE=<a checkout with its addon built>: the build to time this one against.

const path = require('node:path')

/** The FlakeId of the build before, or undefined without BENCH_BEFORE. */
function loadBefore() {
  const dir = process.env.BENCH_BEFORE
  if (!dir) return undefined
  const Before = require(path.resolve(dir))
  // A process loads one binary per version (lib/binding/load-binding.js): a checkout of the same
  // version would time this build's binary twice, and show no difference whatever the change.
  // Checkouts before 861c6de keep the loader at lib/load-binding.js.
  let theirs
  for (const loader of ['lib/binding/load-binding.js', 'lib/load-binding.js']) {
    try {
      theirs ??= require(path.resolve(dir, loader))
    } catch {}
  }
  if (theirs === require('../lib/binding/load-binding.js')) {
    throw new Error(
      `BENCH_BEFORE=${dir} shares this build's native binary (the same package version): give one of them another version in package.json`,
    )
  }
  return Before
}

module.exports = { loadBefore }

'use strict'
// The summaries every part of the bench reports: a median, a quantile.

/** The value at quantile `q` (0–1) of `xs`, one of them (the nearest rank below). */
function quantile(xs, q) {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

/** The median of `xs`, one of them (the upper one of an even count). */
const median = (xs) => quantile(xs, 0.5)

module.exports = { median, quantile }

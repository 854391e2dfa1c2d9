'use strict'
// Issue 40's shape against the build before, in processes of their own that alternate: this
// build's, the build before's, and so on, the order flipped each pair. In one process the two
// builds are not timed alike: their ratio followed the order they were loaded in, 1.08–1.29
// one way and 0.82–0.92 the other (2026-11-27), more than the change it was to show. Each
// process gives its median ratio to its own floor (alternating-child.js), and the pairs' ratios
// are taken, then their median.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { median, quantile } = require('./stats.js')

const CHILD = path.join(__dirname, 'alternating-child.js')
const CHILD_ROUNDS = 400

/** One process of `checkout`'s: its 64 generators' `next()` × its floor (the median). */
function oneProcess(checkout) {
  // A state directory of its own: neither build reads what the other left.
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-bench-'))
  try {
    const child = spawnSync(process.execPath, [CHILD, checkout, String(CHILD_ROUNDS)], {
      env: { ...process.env, FLAKE_IDGEN_STATE_DIR: stateDir },
      encoding: 'utf8',
    })
    if (child.status !== 0)
      throw new Error(`bench/alternating-child.js ${checkout} failed: ${child.stderr || child.error}`)
    return JSON.parse(child.stdout).ratio
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true })
  }
}

/**
 * `pairs` pairs of processes, this build's and `before`'s (a checkout): each build's median
 * × its floor, and the median and quartiles of this build's over the build before's, pair by pair.
 */
function run(before, pairs, progress = () => {}) {
  const here = path.join(__dirname, '..')
  const mine = []
  const theirs = []
  for (let pair = 0; pair < pairs; pair++) {
    if (pair % 2 === 0) {
      mine.push(oneProcess(here))
      theirs.push(oneProcess(before))
    } else {
      theirs.push(oneProcess(before))
      mine.push(oneProcess(here))
    }
    progress()
  }
  const ratios = mine.map((x, pair) => x / theirs[pair])
  return {
    pairs,
    mine: median(mine),
    before: median(theirs),
    ratio: median(ratios),
    quartiles: [quantile(ratios, 0.25), quantile(ratios, 0.75)],
  }
}

module.exports = { run }

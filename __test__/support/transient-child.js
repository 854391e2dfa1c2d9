'use strict'
// A child of __test__/host/transient-failure.test.js, started under `ulimit -n 64`: takes every
// descriptor left, so the first generator's state directory cannot be opened (EMFILE), tries
// generators, gives the descriptors back, and tries again. Prints one JSON line.

const fs = require('node:fs')
const FlakeId = require('../..')

const [stateDir] = process.argv.slice(2)
const warnings = []
process.on('warning', (warning) => warnings.push(warning.code ?? warning.name))

function attempt(options) {
  try {
    const generator = new FlakeId(options)
    generator.next()
    return generator.scope
  } catch (err) {
    return err.code ?? String(err)
  }
}

const taken = []
for (;;) {
  try {
    taken.push(fs.openSync('/dev/null', 'r'))
  } catch (err) {
    if (err.code !== 'EMFILE') throw err
    break
  }
}
const exhausted = {
  // FLAKE_IDGEN_STATE_DIR points the defaults at a directory of the test's.
  defaults: attempt({ id: 7 }),
  stateDir: attempt({ id: 8, stateDir }),
}
for (const fd of taken) fs.closeSync(fd)
const freed = {
  defaults: attempt({ id: 7 }),
  stateDir: attempt({ id: 8, stateDir }),
}
setImmediate(() => process.stdout.write(`${JSON.stringify({ exhausted, freed, warnings })}\n`))

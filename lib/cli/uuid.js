'use strict'

// `flake-idgen uuid`: new UUIDv7s, one per line, increasing across the host's processes.

const uuidv7 = require('../kinds/uuid.js')
const { readCount, readStateDir } = require('./args.js')
const { withFlags } = require('./command-errors.js')
const { writeIds } = require('./output.js')

/** Prints `--count` new UUIDv7s in their canonical form, from the state `--scope`/`--state-dir` say. */
async function printUuids(values) {
  const count = readCount(values.count)
  const options = {}
  if (values.scope !== undefined) options.scope = values.scope
  if (values['state-dir'] !== undefined) options.stateDir = readStateDir(values['state-dir'])
  // The library checks the options, at once or at the first id: a bad one names its flag.
  const generate = withFlags(() => uuidv7.create(options))
  await writeIds(
    count,
    16,
    (n) => withFlags(() => generate.batch(n)),
    (ids, offset) => uuidv7.stringify(ids, offset),
  )
}

module.exports = printUuids

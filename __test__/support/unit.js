'use strict'
// `npm run test:unit`, the run a newcomer starts first: its preload (__test__/unit.js) sets
// FLAKE_IDGEN_UNIT=1. It starts no server (__test__/support/servers.js skips the tests that need
// one) and builds nothing from source; `npm test` runs everything.

const UNIT = process.env.FLAKE_IDGEN_UNIT === '1'

/**
 * A reason to skip, for `{ skip: buildsFromSource }`, under `npm run test:unit`, or where the run
 * leaves the build from source to `npm test` (FLAKE_IDGEN_SOURCE_BUILT=1: .ci/platforms's Node
 * lines, after .ci/run's `npm test`); else false.
 */
const buildsFromSource =
  (UNIT && 'builds the addon from source with cargo, 1.5 to 2 minutes: `npm run test:unit` leaves it to `npm test`') ||
  (process.env.FLAKE_IDGEN_SOURCE_BUILT === '1' &&
    'builds the addon from source: .ci/platforms leaves it to `npm test` (Node 20)')

module.exports = { UNIT, buildsFromSource }

'use strict'
// Where a generator's node id comes from, one row each: the option names of each factory, the
// refusals of another source's options, and serve's flags, synopsis and help lines are made
// from these rows (lib/lease/options.js, lib/client/options.js, lib/options/options.js,
// lib/cli/serve*.js); the TypeScript option types, the general help and the docs' tables are
// held to them by __test__/core/id-sources.test.js. Host scope is no source: it says which
// processes share the state of a node id, whichever source gave it.
//
// Adding a source:
// 1. A file in this folder that exports its row, an object of
//    - name: what the source is, in messages and tests ('lease')
//    - takenBy: the constructor or factory whose options select it ('FlakeId.lease()'); rows of
//      one factory share its option list (`optionsOf`), so a source selected by an option's
//      value (`idFrom: 'pm2'`) lists that option too, and reads it at construction only
//    - options: the option names the source reads
//    - generatorOptions: whether that factory takes GENERATOR_OPTIONS too (the client: no)
//    - serve: the flags that select it on `flake-idgen serve`, each { flag, value, help(context) }
//      (context: { schemes }, the lease stores' URL schemes), and `optional: true` for one that
//      may be left out; [] for none. A row's other flags go together, and two rows' flags never
//      do. A row of new FlakeId() gives each flag's value as its option (`--id-from`: `idFrom`)
//    The row requires nothing: the client (workerd, Edge) loads the rows it needs.
// 2. Its row in SOURCES, its option types in index.d.ts (or client.d.ts), its lines in the docs'
//    tables (docs/api.md, docs/fleets.md), its tests.

const given = require('./given.js')
const orchestrator = require('./orchestrator.js')
const lease = require('./lease.js')
const members = require('./members.js')

const SOURCES = [given, orchestrator, lease, members]

/** The options of a generator whatever gives its node id: its ids' shape, clock and state. */
const GENERATOR_OPTIONS = ['layout', 'epoch', 'seqMask', 'clock', 'allowedFutureMs', 'scope', 'stateDir']

/** Every option `takenBy` (a row's) takes: its sources' options, then the generator's if it takes them. */
function optionsOf(takenBy) {
  const rows = SOURCES.filter((row) => row.takenBy === takenBy)
  const names = rows.flatMap((row) => row.options)
  if (rows.some((row) => row.generatorOptions)) names.push(...GENERATOR_OPTIONS)
  return [...new Set(names)]
}

/** The options of new FlakeId(), FlakeId.lease() and FlakeId.client(): the docs' tables list these. */
const FLAKE_ID_OPTIONS = optionsOf(given.takenBy)
const LEASE_OPTIONS = optionsOf(lease.takenBy)
const CLIENT_OPTIONS = optionsOf(members.takenBy)

/** The rows serve can run on, in the order its usage lists them. */
const SERVE_SOURCES = SOURCES.filter((row) => row.serve.length > 0)

/** A row's serve flags as a synopsis writes them: `--lease URL --namespace NS`, `--id-from SOURCE [--id-offset N]`. */
const serveSynopsis = (row) =>
  row.serve.map(({ flag, value, optional }) => (optional ? `[--${flag} ${value}]` : `--${flag} ${value}`)).join(' ')

/** The option a serve flag gives a row of new FlakeId(): `idFrom` for `--id-from`. */
const optionOf = (flag) => flag.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase())

module.exports = {
  SOURCES,
  GENERATOR_OPTIONS,
  FLAKE_ID_OPTIONS,
  LEASE_OPTIONS,
  CLIENT_OPTIONS,
  SERVE_SOURCES,
  optionsOf,
  serveSynopsis,
  optionOf,
}

'use strict'
// One cold start, timed from this script's first line: `require` of the package named by
// argv[2] (`ours` or `flake-idgen`), a generator made, its first id. Prints the two times in ms
// and the id, as JSON. Started by cold-start.js, a fresh process each time. `binary` loads the
// binary at argv[3] (process.dlopen) and nothing else: no JS of ours, no id.

const start = process.hrtime.bigint()
const since = () => Number(process.hrtime.bigint() - start) / 1e6
if (process.argv[2] === 'binary') {
  process.dlopen({ exports: {} }, process.argv[3])
  const loaded = since()
  process.stdout.write(JSON.stringify({ required: loaded, first: loaded }))
} else {
  const FlakeId = require(process.argv[2] === 'ours' ? '..' : 'flake-idgen')
  const required = since()
  const id = new FlakeId({ id: 1023 }).next()
  const first = since()
  process.stdout.write(JSON.stringify({ required, first, id: id.toString('hex') }))
}

'use strict'
// One cold start, timed from this script's first line: `require` of the package named by
// argv[2], a generator made, its first id. Prints the two times in ms, the id and where the
// package loaded from, as JSON. Started by cold-start.js, a fresh process each time, from a copy
// of this file beside the node_modules it requires from. `binary` loads the binary at argv[3]
// (process.dlopen) and nothing else: no JS of ours, no id; `empty-with-exports` has no id.

const start = process.hrtime.bigint()
const since = () => Number(process.hrtime.bigint() - start) / 1e6
const name = process.argv[2]
if (name === 'binary') {
  process.dlopen({ exports: {} }, process.argv[3])
  const loaded = since()
  process.stdout.write(JSON.stringify({ required: loaded, first: loaded }))
} else if (name === 'empty-with-exports') {
  require(name)
  const required = since()
  process.stdout.write(JSON.stringify({ required, first: required }))
} else {
  const FlakeId = require(name)
  const required = since()
  const id = new FlakeId({ id: 1023 }).next()
  const first = since()
  const from = require.resolve(name)
  process.stdout.write(JSON.stringify({ required, first, id: id.toString('hex'), from }))
}

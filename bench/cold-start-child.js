'use strict'
// One cold start, timed from this script's first line: `require` of the package named by
// argv[2] (`ours` or `flake-idgen`), a generator made, its first id. Prints the two times in ms
// and the id, as JSON. Started by cold-start.js, a fresh process each time.

const start = process.hrtime.bigint()
const since = () => Number(process.hrtime.bigint() - start) / 1e6
const ours = process.argv[2] === 'ours'
const FlakeId = require(ours ? '..' : 'flake-idgen')
const required = since()
const id = new FlakeId({ id: 1023 }).next()
const first = since()
process.stdout.write(JSON.stringify({ required, first, id: id.toString('hex') }))

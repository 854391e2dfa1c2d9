'use strict'
// `npm run test:node`: every test file, two at a time, the slowest started first. `node --test`
// starts its files in path order, so the slowest (the lease stores' soaks, MariaDB's 3 min in
// leases/lease-on-mariadb.test.js) began late and ran alone for the last minutes while the other
// slot sat idle.
// Started first, they run beside the short files instead. Run with the preloads the test files
// need (`node --require ./__test__/isolate.js __test__/run.js`): each test file's process is
// started with this one's execArgv, as `node --test`'s are.
//
// FLAKE_IDGEN_TEST_TIMES=1 also prints each file's time, slowest first: what SLOWEST is made from.

const fs = require('node:fs')
const path = require('node:path')
const { run } = require('node:test')
const { spec, tap } = require('node:test/reporters')

// The slowest files (FLAKE_IDGEN_TEST_TIMES=1, Node 20), started first, slowest first; every other
// file follows in path order, the other stores' lease-on-*.test.js (under 1 min each) among them.
const SLOWEST = ['leases/lease-on-mariadb.test.js', 'leases/lease-attacks.test.js']

const here = __dirname
const all = fs
  .readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    fs
      .readdirSync(path.join(here, dir.name))
      .filter((name) => /\.test\.m?js$/.test(name))
      .map((name) => `${dir.name}/${name}`),
  )
  .sort()
for (const file of SLOWEST)
  if (!all.includes(file)) throw new Error(`__test__/run.js: SLOWEST names ${file}, which is no test file`)
const files = [...SLOWEST, ...all.filter((file) => !SLOWEST.includes(file))].map((file) => path.join(here, file))

const stream = run({ files, concurrency: 2, timeout: 600_000 })
stream.on('test:fail', () => {
  process.exitCode = 1
})

if (process.env.FLAKE_IDGEN_TEST_TIMES === '1') {
  const times = new Map()
  const count = (event) => {
    const { file, nesting, details } = event
    if (file !== undefined && nesting === 0) times.set(file, (times.get(file) ?? 0) + details.duration_ms)
  }
  stream.on('test:pass', count)
  stream.on('test:fail', count)
  process.on('exit', () => {
    const sorted = [...times].sort((a, b) => b[1] - a[1])
    for (const [file, ms] of sorted) console.error(`${(ms / 1000).toFixed(1)} s  ${path.relative(here, file)}`)
  })
}

// As `node --test` reports: spec to a terminal, TAP to anything else (a CI log).
stream.compose(process.stdout.isTTY ? spec : tap).pipe(process.stdout)

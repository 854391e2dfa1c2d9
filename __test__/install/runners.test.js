'use strict'
// Issue 22: a real Jest and a real Vitest, in each of its pools, run a project's test files
// (__test__/install/fixtures/runners/, each requiring the package) on the package installed in
// it. Jest runs them in one thread (--runInBand), each file with a fresh module registry: a copy
// of the package each, which once failed every file after the first.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFile } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { copyPackage, root } = require('../support/package-copy.js')
const { noServers, startRedis } = require('../support/servers.js')

const fixture = path.join(__dirname, 'fixtures', 'runners')
const files = fs.readdirSync(fixture).filter((file) => file.endsWith('.test.js'))
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js')
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs')

/** A project with the fixture's test files and the package installed; removed after the tests. */
function project(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-runners-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "runners-fixture", "private": true }\n')
  for (const file of files) fs.copyFileSync(path.join(fixture, file), path.join(dir, file))
  copyPackage(dir)
  return dir
}

// A real Redis for the fixture's lease under fake timers, with the client the project would have.
let redis
test.before(async () => {
  if (!noServers) redis = await startRedis()
})
test.after(() => redis?.stop())

/** Runs `args` with Node in `dir`; resolves to the exit code and everything printed. */
function run(dir, args) {
  return new Promise((resolve) => {
    const env = {
      ...process.env,
      CI: 'true',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      FLAKE_TEST_REDIS_URL: redis.url,
      FLAKE_TEST_IOREDIS: path.join(root, 'node_modules', 'ioredis'),
    }
    execFile(process.execPath, args, { cwd: dir, env, timeout: 300_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? error.signal) : 0, output: `${stdout}\n${stderr}` })
    })
  })
}

test('the fixture has at least four test files, one under fake timers', () => {
  assert.ok(files.length >= 4, files.join(', '))
  assert.ok(files.includes('fake-timers.test.js'), files.join(', '))
})

test('Jest runs every test file in one thread, and all pass', { skip: noServers }, async (t) => {
  const dir = project(t)
  const { code, output } = await run(dir, [jest, '--ci', '--runInBand', '--rootDir', dir])
  assert.equal(code, 0, output)
  assert.match(output, new RegExp(`Test Suites: ${files.length} passed, ${files.length} total`), output)
})

for (const pool of ['forks', 'threads', 'vmThreads']) {
  test(`Vitest's ${pool} pool runs every test file, and all pass`, { skip: noServers }, async (t) => {
    const dir = project(t)
    const { code, output } = await run(dir, [vitest, 'run', '--globals', '--pool', pool, '--maxWorkers', '1'])
    assert.equal(code, 0, output)
    assert.match(output, new RegExp(`Test Files +${files.length} passed \\(${files.length}\\)`), output)
  })
}

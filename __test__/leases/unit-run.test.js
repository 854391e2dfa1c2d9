'use strict'
// `npm run test:unit` starts no server: under its preload (FLAKE_IDGEN_UNIT=1) the tests that
// need one are skipped through `noServers`, and a test that starts one without saying so fails,
// naming the fix, so a new server test cannot pass for a unit test. No server starts here.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')

const root = path.join(__dirname, '..', '..')
const { scripts } = require('../../package.json')

/** What servers.js says in a test process of `npm run test:unit`. */
function underUnit() {
  const script = `
    const servers = require(${JSON.stringify(path.join(__dirname, '..', 'support', 'servers.js'))})
    Promise.all([servers.startRedis(), servers.startPostgres(), servers.startMariadb()].map((p) => p.then(() => 'started', (e) => e.message)))
      .then((said) => console.log(JSON.stringify({ noServers: servers.noServers, said })))
  `
  const { status, stdout, stderr } = spawnSync(
    process.execPath,
    ['--require', path.join(root, '__test__', 'unit.js'), '-e', script],
    { encoding: 'utf8', env: { ...process.env, FLAKE_IDGEN_UNIT: '' } },
  )
  assert.equal(status, 0, stderr)
  return JSON.parse(stdout)
}

test('test:unit runs every test file with the preload, and npm test without it', () => {
  assert.match(
    scripts['test:unit'],
    /npm run lint && npm run test:rust && npm run test:node:unit && npm run test:types/,
  )
  const unit = scripts['test:node:unit']
  assert.ok(unit.includes('--require ./__test__/unit.js'), unit)
  assert.equal(unit.replace(' --require ./__test__/unit.js', ''), scripts['test:node'])
  assert.doesNotMatch(scripts.test, /unit/)
})

test('under test:unit, the tests that need a server skip, and a server started anyway fails the test', () => {
  const { noServers, said } = underUnit()
  assert.match(noServers, /test:unit/)
  assert.equal(said.length, 3)
  for (const message of said) {
    assert.notEqual(message, 'started')
    assert.match(message, /`npm run test:unit` starts no server .*\{ skip: noServers \}/)
  }
})

test("a build from source is skipped under test:unit and in .ci/platforms's Node lines, and run by npm test", () => {
  const reason = (env) => {
    const script = `console.log(JSON.stringify(require(${JSON.stringify(path.join(__dirname, '..', 'support', 'unit.js'))}).buildsFromSource))`
    const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      env: { ...process.env, FLAKE_IDGEN_UNIT: '', FLAKE_IDGEN_SOURCE_BUILT: '', ...env },
    })
    assert.equal(status, 0, stderr)
    return JSON.parse(stdout)
  }
  assert.equal(reason({}), false)
  assert.match(reason({ FLAKE_IDGEN_UNIT: '1' }), /test:unit/)
  assert.match(reason({ FLAKE_IDGEN_SOURCE_BUILT: '1' }), /\.ci\/platforms leaves it to `npm test`/)
  const platforms = require('node:fs').readFileSync(path.join(root, '.ci', 'platforms'), 'utf8')
  assert.match(platforms, /FLAKE_IDGEN_SOURCE_BUILT=1 node_tests "node-\$line"/)
})

'use strict'
// Issue 51, item 3, as Jest does it: 1,000 jest.resetModules() in one test file, each followed
// by a load of the package, installed in a project (fixtures/jest-reloads/), grew resident memory
// by 2 to 5 times what flake-idgen's one file grows it by, reloaded the same way in the same run
// (+37 to +184 MB, where flake-idgen's grew it by +20 to +36 MB, Node 20 to 26): each load
// compiled the package's ten files again. Jest's own registries cost the rest.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { copyPackage, root } = require('../support/package-copy.js')

const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js')
const fixture = path.join(__dirname, 'fixtures', 'jest-reloads', 'reloads.test.js')
const LIMIT = 1.5

test(`1,000 of Jest's fresh module registries grow resident memory by < ${LIMIT} × what flake-idgen's do`, {
  skip: process.platform !== 'linux' && "read from Linux's /proc/self/status (RssAnon)",
}, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-jest-reloads-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "jest-reloads-fixture", "private": true }\n')
  fs.copyFileSync(fixture, path.join(dir, 'reloads.test.js'))
  copyPackage(dir)
  const theirs = path.dirname(require.resolve('flake-idgen/package.json'))
  fs.cpSync(theirs, path.join(dir, 'node_modules', 'flake-idgen'), { recursive: true })
  const grown = (name) => {
    const out = path.join(dir, `${name}.json`)
    execFileSync(process.execPath, ['--expose-gc', jest, '--ci', '--runInBand', '--rootDir', dir], {
      cwd: dir,
      env: { ...process.env, CI: 'true', RELOADS_PACKAGE: name, RELOADS_OUT: out },
      stdio: 'pipe',
      timeout: 300_000,
    })
    return JSON.parse(fs.readFileSync(out, 'utf8')).residentMb
  }
  const ours = grown('flake-idgen-rs')
  const flakeIdgen = grown('flake-idgen')
  t.diagnostic(`resident +${ours.toFixed(1)} MB; flake-idgen's: +${flakeIdgen.toFixed(1)} MB`)
  assert.ok(ours < LIMIT * flakeIdgen, `+${ours.toFixed(1)} MB, flake-idgen's +${flakeIdgen.toFixed(1)} MB`)
})

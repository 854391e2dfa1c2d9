'use strict'
// The package's entries (index.js, client.js) are built from lib/, never the other way round: a
// file of lib/ that required an entry would load the realm's bookkeeping and every export with
// it, and an entry that loads it back would get a half-made module.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { createRequire } = require('node:module')

const ROOT = path.join(__dirname, '..', '..')
const ENTRIES = ['index.js', 'client.js']

// The literal specifiers a file loads: require('…'), import('…') and `from '…'`.
const SPECIFIER = /\b(?:require|import)\s*\(\s*(['"`])([^'"`]+)\1\s*\)|\bfrom\s*(['"])([^'"]+)\3/g

/** The .js, .cjs and .mjs files under `dir`, at any depth. */
const sources = (dir) =>
  fs
    .readdirSync(dir, { recursive: true })
    .filter((file) => /\.[cm]?js$/.test(file))
    .map((file) => path.join(dir, file))

/** Each `file: specifier` under `root`/lib that resolves to one of the package's entries. */
function entryRequires(root) {
  // As resolve answers: a temporary folder may be reached through a link (macOS's /var).
  const entries = ENTRIES.map((entry) => path.join(fs.realpathSync(root), entry))
  const found = []
  for (const file of sources(path.join(root, 'lib'))) {
    const resolve = createRequire(file).resolve
    for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const specifier = match[2] ?? match[4]
      if (specifier.startsWith('node:')) continue
      let resolved
      try {
        resolved = resolve(specifier)
      } catch {
        // Not this test's to judge: a missing file fails the tests that load it.
        continue
      }
      if (entries.includes(resolved)) found.push(`${path.relative(root, file)}: ${specifier}`)
    }
  }
  return found
}

test('no file under lib/ requires the package entry (index.js, client.js)', () => {
  assert.ok(sources(path.join(ROOT, 'lib')).length > 10, 'lib/ has its files')
  assert.deepEqual(entryRequires(ROOT), [])
})

test('the check finds an entry required by path, by folder or by the package name', (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-lib-requires-'))
  t.after(() => fs.rmSync(root, { recursive: true, force: true }))
  const { name } = require(path.join(ROOT, 'package.json'))
  const exports = { '.': './index.js', './client': './client.js' }
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name, main: 'index.js', exports }))
  for (const entry of ENTRIES) fs.writeFileSync(path.join(root, entry), '')
  fs.mkdirSync(path.join(root, 'lib', 'cli'), { recursive: true })
  fs.mkdirSync(path.join(root, 'lib', 'lease'))
  fs.writeFileSync(path.join(root, 'lib', 'lease', 'index.js'), '')
  const files = {
    'cli/by-path.js': "const { uuidv7 } = require('../../index.js')",
    'cli/by-folder.js': "const FlakeId = require('../..')",
    'by-name.mjs': `import { FlakeId } from '${name}/client'`,
    'cli/lazily.js': `const load = () => import("${name}")`,
    // lib's own index files are not the entry.
    'own-index.js': "const { lease } = require('./lease/index.js')",
  }
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(root, 'lib', file), `${text}\n`)
  assert.deepEqual(entryRequires(root).sort(), [
    `lib${path.sep}by-name.mjs: ${name}/client`,
    `lib${path.sep}cli${path.sep}by-folder.js: ../..`,
    `lib${path.sep}cli${path.sep}by-path.js: ../../index.js`,
    `lib${path.sep}cli${path.sep}lazily.js: ${name}`,
  ])
})

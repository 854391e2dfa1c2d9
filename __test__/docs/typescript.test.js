'use strict'
// Issue 33, item 6: every TypeScript form the README shows compiles under TypeScript 5.9 and 7
// (both devDependencies: `typescript` and `typescript7`) on default settings, or the README
// names the setting it needs; and the type tests (__test__/types) pass under both.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { linkPackage } = require('../support/package-copy.js')

const ROOT = path.join(__dirname, '..', '..')
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
// TypeScript 7's compiler is a native binary, in a package npm installs for its own platform
// only: node_modules installed elsewhere (CI's Windows run borrows Linux's) lack this one's.
const native = `typescript-${process.platform}-${process.arch}`
const COMPILERS = [
  ['5.9', path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), false],
  [
    '7',
    path.join(ROOT, 'node_modules', 'typescript7', 'bin', 'tsc'),
    !fs.existsSync(path.join(ROOT, 'node_modules', '@typescript', native)) &&
      `TypeScript 7's native compiler, @typescript/${native}, is not installed here`,
  ],
]

// The README's forms, each as the first line of a file that uses what it imported.
const FORMS = {
  require: "import FlakeId = require('flake-idgen-rs')",
  default: "import FlakeId from 'flake-idgen-rs'",
  named: "import { FlakeId } from 'flake-idgen-rs'",
}
const USE = [
  'const options: FlakeId.Options = { worker: 3 }',
  'const id: Buffer = new FlakeId(options).next()',
  'const parts: FlakeId.Parts = FlakeId.decompose(id)',
  "const discord: FlakeId<'discord'> = new FlakeId({ layout: 'discord', worker: 1 })",
  'console.log(parts.worker, discord.id)',
].join('\n')

function tsc(compiler, cwd, args) {
  const { status, stdout, stderr } = spawnSync(process.execPath, [compiler, ...args], { cwd, encoding: 'utf8' })
  return { status, output: `${stdout}${stderr}` }
}

/** A project with this checkout installed, `type` its package.json's, and one file per form. */
function project(t, type) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-ts-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.mkdirSync(path.join(dir, 'node_modules', '@types'), { recursive: true })
  linkPackage(dir, 'flake-idgen-rs')
  // With undici-types, which @types/node imports: a copy of @types/node looks for it here.
  for (const name of ['@types/node', 'undici-types']) linkPackage(dir, name, path.join(ROOT, 'node_modules', name))
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'ts-forms', private: true, type }))
  for (const [name, line] of Object.entries(FORMS)) fs.writeFileSync(path.join(dir, `${name}.ts`), `${line}\n${USE}\n`)
  return dir
}

test('the README shows the three forms, and says what the require form needs', () => {
  for (const line of Object.values(FORMS)) assert.ok(README.includes(`\`${line}\``), line)
  assert.match(README, /`import FlakeId = require\('flake-idgen-rs'\)`[^.]*?needs `"module": "nodenext"`/s)
  assert.match(README, /TS1202/)
})

for (const [version, compiler, skip] of COMPILERS) {
  test(`TypeScript ${version}: the compiler is the one named`, { skip }, () => {
    assert.match(tsc(compiler, ROOT, ['--version']).output, new RegExp(`^Version ${version.replace('.', '\\.')}\\.`))
  })

  test(`TypeScript ${version}: the type tests pass`, { skip }, () => {
    const { status, output } = tsc(compiler, ROOT, ['-p', path.join('__test__', 'types')])
    assert.equal(status, 0, output)
  })

  test(`TypeScript ${version}, no tsconfig: the ES import forms compile`, { skip }, (t) => {
    const dir = project(t, 'module')
    for (const form of ['default', 'named']) {
      const { status, output } = tsc(compiler, dir, ['--noEmit', '--types', 'node', `${form}.ts`])
      assert.equal(status, 0, `${form}: ${output}`)
    }
  })

  test(`TypeScript ${version}, tsc --init's tsconfig: ES imports in an ES module package, the require form in a CommonJS one`, {
    skip,
  }, (t) => {
    for (const [type, forms] of [
      ['module', ['default', 'named']],
      ['commonjs', ['require']],
    ]) {
      const dir = project(t, type)
      assert.equal(tsc(compiler, dir, ['--init']).status, 0)
      // --init's `types: []` keeps @types/node out; the forms use Buffer.
      const config = fs
        .readFileSync(path.join(dir, 'tsconfig.json'), 'utf8')
        .replace('"types": []', '"types": ["node"]')
      for (const form of forms) {
        fs.writeFileSync(path.join(dir, 'tsconfig.json'), config.replace(/\{/, `{ "files": ["${form}.ts"],`))
        const { status, output } = tsc(compiler, dir, ['--noEmit', '-p', '.'])
        assert.equal(status, 0, `${type} ${form}: ${output}`)
      }
    }
  })

  test(`TypeScript ${version}: the require form compiles with the module setting the README names`, { skip }, (t) => {
    const dir = project(t, 'commonjs')
    for (const module of ['nodenext', 'commonjs']) {
      const { status, output } = tsc(compiler, dir, ['--noEmit', '--types', 'node', '--module', module, 'require.ts'])
      assert.equal(status, 0, `${module}: ${output}`)
    }
  })
}

test('TypeScript 7 with no tsconfig compiles to ES modules: there the require form is TS1202, as the README says', {
  skip: COMPILERS[1][2],
}, (t) => {
  const dir = project(t, 'commonjs')
  const { status, output } = tsc(COMPILERS[1][1], dir, ['--noEmit', '--types', 'node', 'require.ts'])
  assert.notEqual(status, 0)
  assert.match(output, /TS1202/)
})

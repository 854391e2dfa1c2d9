'use strict'
// The package as users install it, in empty projects under os.tmpdir(). From the tarballs of
// `npm run pack:local`, the binary comes from the platform package that the main package's
// optionalDependencies name. There the package is required, imported from ESM and compiled
// against with tsc --strict; it replaces flake-idgen under that name; the README's commands for
// the tarballs install it with no install script, and `npm ci` takes the lockfile they leave; it
// names a platform it has no binary for; and installed from a git checkout, it builds its binary
// from source.

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { decode } = require('../support/helpers.js')
const { buildsFromSource } = require('../support/unit.js')

const root = path.join(__dirname, '..', '..')
const { name, version } = require('../../package.json')
const platformPackages = fs.readdirSync(path.join(root, 'npm')).map((dir) => require(`../../npm/${dir}/package.json`))

let work
let mainTarball
let platformTarball
let platform // this machine's platform package.json

function run(file, args, cwd, env) {
  return execFileSync(file, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: file === 'npm' && process.platform === 'win32',
  })
}

function npmInstall(dir, specs, env) {
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], dir, env)
}

/** npm's stderr, where it warns; a failure throws with it. */
function npmWarnings(dir, args) {
  const { status, stderr } = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
  })
  assert.equal(status, 0, `npm ${args.join(' ')} failed:\n${stderr}`)
  return stderr
}

/** An empty project in the work dir, with its package.json and files. */
function project(dir, packageJson, files = {}) {
  const at = path.join(work, dir)
  fs.mkdirSync(at)
  fs.writeFileSync(path.join(at, 'package.json'), JSON.stringify({ name: dir, private: true, ...packageJson }))
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(at, file)), { recursive: true })
    fs.writeFileSync(path.join(at, file), text)
  }
  return at
}

/**
 * A project's package.json fields that stand in for the registry: the platform package, when
 * some package depends on it, comes from its tarball. Nothing installs it but the main
 * package's optionalDependencies.
 */
const registry = () => ({ overrides: { [platform.name]: `file:${platformTarball}` } })

/** Runs a script of the project, which prints one JSON line. */
function report(dir, script, ...args) {
  return JSON.parse(run(process.execPath, [script, ...args], dir))
}

// A consumer's last lines: its ids in hex, whether they were Buffers, the binaries loaded (none
// seen from ESM without a require), and `extra` fields.
const printIds = (extra = '') => `
  const ids = [generator.next(), generator.next(), generator.next()]
  console.log(JSON.stringify({
    ids: ids.map((id) => id.toString('hex')),
    buffers: ids.every((id) => Buffer.isBuffer(id) && id.length === 8),
    binaries: typeof require === 'function' ? Object.keys(require.cache).filter((file) => file.endsWith('.node')) : [],
    ${extra}
  }))
`

/** Ids printed by a consumer started at `since`: increasing 8-byte ids of `generatorId`, now. */
function assertIds(printed, generatorId, since) {
  assert.equal(printed.buffers, true)
  const ids = printed.ids.map((hex) => Buffer.from(hex, 'hex'))
  for (const id of ids) {
    assert.equal(id.length, 8)
    assert.equal(decode(id).id, generatorId)
    assert.ok(decode(id).time >= since && decode(id).time <= Date.now(), 'an id of the system clock')
  }
  for (let i = 1; i < ids.length; i++) assert.ok(Buffer.compare(ids[i - 1], ids[i]) < 0, 'ids increase')
}

/** The binary of this machine's platform package, as installed in a project. */
const platformBinary = (dir) => path.join(dir, 'node_modules', platform.name, platform.main)

function listFiles(dir, prefix = '') {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory() ? listFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`) : [prefix + entry.name],
    )
}

const tsconfig = (compilerOptions, include) =>
  JSON.stringify({
    compilerOptions: {
      strict: true,
      target: 'es2022',
      // The checkout's @types/node: the test fetches nothing but its own tarballs.
      typeRoots: [path.join(root, 'node_modules', '@types')],
      types: ['node'],
      ...compilerOptions,
    },
    include,
  })

function tsc(dir, config) {
  run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], dir)
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-install-`))
  const packed = run(process.execPath, [path.join(root, 'scripts', 'pack-local.js'), path.join(work, 'pack')], root)
  ;[mainTarball, platformTarball] = packed.trim().split('\n')
  platform = platformPackages.find(({ name }) => path.basename(platformTarball) === `${name}-${version}.tgz`)
  assert.ok(platform, `${platformTarball} is the tarball of a package in npm/`)
})

after(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true })
})

test('installed from the tarballs: require, ESM default and named imports, TypeScript', () => {
  const dir = project('app', registry(), {
    'cjs.js': `
      const Module = require('node:module')
      const resolve = Module._resolveFilename
      const failed = []
      Module._resolveFilename = function (request, ...rest) {
        try {
          return resolve.call(this, request, ...rest)
        } catch (error) {
          failed.push(request)
          throw error
        }
      }
      const FlakeId = require('${name}')
      const { FlakeId: Named, default: Default } = require('${name}')
      if (Named !== FlakeId || Default !== FlakeId) throw new Error('not one class')
      const generator = new FlakeId({ datacenter: 3, worker: 5 })
      ${printIds('failed')}`,
    'esm.mjs': `
      import FlakeId, { FlakeId as Named } from '${name}'
      import { createRequire } from 'node:module'
      const require = createRequire(import.meta.url)
      if (Named !== FlakeId || require('${name}') !== FlakeId) throw new Error('not one class')
      const generator = new Named({ id: 1000 })
      ${printIds()}`,
    'ts/require.ts': `
      import FlakeId = require('${name}')
      const options: FlakeId.Options = { worker: '7' }
      const generator = new FlakeId(options)
      ${printIds()}`,
    'ts/default.ts': `
      import FlakeId from '${name}'
      const generator: FlakeId = new FlakeId({ datacenter: 1 })
      ${printIds()}`,
    'ts/named.ts': `
      import { FlakeId, type Options } from '${name}'
      const options: Options = { id: 9 }
      const generator = new FlakeId(options)
      ${printIds()}`,
    'ts/esm.mts': `
      import FlakeId, { FlakeId as Named } from '${name}'
      if (Named !== FlakeId) throw new Error('not one class')
      const generator = new Named({ id: 512 })
      ${printIds()}`,
    // Resolution through package.json `exports`, emitting CommonJS and ESM.
    'tsconfig.json': tsconfig({ module: 'nodenext', outDir: 'out', rootDir: 'ts' }, ['ts']),
    // Resolution through `types`, as older settings have it.
    'tsconfig.node10.json': tsconfig(
      { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, noEmit: true },
      ['ts/*.ts'],
    ),
  })
  npmInstall(dir, [mainTarball])

  // The main package names the platform package packed with it, at its own version, and npm
  // installed it as an optional dependency. Nothing of the checkout's tooling ships: no lifecycle
  // script (a git install's `prepare` would make npm warn on every install), no dev tools.
  const installed = path.join(dir, 'node_modules', name)
  const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'))
  assert.deepEqual(manifest.optionalDependencies, { [platform.name]: version })
  for (const field of ['scripts', 'devDependencies', 'overrides', 'allowScripts'])
    assert.equal(manifest[field], undefined, field)
  const { scripts, devDependencies, overrides, allowScripts, ...own } = require('../../package.json')
  assert.deepEqual({ ...manifest, optionalDependencies: undefined }, { ...own, optionalDependencies: undefined })
  const modules = fs.readdirSync(path.join(dir, 'node_modules')).filter((entry) => !entry.startsWith('.'))
  assert.deepEqual(modules.sort(), [name, platform.name].sort())
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'))
  assert.equal(lock.packages[`node_modules/${platform.name}`].optional, true)

  // The entry points, their types, the generated loader and every module under lib/ and bin/
  // ship with the main package (`files` lists folders, so a new module cannot be left off);
  // the binary ships alone in the platform package. Every relative require of a shipped module
  // names a shipped file: a module that only the checkout has would fail only from the tarball.
  const shipped = listFiles(installed)
  const checkout = ['lib', 'bin'].flatMap((folder) => listFiles(path.join(root, folder), `${folder}/`))
  assert.deepEqual(
    shipped.sort(),
    [
      'README.md',
      'binding.js',
      'client.d.ts',
      'client.js',
      'index.d.ts',
      'index.js',
      'package.json',
      ...checkout,
    ].sort(),
  )
  // binding.js, generated, looks for every platform's binary beside it before the platform package.
  for (const file of shipped.filter((file) => file.endsWith('.js') && file !== 'binding.js')) {
    const source = fs.readFileSync(path.join(installed, file), 'utf8')
    for (const [, , request] of source.matchAll(/require\((['"])(\.{1,2}(?:\/[^'"]*)?)\1\)/g)) {
      const target = path.posix.join(path.posix.dirname(file), request)
      const candidates = [target, `${target}.js`, `${target}/index.js`].map((candidate) =>
        path.posix.normalize(candidate),
      )
      assert.ok(
        candidates.some((candidate) => shipped.includes(candidate)),
        `${file} requires ${request}, which does not ship`,
      )
    }
  }
  const { exports } = manifest
  for (const entry of [
    manifest.main,
    manifest.types,
    ...Object.values(exports['.']),
    ...Object.values(exports['./client']),
    exports['./package.json'],
  ]) {
    assert.ok(shipped.includes(path.normalize(entry)), `${entry} ships`)
  }
  assert.deepEqual(
    listFiles(path.join(dir, 'node_modules', platform.name)).sort(),
    [platform.main, 'README.md', 'package.json'].sort(),
  )

  let since = Date.now()
  const cjs = report(dir, 'cjs.js')
  assertIds(cjs, (3 << 5) | 5, since)
  assert.deepEqual(cjs.binaries, [platformBinary(dir)])
  // No require failed on the way: each costs a fresh process a resolution and an error's stack,
  // as the binary binding.js would look for beside it did (issue 51, item 4).
  assert.deepEqual(cjs.failed, [])
  since = Date.now()
  const esm = report(dir, 'esm.mjs')
  assertIds(esm, 1000, since)
  assert.deepEqual(esm.binaries, [platformBinary(dir)])

  tsc(dir, 'tsconfig.node10.json')
  tsc(dir, 'tsconfig.json')
  for (const [script, generatorId] of [
    ['require.js', 7],
    ['default.js', 1 << 5],
    ['named.js', 9],
    ['esm.mjs', 512],
  ]) {
    since = Date.now()
    assertIds(report(dir, path.join('out', script)), generatorId, since)
  }

  // The command is linked where npm puts the bins of dependencies, under flake-idgen's name and
  // the package's own: the one `npx flake-idgen-rs` finds outside a project.
  for (const name of ['flake-idgen', 'flake-idgen-rs']) {
    const bin = path.join(dir, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name)
    since = Date.now()
    const printed = run(bin, ['-n', '3', '--format', 'hex', '--id', '77'], dir, {}).trim().split('\n')
    assertIds({ buffers: true, ids: printed }, 77, since)
  }
})

test('`npm install flake-idgen@npm:flake-idgen-rs`: code written for flake-idgen runs on this package', () => {
  const dir = project(
    'legacy',
    { dependencies: { 'flake-idgen': '^1.4.0' }, ...registry() },
    {
      'app.js': `
      const FlakeId = require('flake-idgen')
      const generator = new FlakeId({ datacenter: 2, worker: 9 })
      let refused
      try {
        new FlakeId({ worker: 32 }) // flake-idgen takes it for worker 0
      } catch (error) {
        refused = error.code
      }
      ${printIds("refused, name: require('flake-idgen/package.json').name,")}`,
      'legacy.ts': `
      import FlakeId = require('flake-idgen')
      const generator = new FlakeId({ worker: 1, clock: () => Date.now() })
      const id: Buffer = generator.next()
      void id`,
      'tsconfig.json': tsconfig({ module: 'nodenext', noEmit: true }, ['legacy.ts']),
    },
  )
  // The README's `npm install flake-idgen@npm:flake-idgen-rs`, from the tarball.
  npmInstall(dir, [`flake-idgen@file:${mainTarball}`])

  const { dependencies } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  assert.deepEqual(Object.keys(dependencies), ['flake-idgen'])
  assert.match(dependencies['flake-idgen'], new RegExp(`^file:.*${path.basename(mainTarball)}$`))
  const since = Date.now()
  const app = report(dir, 'app.js')
  assertIds(app, (2 << 5) | 9, since)
  assert.equal(app.name, name)
  assert.equal(app.refused, 'ERR_FLAKE_INVALID_OPTION')
  assert.deepEqual(app.binaries, [platformBinary(dir)])
  // With no @types/flake-idgen, `--strict` needs this package's types: `clock` is in them.
  tsc(dir, 'tsconfig.json')
})

test("the README's commands for the tarballs: no install script, and `npm ci` takes the lockfile", () => {
  const commands = [
    ['plain', [mainTarball, platformTarball], name],
    ['alias', [`flake-idgen@file:${mainTarball}`, platformTarball], 'flake-idgen'],
  ]
  for (const [dir, specs, required] of commands) {
    const at = project(
      `readme-${dir}`,
      {},
      {
        'app.js': `
        const FlakeId = require('${required}')
        const generator = new FlakeId({ id: 300 })
        ${printIds()}`,
      },
    )
    const warnings = npmWarnings(at, ['install', ...specs])
    assert.doesNotMatch(warnings, /install-scripts|EBADENGINE/, `npm install ${specs.join(' ')} warned`)

    // From the lockfile alone, as CI installs: npm ci checks that it names every dependency.
    fs.rmSync(path.join(at, 'node_modules'), { recursive: true })
    npmWarnings(at, ['ci'])
    const since = Date.now()
    const app = report(at, 'app.js')
    assertIds(app, 300, since)
    assert.deepEqual(app.binaries, [platformBinary(at)])
  }
})

test('a platform with no binary: the error names it and the packages looked for', () => {
  const dir = project('elsewhere', registry(), {
    'other-platform.js': `
      const [platform, arch] = process.argv.slice(2)
      Object.defineProperty(process, 'platform', { value: platform })
      Object.defineProperty(process, 'arch', { value: arch })
      try {
        require('${name}')
        console.log('{}')
      } catch (error) {
        let causes = ''
        for (let cause = error.cause; cause; cause = cause.cause) causes += cause.message + '\\n'
        console.log(JSON.stringify({ message: error.message, code: error.code, causes }))
      }`,
  })
  npmInstall(dir, [mainTarball])

  const cases = [
    // napi-rs knows it; no package is published for it.
    ['freebsd', 'x64', [`${name}-freebsd-x64`]],
    // Published, but not installed: as when npm skips an optional package (npm/cli#4828).
    ['darwin', 'arm64', [`${name}-darwin-arm64`]],
    // napi-rs does not know it: it looks for the WASI fallback only.
    ['aix', 'ppc64', [`${name}-wasm32-wasi`]],
  ]
  for (const [platform, arch, packages] of cases) {
    const { message, code, causes } = report(dir, 'other-platform.js', platform, arch)
    assert.equal(code, 'ERR_FLAKE_NO_NATIVE_BINARY')
    assert.ok(message.includes(` ${platform}-${arch} `), message)
    for (const looked of packages) {
      assert.ok(message.includes(looked), `${message} names ${looked}`)
      assert.ok(causes.includes(`Cannot find module '${looked}'`), 'the loader error is the cause')
    }
  }
})

test('an install from a git checkout builds the binary from source', { skip: buildsFromSource }, (t) => {
  let checkout
  try {
    checkout = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root)
  } catch {
    return t.skip('not a git checkout')
  }
  // The working tree, committed to a repository of its own, so that uncommitted changes are
  // tested too: what a clone would hold once they are committed.
  const repo = path.join(work, 'repo')
  for (const file of checkout.split('\0')) {
    if (file === '' || !fs.existsSync(path.join(root, file))) continue
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true })
    fs.copyFileSync(path.join(root, file), path.join(repo, file))
  }
  const git = (...args) => run('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], repo)
  git('init', '--quiet')
  git('add', '--all')
  git('commit', '--quiet', '--no-gpg-sign', '--message', 'working tree')

  const dir = project(
    'from-git',
    { allowScripts: { [name]: true } },
    {
      'app.js': `
      const FlakeId = require('${name}')
      const generator = new FlakeId({ id: 77 })
      ${printIds()}`,
    },
  )
  // npm 12 refuses git dependencies without `--allow-git`, and their scripts without
  // `allowScripts`. The build gets a cache of its own: the clone's crate is at another path,
  // and its build must not replace the checkout's in target/release.
  npmInstall(dir, ['--allow-git=all', `git+${pathToFileURL(repo).href}`], {
    CARGO_TARGET_DIR: path.join(root, 'target', 'git-install'),
  })

  const since = Date.now()
  const app = report(dir, 'app.js')
  assertIds(app, 77, since)
  // Next to the loader, where `napi build --platform` left it: the file named as the platform
  // package's.
  assert.deepEqual(app.binaries, [path.join(dir, 'node_modules', name, platform.main)])
})

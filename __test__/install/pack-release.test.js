'use strict'
// `npm run pack:release` writes every tarball the release publishes (the release workflow
// publishes them: release.test.js; .ci/registry installs them from a local registry). Run here on
// a copy of the checkout with stand-in binaries (no build): a platform package is packed with the
// `os`, `cpu` and `libc` of its npm/<platform>/ directory and its binary, a target without one is
// left out saying so (an error with --all), and the main package names every target.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const root = path.join(__dirname, '..', '..')
const packageJson = require('../../package.json')
const { binaryName, packageName, targets } = packageJson.napi
const allTargets = require('../support/targets.js')
const abiOf = (triple) => [...allTargets, allTargets.wasm].find((target) => target.triple === triple).abi

/** The checkout as committed, with its dev tools: no build output, no target/platforms. */
function checkout(work) {
  const repo = path.join(work, 'repo')
  for (const file of execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0')) {
    if (file === '' || !fs.existsSync(path.join(root, file))) continue
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true })
    fs.copyFileSync(path.join(root, file), path.join(repo, file))
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(repo, 'node_modules'), 'dir')
  return repo
}

/** The package.json and file list of a tarball. */
function unpack(tarball) {
  const dir = fs.mkdtempSync(`${tarball}-`)
  execFileSync('tar', ['xzf', tarball, '-C', dir])
  const pkg = path.join(dir, 'package')
  return {
    dir: pkg,
    manifest: JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')),
    files: fs.readdirSync(pkg),
  }
}

test('pack:release packs each platform package that has its binary, and a main package naming every target', (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `${packageName}-pack-release-`))
  t.after(() => fs.rmSync(work, { recursive: true, force: true }))
  const repo = checkout(work)
  const binaries = path.join(work, 'binaries')
  fs.mkdirSync(binaries)
  // The native ones: the WebAssembly package's files are a module and its loaders (no stand-in
  // here), so it is left out too, as any target without its files.
  const [left, ...present] = targets.filter((triple) => triple !== allTargets.wasm.triple)
  for (const triple of present) {
    fs.writeFileSync(path.join(binaries, `${binaryName}.${abiOf(triple)}.node`), `binary of ${triple}`)
  }
  const script = path.join(repo, 'scripts', 'pack-release.js')
  const run = (...args) =>
    spawnSync(process.execPath, [script, path.join(work, 'out'), '--no-build', '--binaries', binaries, ...args], {
      cwd: repo,
      encoding: 'utf8',
    })

  // --all: the release, which publishes every target or nothing.
  const all = run('--all')
  assert.notEqual(all.status, 0)
  assert.match(all.stderr, new RegExp(`${packageName}-${abiOf(left)}: no ${binaryName}\\.${abiOf(left)}\\.node here`))

  const { status, stdout, stderr } = run()
  assert.equal(status, 0, stderr)
  assert.match(stderr, new RegExp(`${packageName}-${abiOf(left)}: .* not packed`))
  const tarballs = stdout.trim().split('\n')
  assert.equal(tarballs.length, present.length + 1)

  const main = unpack(tarballs[0])
  assert.equal(main.manifest.name, packageName)
  assert.deepEqual(
    main.manifest.optionalDependencies,
    Object.fromEntries(targets.map((triple) => [`${packageName}-${abiOf(triple)}`, packageJson.version])),
  )
  for (const field of ['scripts', 'devDependencies', 'overrides', 'allowScripts'])
    assert.equal(main.manifest[field], undefined, field)
  assert.ok(!main.files.some((file) => file.endsWith('.node')), main.files.join(', '))

  for (const [i, triple] of present.entries()) {
    const abi = abiOf(triple)
    const { dir: unpacked, manifest, files } = unpack(tarballs[i + 1])
    const dir = JSON.parse(fs.readFileSync(path.join(root, 'npm', abi, 'package.json'), 'utf8'))
    assert.equal(manifest.name, `${packageName}-${abi}`)
    assert.equal(manifest.version, packageJson.version)
    for (const field of ['os', 'cpu', 'libc', 'main']) assert.deepEqual(manifest[field], dir[field], `${abi} ${field}`)
    assert.deepEqual(files.sort(), ['README.md', `${binaryName}.${abi}.node`, 'package.json'].sort())
    assert.equal(fs.readFileSync(path.join(unpacked, `${binaryName}.${abi}.node`), 'utf8'), `binary of ${triple}`)
  }
})

// Issue 50: after `npm run build:wasm`, whose files are left in the checkout, pack:release packed
// the WebAssembly package only when given `--binaries .`, which nothing documented.
test('pack:release packs the WebAssembly package from the checkout, where `npm run build:wasm` leaves it', (t) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `${packageName}-pack-release-wasm-`))
  t.after(() => fs.rmSync(work, { recursive: true, force: true }))
  const repo = checkout(work)
  const wasm = JSON.parse(fs.readFileSync(path.join(root, 'npm', 'wasm32-wasi', 'package.json'), 'utf8'))
  for (const file of wasm.files) fs.writeFileSync(path.join(repo, file), `${file} of the build`)
  const { status, stdout, stderr } = spawnSync(
    process.execPath,
    [path.join(repo, 'scripts', 'pack-release.js'), path.join(work, 'out'), '--no-build'],
    { cwd: repo, encoding: 'utf8' },
  )
  assert.equal(status, 0, stderr)
  const tarball = stdout
    .trim()
    .split('\n')
    .find((file) => path.basename(file) === `${wasm.name}-${packageJson.version}.tgz`)
  assert.ok(tarball, `no ${wasm.name} among what it packed:\n${stdout}\n${stderr}`)
  const { dir: unpacked, manifest, files } = unpack(tarball)
  // As napi pre-publish stages it beside native targets: installed where npm is asked for wasm32.
  assert.deepEqual(manifest.cpu, ['wasm32'])
  assert.deepEqual(files.sort(), ['README.md', 'package.json', ...wasm.files].sort())
  for (const file of wasm.files)
    assert.equal(fs.readFileSync(path.join(unpacked, file), 'utf8'), `${file} of the build`)
})

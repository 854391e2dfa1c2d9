#!/usr/bin/env node
'use strict'

// `npm run pack:release -- <dir> [--all] [--no-build] [--binaries <dir>]...` writes to <dir> every
// tarball the release publishes, as the release workflow publishes them:
// - the main package (scripts/stage-main.js), with `optionalDependencies` on every target of
//   napi.targets at this version, as `napi pre-publish` writes them (the WebAssembly package too,
//   unless napi.wasm.optionalDependency is false);
// - each platform package (npm/<platform>/, as `napi create-npm-dirs` made it, with the `os`,
//   `cpu` and `libc` it has there) whose files exist here, at the main package's version; the
//   WebAssembly one with `cpu: ["wasm32"]`, as `napi pre-publish` stages it.
// A platform package's files (its package.json `files`: the binary, or the .wasm and its loaders)
// are looked for, in this order, in: this machine's release build (made here, as `npm run build`
// makes it, unless --no-build), each --binaries <dir>, the checkout for the WebAssembly package
// (where `npm run build:wasm` leaves it; a .node there may be a debug build), each
// target/platforms/<step>/ that .ci/platforms cross-builds into, and npm/<platform>/ (where
// `napi artifacts` puts the release workflow's). With --all a target without its files is an
// error (the release); without, it is left out, saying so.
// Prints the tarballs' paths, the main package first; everything else goes to stderr.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { readNapiConfig } = require('@napi-rs/cli')
const { stageMain } = require('./stage-main.js')

const root = path.join(__dirname, '..')

function npm(args, cwd) {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    shell: process.platform === 'win32',
  })
}

/** `npm pack` of dir into out, with the lifecycle scripts off: nothing is built from a stage. */
function pack(dir, out) {
  const [{ filename }] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', out], dir))
  return path.join(out, filename)
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'))
}

/** Every target's npm/<platform>/package.json, which a publish needs at the main package's version. */
function platformManifests({ targets, packageName }, version) {
  return targets.map((target) => {
    const file = path.join(root, 'npm', target.platformArchABI, 'package.json')
    const expected = `${packageName}-${target.platformArchABI}@${version}`
    const found = fs.existsSync(file) ? readJson(file) : undefined
    if (found === undefined || `${found.name}@${found.version}` !== expected) {
      throw new Error(
        `${path.relative(root, file)}: expected ${expected}, found ${found ? `${found.name}@${found.version}` : 'none'}; ` +
          'run `napi create-npm-dirs` or `napi version`',
      )
    }
    return { target, dir: path.dirname(file), manifest: found }
  })
}

/** This machine's release binary, built into dir as `npm run build` builds it; returns dir. */
function buildHere(dir) {
  const cliDir = path.dirname(require.resolve('@napi-rs/cli/package.json'))
  const napi = path.join(cliDir, require('@napi-rs/cli/package.json').bin.napi)
  execFileSync(process.execPath, [napi, 'build', '--platform', '--release', '--no-js', '--output-dir', dir], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  })
  return dir
}

/** The `optionalDependencies` `napi pre-publish` writes: the package.json's own, and every target's. */
function optionalDependencies({ targets, packageName, wasm }, packageJson) {
  const found = { ...packageJson.optionalDependencies }
  for (const { platform, platformArchABI } of targets) {
    if (platform === 'wasi' && wasm?.optionalDependency === false) continue
    found[`${packageName}-${platformArchABI}`] = packageJson.version
  }
  return found
}

/** The platform package's manifest as `napi pre-publish` stages it. */
function publishedManifest(manifest, { targets, wasm }, target, version) {
  const published = { ...manifest, version }
  if (target.arch === 'wasm32') {
    // napi's wasiPackageCpu: a fallback beside native targets, installed only when asked for.
    const only = targets.every(({ platform }) => platform === 'wasi')
    if (only || wasm?.cpu === false) delete published.cpu
    else published.cpu = ['wasm32']
  }
  return published
}

function parseArgs(argv) {
  const options = { out: undefined, all: false, build: true, binaries: [] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--all') options.all = true
    else if (arg === '--no-build') options.build = false
    else if (arg === '--binaries' && i + 1 < argv.length) options.binaries.push(path.resolve(argv[++i]))
    else if (!arg.startsWith('-') && options.out === undefined) options.out = path.resolve(arg)
    else
      throw new Error(
        `unknown argument ${arg}: usage: pack-release.js <dir> [--all] [--no-build] [--binaries <dir>]...`,
      )
  }
  options.out ??= path.join(root, 'pack')
  return options
}

/** target/platforms/<step>/, not the test trees (tree-*), whose binaries carry other names. */
function crossBuilds() {
  const dir = path.join(root, 'target', 'platforms')
  if (!fs.existsSync(dir)) return []
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('tree-'))
    .map((entry) => path.join(dir, entry.name))
}

async function packRelease(options) {
  const packageJson = readJson(path.join(root, 'package.json'))
  const config = await readNapiConfig(path.join(root, 'package.json'))
  const platforms = platformManifests(config, packageJson.version)

  const stage = fs.mkdtempSync(path.join(os.tmpdir(), `${config.packageName}-release-`))
  try {
    const built = options.build ? buildHere(path.join(stage, 'build')) : undefined
    const given = [...(built ? [built] : []), ...options.binaries]
    const cross = crossBuilds()
    const packages = []
    for (const { target, dir, manifest } of platforms) {
      const files = manifest.files ?? []
      const checkout = target.arch === 'wasm32' ? [root] : []
      const sources = [...given, ...checkout, ...cross, dir]
      const source = sources.find(
        (candidate) => files.length > 0 && files.every((file) => fs.existsSync(path.join(candidate, file))),
      )
      if (source === undefined) {
        const message = `${manifest.name}: no ${files.join(', ')} here`
        if (options.all) throw new Error(`${message}: --all packs every target`)
        console.error(`${message}: not packed`)
        continue
      }
      const staged = path.join(stage, target.platformArchABI)
      fs.cpSync(dir, staged, { recursive: true })
      for (const file of files) fs.copyFileSync(path.join(source, file), path.join(staged, file))
      const published = publishedManifest(manifest, config, target, packageJson.version)
      fs.writeFileSync(path.join(staged, 'package.json'), `${JSON.stringify(published, null, 2)}\n`)
      const from = source === built ? 'the build here' : source === root ? 'the checkout' : path.relative(root, source)
      console.error(`${manifest.name}: ${files.join(', ')} from ${from}`)
      packages.push(staged)
    }

    const main = path.join(stage, 'main')
    stageMain(main, optionalDependencies(config, packageJson))

    fs.mkdirSync(options.out, { recursive: true })
    for (const file of fs.readdirSync(options.out)) {
      if (file.startsWith(`${config.packageName}-`) && file.endsWith('.tgz')) fs.rmSync(path.join(options.out, file))
    }
    return [pack(main, options.out), ...packages.map((dir) => pack(dir, options.out))]
  } finally {
    fs.rmSync(stage, { recursive: true, force: true })
  }
}

module.exports = { buildHere, optionalDependencies, pack, platformManifests, packRelease }

if (require.main === module) {
  packRelease(parseArgs(process.argv.slice(2)))
    .then((tarballs) => {
      for (const tarball of tarballs) console.log(tarball)
    })
    .catch((error) => {
      console.error(error)
      process.exitCode = 1
    })
}

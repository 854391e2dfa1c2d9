#!/usr/bin/env node
'use strict'

// `npm run pack:local [-- <dir>] [--wasm]` writes to <dir> (default pack/) the two tarballs that
// `npm install flake-idgen-rs` fetches on this machine once published:
// - the main package, without a binary, lifecycle scripts or dev tools (scripts/stage-main.js),
//   with `optionalDependencies` on the platform package packed with it only. `napi pre-publish`
//   names every target there at publish time; here the others exist nowhere, npm leaves them out
//   of a project's lockfile, and `npm ci` then refuses the lockfile as out of sync;
// - this platform's package (npm/<platform>/, as `napi create-npm-dirs` made it) with the release
//   binary built here.
// With --wasm, the WebAssembly package in its place: its .wasm and loaders as `npm run build:wasm`
// left them in the checkout (nothing is built), and no `cpu`. The published one has
// `cpu: ["wasm32"]` (napi-rs's fallback, installed only where npm is asked for wasm32), which npm
// checks against `--cpu` only for an optional dependency: a tarball installed by path is a direct
// one, refused as EBADPLATFORM whatever `--cpu` says, and every later install of the project
// would need --force.
// (`npm run pack:release` writes every tarball of the release.)
// Prints the two tarball paths, main package first; everything else goes to stderr.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { readNapiConfig } = require('@napi-rs/cli')
const { buildHere, pack, platformManifests } = require('./pack-release.js')
const { stageMain } = require('./stage-main.js')

const root = path.join(__dirname, '..')
const USAGE = 'usage: pack-local.js [<dir>] [--wasm]'

function parseArgs(argv) {
  const options = { out: undefined, wasm: false }
  for (const arg of argv) {
    if (arg === '--wasm') options.wasm = true
    else if (!arg.startsWith('-') && options.out === undefined) options.out = path.resolve(arg)
    else throw new Error(`unknown argument ${arg}: ${USAGE}`)
  }
  options.out ??= path.join(root, 'pack')
  return options
}

/** This platform's package, with the binary built into the stage; returns its files' directory. */
function nativePackage(stage, { targets, binaryName }) {
  // The same build as `npm run build` (cargo finds it up to date when it is), into the stage:
  // the checkout's binary, loader and types stay as they are.
  const built = buildHere(path.join(stage, 'build'))
  const binaries = fs.readdirSync(built).filter((file) => file.endsWith('.node'))
  const target = targets.find(({ platformArchABI }) => binaries[0] === `${binaryName}.${platformArchABI}.node`)
  if (binaries.length !== 1 || target === undefined) {
    throw new Error(`built ${binaries.join(', ')}, which is not the binary of one of napi.targets`)
  }
  return { target, from: built, remove: [] }
}

/** The WebAssembly package, its files from the checkout, where `npm run build:wasm` writes them. */
function wasmPackage({ targets }) {
  const target = targets.find(({ platform }) => platform === 'wasi')
  if (target === undefined) throw new Error('napi.targets has no WebAssembly target')
  return { target, from: root, remove: ['cpu'] }
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const config = await readNapiConfig(path.join(root, 'package.json'))
  const { packageName } = config

  // A publish needs every target's package, at the main package's version.
  const manifests = platformManifests(config, packageJson.version)

  const stage = fs.mkdtempSync(path.join(os.tmpdir(), `${packageName}-pack-`))
  try {
    const { target, from, remove } = options.wasm ? wasmPackage(config) : nativePackage(stage, config)
    const { dir, manifest } = manifests.find((found) => found.target === target)
    const files = manifest.files ?? []
    const missing = files.filter((file) => !fs.existsSync(path.join(from, file)))
    if (missing.length > 0) {
      throw new Error(`${manifest.name}: no ${missing.join(', ')} in ${from}: run \`npm run build:wasm\` first`)
    }

    const main = path.join(stage, 'main')
    stageMain(main, { [manifest.name]: packageJson.version })

    const platform = path.join(stage, target.platformArchABI)
    fs.cpSync(dir, platform, { recursive: true })
    for (const file of files) fs.copyFileSync(path.join(from, file), path.join(platform, file))
    const packed = { ...manifest }
    for (const field of remove) delete packed[field]
    fs.writeFileSync(path.join(platform, 'package.json'), `${JSON.stringify(packed, null, 2)}\n`)

    fs.mkdirSync(options.out, { recursive: true })
    for (const file of fs.readdirSync(options.out)) {
      if (file.startsWith(`${packageName}-`) && file.endsWith('.tgz')) fs.rmSync(path.join(options.out, file))
    }
    console.log(pack(main, options.out))
    console.log(pack(platform, options.out))
  } finally {
    fs.rmSync(stage, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})

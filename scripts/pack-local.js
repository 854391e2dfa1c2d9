#!/usr/bin/env node
'use strict'

// `npm run pack:local [-- <dir>]` writes to <dir> (default pack/) the two tarballs that
// `npm install flake-idgen-rs` fetches on this machine once published:
// - the main package, without a binary, lifecycle scripts or dev tools (scripts/stage-main.js),
//   with `optionalDependencies` on this platform's package only. `napi pre-publish` names every
//   target there at publish time; here the other five exist nowhere, npm leaves them out of a
//   project's lockfile, and `npm ci` then refuses the lockfile as out of sync;
// - this platform's package (npm/<platform>/, as `napi create-npm-dirs` made it) with the release
//   binary built here.
// (`npm run pack:release` writes every tarball of the release.)
// Prints the two tarball paths, main package first; everything else goes to stderr.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { readNapiConfig } = require('@napi-rs/cli')
const { buildHere, pack, platformManifests } = require('./pack-release.js')
const { stageMain } = require('./stage-main.js')

const root = path.join(__dirname, '..')

async function main() {
  const out = path.resolve(process.argv[2] ?? path.join(root, 'pack'))
  const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const { targets, packageName, binaryName } = await readNapiConfig(path.join(root, 'package.json'))

  // A publish needs every target's package, at the main package's version.
  platformManifests({ targets, packageName }, packageJson.version)

  const stage = fs.mkdtempSync(path.join(os.tmpdir(), `${packageName}-pack-`))
  try {
    // The same build as `npm run build` (cargo finds it up to date when it is), into the stage:
    // the checkout's binary, loader and types stay as they are.
    const built = buildHere(path.join(stage, 'build'))
    const binaries = fs.readdirSync(built).filter((file) => file.endsWith('.node'))
    const platform = targets.find(({ platformArchABI }) => binaries[0] === `${binaryName}.${platformArchABI}.node`)
    if (binaries.length !== 1 || platform === undefined) {
      throw new Error(`built ${binaries.join(', ')}, which is not the binary of one of napi.targets`)
    }

    const main = path.join(stage, 'main')
    stageMain(main, { [`${packageName}-${platform.platformArchABI}`]: packageJson.version })

    const native = path.join(stage, platform.platformArchABI)
    fs.cpSync(path.join(root, 'npm', platform.platformArchABI), native, { recursive: true })
    fs.copyFileSync(path.join(built, binaries[0]), path.join(native, binaries[0]))

    fs.mkdirSync(out, { recursive: true })
    for (const file of fs.readdirSync(out)) {
      if (file.startsWith(`${packageName}-`) && file.endsWith('.tgz')) fs.rmSync(path.join(out, file))
    }
    console.log(pack(main, out))
    console.log(pack(native, out))
  } finally {
    fs.rmSync(stage, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})

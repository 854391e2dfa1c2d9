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
// Prints the two tarball paths, main package first; everything else goes to stderr.

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

async function main() {
  const out = path.resolve(process.argv[2] ?? path.join(root, 'pack'))
  const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const { targets, packageName, binaryName } = await readNapiConfig(path.join(root, 'package.json'))

  // A publish needs every target's package, at the main package's version.
  for (const { platformArchABI } of targets) {
    const file = path.join(root, 'npm', platformArchABI, 'package.json')
    const expected = `${packageName}-${platformArchABI}@${packageJson.version}`
    const found = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined
    if (found === undefined || `${found.name}@${found.version}` !== expected) {
      throw new Error(
        `${path.relative(root, file)}: expected ${expected}, found ${found ? `${found.name}@${found.version}` : 'none'}; ` +
          'run `napi create-npm-dirs` or `napi version`',
      )
    }
  }

  const stage = fs.mkdtempSync(path.join(os.tmpdir(), `${packageName}-pack-`))
  try {
    // The same build as `npm run build` (cargo finds it up to date when it is), into the stage:
    // the checkout's binary, loader and types stay as they are.
    const built = path.join(stage, 'build')
    const cliDir = path.dirname(require.resolve('@napi-rs/cli/package.json'))
    const napi = path.join(cliDir, require('@napi-rs/cli/package.json').bin.napi)
    execFileSync(process.execPath, [napi, 'build', '--platform', '--release', '--no-js', '--output-dir', built], {
      cwd: root,
      stdio: ['ignore', 2, 2],
    })
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

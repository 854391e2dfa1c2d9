#!/usr/bin/env node
'use strict'

// `npm run pack:local [-- <dir>]` writes to <dir> (default pack/) the two tarballs that
// `npm install flake-idgen-rs` fetches on this machine once published:
// - the main package, without a binary, with `optionalDependencies` on every platform package of
//   `napi.targets` at its own version: what `napi pre-publish` adds to package.json at publish
//   time (it is not committed, so a checkout never fetches prebuilt binaries);
// - this platform's package (npm/<platform>/, as `napi create-npm-dirs` made it) with the release
//   binary built here.
// Prints the two tarball paths, main package first; everything else goes to stderr.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { readNapiConfig } = require('@napi-rs/cli')

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

    // The main package: the files npm would pack from the checkout, less the binary it builds
    // for installs from git, which the platform packages carry instead.
    const main = path.join(stage, 'main')
    const [{ files }] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root))
    for (const { path: file } of files) {
      if (file.endsWith('.node')) continue
      fs.mkdirSync(path.dirname(path.join(main, file)), { recursive: true })
      fs.copyFileSync(path.join(root, file), path.join(main, file))
    }
    const optionalDependencies = { ...packageJson.optionalDependencies }
    for (const { platformArchABI } of targets) {
      optionalDependencies[`${packageName}-${platformArchABI}`] = packageJson.version
    }
    fs.writeFileSync(
      path.join(main, 'package.json'),
      `${JSON.stringify({ ...packageJson, optionalDependencies }, null, 2)}\n`,
    )

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

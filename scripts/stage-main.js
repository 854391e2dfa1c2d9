#!/usr/bin/env node
'use strict'

// The main package as it is published, staged in a directory of its own: the files npm packs from
// the checkout, less any binary (the platform packages carry those), and a package.json without
// what only a checkout uses. The checkout keeps `prepare`, so that an install from git builds the
// binary; a published tarball with it makes npm warn about install scripts on every install, and
// asks projects that allow scripts package by package to review one that never runs.
//
// `npm run pack:release` (which the release workflow publishes) stages through `stageMain` with
// every target's platform package, `npm run pack:local` with this machine's only.
// `node scripts/stage-main.js <dir>` stages it after `napi pre-publish`, whose
// `optionalDependencies` on every target it requires.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')

/** Writes the main package, naming these optional dependencies, into dir (new or empty). */
function stageMain(dir, optionalDependencies) {
  const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const [{ files }] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      shell: process.platform === 'win32',
    }),
  )
  for (const { path: file } of files) {
    if (file.endsWith('.node') || file === 'package.json') continue
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.copyFileSync(path.join(root, file), path.join(dir, file))
  }
  // No scripts, no dev tools: the overrides and the install scripts allowed are the dev tools' too.
  const { scripts, devDependencies, overrides, allowScripts, ...published } = packageJson
  const manifest = { ...published, optionalDependencies }
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  return manifest
}

async function main() {
  const dir = process.argv[2]
  if (!dir) throw new Error('usage: node scripts/stage-main.js <dir>')
  const { readNapiConfig } = require('@napi-rs/cli')
  const { packageJson, targets, packageName } = await readNapiConfig(path.join(root, 'package.json'))
  // A main package that names fewer platforms than napi.targets would leave users of the others
  // with no binary and no error at install.
  const expected = Object.fromEntries(
    targets.map(({ platformArchABI }) => [`${packageName}-${platformArchABI}`, packageJson.version]),
  )
  const found = packageJson.optionalDependencies ?? {}
  for (const [name, version] of Object.entries(expected)) {
    if (found[name] !== version) {
      throw new Error(
        `package.json has no optionalDependencies["${name}"] = "${version}": run \`napi pre-publish\` first`,
      )
    }
  }
  fs.mkdirSync(dir, { recursive: true })
  if (fs.readdirSync(dir).length > 0) throw new Error(`${dir} is not empty`)
  stageMain(dir, found)
  console.log(path.resolve(dir))
}

module.exports = { stageMain }

if (require.main === module) {
  main().catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
}

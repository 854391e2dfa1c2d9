'use strict'
// The package as npm installs it into a project, made by copying this checkout: what
// package.json's `files` lists, with this machine's binary beside it (the layout of a build
// from source). For tests that need the package under node_modules, or twice.

const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..', '..')

/** Copies the package into `dir`/node_modules/`name`; returns that directory. */
function copyPackage(dir, name = 'flake-idgen-rs') {
  const into = path.join(dir, 'node_modules', name)
  const { files } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))
  const binaries = fs.readdirSync(root).filter((entry) => /^flake-idgen-rs\..+\.node$/.test(entry))
  const listed = files.filter((entry) => !entry.includes('*')).map((entry) => entry.replace(/\/$/, ''))
  for (const entry of ['package.json', ...listed, ...binaries]) {
    fs.cpSync(path.join(root, entry), path.join(into, entry), { recursive: true })
  }
  return into
}

module.exports = { copyPackage, root }

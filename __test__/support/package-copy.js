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

/**
 * Installs `from` (this checkout, or a package of its node_modules) into `dir`/node_modules/`name`
 * as a link, a junction (which Windows makes without a privilege); where the file system makes
 * none (Wine 8 answers ENOTSUP, real Windows does not), as a copy: this checkout as
 * `copyPackage` makes it, a package whole. Returns that directory.
 */
function linkPackage(dir, name, from = root) {
  const into = path.join(dir, 'node_modules', name)
  try {
    fs.symlinkSync(from, into, 'junction')
  } catch (error) {
    if (error.code !== 'ENOTSUP') throw error
    if (from === root) return copyPackage(dir, name)
    fs.cpSync(from, into, { recursive: true })
  }
  return into
}

module.exports = { copyPackage, linkPackage, root }

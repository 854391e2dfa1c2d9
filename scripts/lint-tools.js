#!/usr/bin/env node
'use strict'

// `npm test` and `npm run test:unit` lint the workflows with actionlint and shellcheck
// (__test__/install/release.test.js), which a newcomer's machine does not have. Run before the
// tests (`pretest`, `pretest:unit`), this installs the versions .ci/requirements.txt pins, from
// PyPI's wheels, into a virtualenv under node_modules/.cache, unless both are on PATH already.
// It needs Python 3.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')
const venv = path.join(root, 'node_modules', '.cache', 'flake-idgen-rs-lint-tools')
const bin = path.join(venv, process.platform === 'win32' ? 'Scripts' : 'bin')
const TOOLS = { actionlint: ['-version'], shellcheck: ['--version'] }

const runs = (file, args) => spawnSync(file, args, { stdio: 'ignore' }).status === 0

/** The command to run `tool` by: its name when it is on PATH, else its path in the virtualenv. */
function lintTool(tool) {
  const local = path.join(bin, tool)
  return !runs(tool, TOOLS[tool]) && fs.existsSync(local) ? local : tool
}

function install() {
  const python = ['python3', 'python'].find((file) => runs(file, ['--version']))
  if (python === undefined) {
    throw new Error('npm test needs actionlint and shellcheck, or Python 3 to install them; neither was found')
  }
  const steps = [
    [python, ['-m', 'venv', venv]],
    [
      path.join(bin, 'pip'),
      ['install', '--quiet', '--disable-pip-version-check', '-r', path.join(root, '.ci', 'requirements.txt')],
    ],
  ]
  for (const [file, args] of steps) {
    const { status, error } = spawnSync(file, args, { stdio: 'inherit' })
    if (status !== 0) throw new Error(`${[file, ...args].join(' ')} failed${error ? `: ${error.message}` : ''}`)
  }
}

if (require.main === module) {
  const missing = Object.keys(TOOLS).filter((tool) => !runs(lintTool(tool), TOOLS[tool]))
  if (missing.length > 0) {
    console.error(`installing ${missing.join(' and ')} into ${path.relative(root, venv)}`)
    install()
  }
}

module.exports = { lintTool }

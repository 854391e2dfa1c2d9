#!/usr/bin/env node
'use strict'

// `npm run lint`'s part for .github/workflows: actionlint, with shellcheck for their `run:`
// scripts (both as scripts/lint-tools.js finds or installs them, `prelint`). It first lints a
// workflow with a known script error and a `needs` naming no job, and fails unless both are
// reported: an actionlint that cannot run shellcheck would pass every script unread.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { lintTool } = require('./lint-tools.js')

const root = path.join(__dirname, '..')
const workflowDir = path.join('.github', 'workflows')
const BROKEN = 'on: push\njobs:\n  a:\n    needs: b\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo $1\n'

function actionlint(args, input) {
  const result = spawnSync(
    lintTool('actionlint'),
    ['-no-color', '-oneline', '-shellcheck', lintTool('shellcheck'), ...args],
    { cwd: root, encoding: 'utf8', input },
  )
  if (result.error) {
    throw new Error(
      `actionlint did not run (${result.error.message}): \`npm run lint\` installs it with scripts/lint-tools.js`,
    )
  }
  return result
}

const broken = actionlint(['-'], BROKEN)
if (broken.status !== 1 || !/needs.*"b"/.test(broken.stdout) || !/SC2086/.test(broken.stdout)) {
  console.error(
    `actionlint missed the unknown job or shellcheck's SC2086 in a broken workflow:\n${broken.stdout}${broken.stderr}`,
  )
  process.exit(1)
}

const files = fs
  .readdirSync(path.join(root, workflowDir))
  .filter((file) => /\.ya?ml$/.test(file))
  .map((file) => path.join(workflowDir, file))
const { status, stdout, stderr } = actionlint(files)
process.stdout.write(stdout)
process.stderr.write(stderr)
if (status !== 0 || stdout + stderr !== '') process.exit(status || 1)

'use strict'
// Memory: what a long run leaves behind. Not timing, so it belongs in the tests.
// Each scenario runs in a process of its own (__test__/rss.js), so none inherits another's.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const path = require('node:path')

const LIMIT_MB = 20

function run(scenario) {
  const script = path.join(__dirname, 'rss.js')
  return JSON.parse(execFileSync(process.execPath, ['--expose-gc', script, scenario], { encoding: 'utf8' }))
}

test('10 M ids grow RSS by less than 20 MB after GC', () => {
  const { work, grownMb } = run('ids')
  assert.equal(work, 10_000_000)
  assert.ok(grownMb < LIMIT_MB, `RSS grew by ${grownMb.toFixed(1)} MB`)
})

test('200 k generators created and dropped grow RSS by less than 20 MB after GC', () => {
  const { work, grownMb } = run('generators')
  assert.equal(work, 200_000)
  assert.ok(grownMb < LIMIT_MB, `RSS grew by ${grownMb.toFixed(1)} MB`)
})

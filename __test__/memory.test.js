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

// Issue 14: loops that never let the event loop turn must free memory by the GC alone (no
// finalizer per call, per batch or per instance), and configurations must cost no state each.
for (const [scenario, work, what] of [
  ['batches', 600 * 16_384, '600 batches of 16,384 ids'],
  ['clocks', 200_000, '200 k instances with a clock of their own'],
  ['epochs', 100_000, '100 k instances with an epoch each'],
]) {
  test(`${what} in one synchronous loop grow RSS by less than 40 MB after GC`, () => {
    const { work: done, grownMb } = run(scenario)
    assert.equal(done, work)
    assert.ok(grownMb < 40, `RSS grew by ${grownMb.toFixed(1)} MB`)
  })
}

test('the command writing 10 M ids to a file peaks below 150 MB of RSS', () => {
  const fs = require('node:fs')
  const os = require('node:os')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-cli-'))
  const out = path.join(dir, 'ids.txt')
  const peak = path.join(dir, 'peak')
  // Reports the process's peak RSS (KiB) as it exits.
  const report = `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(peak)}, String(process.resourceUsage().maxRSS)))`
  const fd = fs.openSync(out, 'w')
  try {
    execFileSync(process.execPath, ['-e', `${report}; process.argv.splice(1, 0, 'flake-idgen'); require(${JSON.stringify(path.join(__dirname, '..', 'bin', 'flake-idgen.js'))})`, '--', '-n', '10000000', '--id', '5'], {
      stdio: ['ignore', fd, 'inherit'],
    })
    assert.equal(fs.statSync(out).size > 10_000_000 * 19, true)
    const peakMb = Number(fs.readFileSync(peak, 'utf8')) / 1024
    assert.ok(peakMb < 150, `peak RSS ${peakMb.toFixed(0)} MB`)
  } finally {
    fs.closeSync(fd)
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

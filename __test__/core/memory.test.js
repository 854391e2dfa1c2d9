'use strict'
// Memory: what a long run leaves behind. Not timing, so it belongs in the tests.
// Each scenario runs in a process of its own (__test__/support/rss.js), so none inherits another's.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

// What each kind of run may leave behind, and the command's peak; the titles say them.
const LIMIT_MB = 20
const LOOP_LIMIT_MB = 40
const PEAK_LIMIT_MB = 150

/** Fails, showing the number, unless `mb` is below `limit`. */
function assertBelow(mb, limit, what) {
  assert.ok(mb < limit, `${what} ${mb.toFixed(1)} MB, not below ${limit} MB`)
}

/** Lines in a file, a chunk at a time: the command's output is 200 MB. */
function countLines(file) {
  const fd = fs.openSync(file, 'r')
  const chunk = Buffer.allocUnsafe(2 ** 20)
  let lines = 0
  try {
    for (;;) {
      const read = fs.readSync(fd, chunk)
      if (read === 0) return lines
      const filled = chunk.subarray(0, read)
      for (let i = filled.indexOf(10); i !== -1; i = filled.indexOf(10, i + 1)) lines++
    }
  } finally {
    fs.closeSync(fd)
  }
}

// glibc's malloc raises its mmap threshold as large blocks are freed, and then keeps the freed
// blocks in RSS: from Node 24 on, 600 batches freed (every ArrayBuffer collected) leave ~65 MB
// of RSS that way. A threshold set fixes it, so RSS counts what is still allocated.
const ALLOCATOR = { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' }

function run(scenario) {
  const script = path.join(__dirname, '..', 'support', 'rss.js')
  return JSON.parse(
    execFileSync(process.execPath, ['--expose-gc', script, scenario], {
      encoding: 'utf8',
      env: { ...process.env, ...ALLOCATOR },
    }),
  )
}

test(`10 M ids grow RSS by less than ${LIMIT_MB} MB after GC`, () => {
  const { work, grownMb } = run('ids')
  assert.equal(work, 10_000_000)
  assertBelow(grownMb, LIMIT_MB, 'RSS grew by')
})

test(`200 k generators created and dropped grow RSS by less than ${LIMIT_MB} MB after GC`, () => {
  const { work, grownMb } = run('generators')
  assert.equal(work, 200_000)
  assertBelow(grownMb, LIMIT_MB, 'RSS grew by')
})

// Issue 14: loops that never let the event loop turn must free memory by the GC alone (no
// finalizer per call, per batch or per instance), and configurations must cost no state each.
for (const [scenario, work, what] of [
  ['batches', 600 * 16_384, '600 batches of 16,384 ids'],
  ['clocks', 200_000, '200 k instances with a clock of their own'],
  ['epochs', 100_000, '100 k instances with an epoch each'],
]) {
  test(`${what} in one synchronous loop grow RSS by less than ${LOOP_LIMIT_MB} MB after GC`, () => {
    const { work: done, grownMb } = run(scenario)
    assert.equal(done, work)
    assertBelow(grownMb, LOOP_LIMIT_MB, 'RSS grew by')
  })
}

// The peak is calibrated on Linux's RSS. Windows reports a peak working set instead, which under
// Wine counts Wine's own pages too: an idle Node peaks at 112 MB there, 42 MB on Linux.
const linuxPeak = process.platform === 'win32' && "calibrated on Linux's RSS, which Windows does not report"

test(`the command writing 10 M ids to a file peaks below ${PEAK_LIMIT_MB} MB of RSS`, { skip: linuxPeak }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-cli-'))
  const out = path.join(dir, 'ids.txt')
  const peak = path.join(dir, 'peak')
  // Reports the process's peak RSS (KiB) as it exits.
  const report = `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(peak)}, String(process.resourceUsage().maxRSS)))`
  const bin = path.join(__dirname, '..', '..', 'bin', 'flake-idgen.js')
  const command = `${report}; process.argv.splice(1, 0, 'flake-idgen'); require(${JSON.stringify(bin)})`
  // The heap's sizes pinned: left to itself, Node sizes its young generation by the machine and
  // its version (Node 20 peaks near 125 MB here, 24 near 270 MB, on the same garbage). Pinned,
  // every line peaks near 100 MB, and a command that kept what it wrote runs out of heap.
  const heap = ['--max-old-space-size=64', '--max-semi-space-size=8']
  const fd = fs.openSync(out, 'w')
  try {
    execFileSync(process.execPath, [...heap, '-e', command, '--', '-n', '10000000', '--id', '5'], {
      stdio: ['ignore', fd, 'inherit'],
    })
    // Every id written, one a line, before the peak counts: a command that stopped early would
    // peak low.
    assert.equal(countLines(out), 10_000_000)
    assertBelow(Number(fs.readFileSync(peak, 'utf8')) / 1024, PEAK_LIMIT_MB, 'peak RSS')
  } finally {
    fs.closeSync(fd)
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

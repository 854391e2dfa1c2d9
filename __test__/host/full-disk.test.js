'use strict'
// A state file made on a full disk (issue 39, item 5): on a small tmpfs filled so that the new
// file's write fails at any point (the last 4,096 bytes among them, which a buffer dropped
// unflushed once lost, leaving 65,536 of 69,632 bytes at the name), the generator is refused with
// a coded error saying why (transient: ERR_FLAKE_STATE_UNAVAILABLE), nothing is left at the name,
// and once space is freed the same process, and a new one, make the file and issue. Needs Linux and the right to mount (root): skipped otherwise.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { stateDir } = require('../support/state-files.js')

const ROOT = path.join(__dirname, '..', '..')
const PAGE = 4096
const PAGES = 32
const STATE_PAGES = 17 // 69,632 bytes: flake-idgen's layout's state file

/** Mounts a tmpfs of `PAGES` pages at a new directory; a reason to skip if it cannot be. */
function smallDisk() {
  if (process.platform !== 'linux') return { skip: 'mounts a tmpfs: Linux only' }
  // Mounted below the removed directory, and unmounted before it is removed.
  const at = path.join(stateDir('full-disk'), 'disk')
  fs.mkdirSync(at)
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${PAGES * PAGE},mode=0700`, 'tmpfs', at], { stdio: 'pipe' })
  } catch (error) {
    const [why] = String(error.stderr || error.message)
      .trim()
      .split('\n')
    return { skip: `cannot mount a tmpfs here: ${why}` }
  }
  return { at, unmount: () => execFileSync('umount', ['-l', at], { stdio: 'ignore' }) }
}

/**
 * What a new process gets from `new FlakeId({ id: 1, stateDir: dir })` and its first id; with
 * `thenFree`, that file is removed after and the same process tries again: `{ ...first, again }`.
 */
function freshProcess(dir, thenFree) {
  const script = `
    const fs = require('node:fs')
    const FlakeId = require(${JSON.stringify(ROOT)})
    function attempt() {
      try {
        new FlakeId({ id: 1, stateDir: ${JSON.stringify(dir)}, scope: 'host' }).next()
        return { code: 'done' }
      } catch (error) {
        return { code: error.code, message: error.message }
      }
    }
    const result = attempt()
    const thenFree = ${JSON.stringify(thenFree ?? null)}
    if (thenFree !== null) {
      fs.rmSync(thenFree)
      result.again = attempt()
    }
    process.stdout.write(JSON.stringify(result))`
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))
}

test('a state file the disk has no room for is never left short at its name; once freed, the next process makes it', (t) => {
  const disk = smallDisk()
  if (disk.skip) return t.skip(disk.skip)
  t.after(disk.unmount)
  const dir = path.join(disk.at, 'state')
  fs.mkdirSync(dir, { mode: 0o700 })
  const state = path.join(dir, 'epoch-0.state')
  const fill = path.join(disk.at, 'fill')
  const pages = fs.statfsSync(disk.at).bavail
  // 16 pages of room: every write succeeds but the last, buffered one.
  for (const room of [16, 0, 1, 8, 15]) {
    fs.writeFileSync(fill, Buffer.alloc((pages - room) * PAGE))
    assert.equal(fs.statfsSync(disk.at).bavail, room, 'the room left on the tmpfs')
    const refused = freshProcess(dir)
    assert.equal(refused.code, 'ERR_FLAKE_STATE_UNAVAILABLE', `${room} pages of room: ${JSON.stringify(refused)}`)
    assert.match(refused.message, /No space left on device|os error 28/)
    assert.ok(
      !fs.existsSync(state),
      `${room} pages of room: ${fs.existsSync(state) && fs.statSync(state).size} bytes left at the name`,
    )
    assert.deepEqual(fs.readdirSync(dir), [], `${room} pages of room: a temporary file left`)
    // Refused again while the disk is full (nothing at the name stands in the way, the disk
    // does), and not for good: the same process, once the disk is freed, makes the file.
    const again = freshProcess(dir, fill)
    assert.equal(again.code, 'ERR_FLAKE_STATE_UNAVAILABLE')
    assert.deepEqual(again.again, { code: 'done' }, `${room} pages of room, then freed, in the same process`)
    assert.equal(fs.statSync(state).size, STATE_PAGES * PAGE)
    fs.rmSync(state)
    assert.deepEqual(freshProcess(dir), { code: 'done' }, `${room} pages of room, then freed, a new process`)
    assert.equal(fs.statSync(state).size, STATE_PAGES * PAGE)
    fs.rmSync(state)
  }
})

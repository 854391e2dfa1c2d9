'use strict'
// Host scope by layout: every process of a host shares a state per (layout shape, node id), in
// a file of its own per shape, which costs a process only the pages of the ids it uses.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn, execFileSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')
const FlakeId = require('../..')
const { stateDir } = require('../support/state-files.js')

const CHILD = path.join(__dirname, '..', 'support', 'host-child.js')

function take(dir, options, count, startAt, out) {
  const proc = spawn(process.execPath, [CHILD, 'take', JSON.stringify(options), String(count), String(startAt), out], {
    env: { ...process.env, FLAKE_IDGEN_STATE_DIR: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  proc.stderr.on('data', (chunk) => (stderr += chunk))
  return once(proc, 'close').then(([code]) => assert.equal(code, 0, stderr))
}

function idsOf(file) {
  const bytes = fs.readFileSync(file)
  return Array.from({ length: bytes.length >> 3 }, (_, i) => bytes.readBigUInt64BE(i * 8))
}

const duplicates = (lists) => {
  const all = BigUint64Array.from(lists.flat()).sort()
  let count = 0
  for (let i = 1; i < all.length; i++) if (all[i] === all[i - 1]) count++
  return count
}

/** `processes` children issuing `count` ids each with `options` at the same moment. */
async function race(name, options, { processes = 3, count = 30_000, scope } = {}) {
  const dir = stateDir(name)
  const startAt = Date.now() + 1500
  const outs = Array.from({ length: processes }, (_, i) => path.join(dir, `ids-${i}`))
  await Promise.all(outs.map((out) => take(dir, { ...options, scope }, count, startAt, out)))
  return { dir, lists: outs.map(idsOf) }
}

for (const [layout, id] of [
  ['hazelcast', 65535],
  ['sonyflake', 4242],
  [{ timeBits: 47, timeUnitMs: 4, nodeBits: 3, sequenceBits: 13, order: 'sequence-node' }, 5],
]) {
  const { key } = FlakeId.layout(layout)
  test(`${key}: 3 processes on one node id share its state: no duplicates, each increasing`, async () => {
    const { dir, lists } = await race(`layout-${key.replace(/\W/g, '_')}`, { layout, id })
    for (const ids of lists) {
      assert.equal(ids.length, 30_000)
      assert.ok(
        ids.every((x, i) => i === 0 || ids[i - 1] < x),
        'increasing',
      )
      for (const x of [ids[0], ids.at(-1)]) assert.equal(FlakeId.decompose(x, { layout }).id, id)
    }
    assert.equal(duplicates(lists), 0)
    // Its own file, named by its bits, sized by its node ids: the default layout's is not made.
    const file = path.join(dir, `layout-${key.replaceAll('/', '_')}.state`)
    assert.equal(fs.statSync(file).size, 4096 + 2 ** FlakeId.layout(layout).nodeBits * 64)
    assert.ok(!fs.existsSync(path.join(dir, 'epoch-0.state')))
  })
}

test("the same with scope: 'process' repeats ids (so the test above can fail)", async () => {
  const { lists } = await race('layout-process', { layout: 'hazelcast', id: 3 }, { scope: 'process' })
  assert.ok(duplicates(lists) > 0, 'no duplicates: the processes did not overlap')
})

test('two layouts in one directory have a file each, and never share a state', () => {
  const dir = stateDir('layout-two')
  const twitter = new FlakeId({ layout: 'twitter', id: 9, stateDir: dir })
  const hazelcast = new FlakeId({ layout: 'hazelcast', id: 9, stateDir: dir })
  // Interleaved in one process: each layout's sequence runs on with no gap, which a shared
  // state would leave (the other layout's ids taking sequence numbers in between).
  const sequences = { twitter: [], hazelcast: [] }
  for (let i = 0; i < 40; i++) {
    for (const [name, generator] of Object.entries({ twitter, hazelcast })) {
      const parts = FlakeId.decompose(generator.nextBigInt(), generator)
      sequences[name].push([parts.timestamp, parts.sequence])
    }
  }
  for (const list of Object.values(sequences)) {
    for (let i = 1; i < list.length; i++) {
      const [[t0, s0], [t1, s1]] = [list[i - 1], list[i]]
      assert.ok(t1 > t0 || (t1 === t0 && s1 === s0 + 1), `${t0}/${s0} then ${t1}/${s1}`)
    }
  }
  const files = fs.readdirSync(dir).filter((name) => name.endsWith('.state'))
  assert.deepEqual(files.sort(), ['layout-41_10_12.state', 'layout-41_seq6_node16.state'])
})

const smaps = { skip: process.platform !== 'linux' && 'reads /proc/self/smaps, which only Linux has' }

test('a file of 65,536 node ids costs a process the pages it touches, not the whole file', smaps, () => {
  const dir = stateDir('layout-memory')
  // A process that maps the 4 MiB file, issues from 64 node ids (64 lines: one page) and
  // reports how much of the mapping is resident.
  const script = `
    const FlakeId = require(${JSON.stringify(path.join(__dirname, '..', '..'))})
    for (let id = 0; id < 64; id++) new FlakeId({ layout: 'hazelcast', id, stateDir: ${JSON.stringify(dir)} }).next()
    const maps = require('node:fs').readFileSync('/proc/self/smaps', 'utf8').split(/\\n(?=[0-9a-f]+-[0-9a-f]+ )/)
    const mapping = maps.find((entry) => entry.split('\\n')[0].endsWith('layout-41_seq6_node16.state'))
    console.log(JSON.stringify({ size: +/^Size:\\s+(\\d+)/m.exec(mapping)[1], rss: +/^Rss:\\s+(\\d+)/m.exec(mapping)[1] }))
  `
  const { size, rss } = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))
  assert.equal(size, (4096 + 65536 * 64) / 1024)
  // The header page and the one page of words: a few pages, not 4 MiB.
  assert.ok(rss <= 64, `${rss} KiB of the mapping resident`)
})

'use strict'
// Run by reloads.test.js with --expose-gc and no other flag: loads a package's JS 1,000 times in
// this thread as a test runner's fresh module registries do, from the first load on: each time,
// every file of the package but the `.node` deleted from require.cache, then required again
// (Node's own bookkeeping, such as this module's `children`, left as Node keeps it). Prints as
// JSON what the loads kept: the growth of resident memory once their garbage is collected by V8's
// own full GC (not the last resort, which no test runner runs: a young generation V8 grew under
// the loads stays grown), and of the JS heap in use once nothing but what is held is left; and
// for this package, how many times its binary was loaded, and which of its files the loads after
// the first loaded again, how many times.
//   node reloads-child.js first   this package: one generator, one id a load (the way)
//   node reloads-child.js each    this package: every part that loads on first use, used
//   node reloads-child.js FILE    another package's FILE (flake-idgen's): one generator, one id

const fs = require('node:fs')
const path = require('node:path')
const { collected } = require('./collected')

const root = path.join(__dirname, '..', '..')
const LOADS = 1000
const [mode] = process.argv.slice(2)
const entry = mode === 'first' || mode === 'each' ? root : mode
const dir = mode === entry ? path.dirname(entry) : root

/** The package's files in require.cache (but the binary), relative to `dir`. */
const cached = () =>
  Object.keys(require.cache)
    .filter((key) => key.startsWith(dir) && !key.endsWith('.node') && key !== __filename && !key.includes('__test__'))
    .map((key) => path.relative(dir, key).replaceAll(path.sep, '/'))

/**
 * Resident memory not backed by a file (RssAnon, on Linux): the pages of Node's own binary that
 * its code running for the first time maps in (6 MB over these loads, whatever is loaded) are
 * not what the loads keep. Null elsewhere, where RSS counts those pages (and Wine's own).
 */
function resident() {
  try {
    return Number(/^RssAnon:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) * 1024
  } catch {
    return null
  }
}

/** A fresh copy of the package's JS, once require.cache forgets its files. */
function fresh() {
  for (const file of cached()) delete require.cache[path.join(dir, file)]
  return require(entry)
}

/** Uses every part of a copy of this package that loads on first use. */
async function useEach(FlakeId, i) {
  const generator = new FlakeId({ id: i % 1024 })
  generator.next()
  generator.nextBigInt()
  await generator.nextAsync()
  await new Promise((resolve, reject) => generator.next((error, id) => (error ? reject(error) : resolve(id))))
  await generator.nextBatchAsync(4)
  FlakeId.decompose(generator.nextString())
  FlakeId.uuidv7()
  new FlakeId.Flake128({ worker: 1 }).nextBase62()
}

async function use(FlakeId, i) {
  if (mode === 'each') return useEach(FlakeId, i)
  new FlakeId({ id: i % 1024 }).next()
}

async function main() {
  // Every load of a binary goes through process.dlopen: count this package's.
  let binaries = 0
  const { dlopen } = process
  process.dlopen = function countedDlopen(target, filename, ...rest) {
    if (path.basename(filename).startsWith('flake-idgen-rs.')) binaries++
    return dlopen.call(this, target, filename, ...rest)
  }
  await use(fresh(), 0)
  const before = await collected({ ordinary: true })
  const beforeResident = resident()
  // Each file a load after the first loaded (its copy compiled again), and how many loads did.
  const reloaded = {}
  for (let i = 1; i <= LOADS; i++) {
    await use(fresh(), i)
    for (const file of cached()) reloaded[file] = (reloaded[file] ?? 0) + 1
  }
  await collected({ ordinary: true })
  const afterResident = resident()
  // The heap in use once the last resort has collected what V8 keeps until then too (its
  // compilation cache among it): what something still holds. Run last, as it shrinks memory.
  const after = await collected({ lastResort: true })
  const mb = (bytes) => bytes / 2 ** 20
  console.log(
    JSON.stringify({
      loads: LOADS,
      binaries,
      residentMb: beforeResident === null ? null : mb(afterResident - beforeResident),
      heapUsedMb: mb(after.heapUsed - before.heapUsed),
      reloaded,
    }),
  )
}

main()

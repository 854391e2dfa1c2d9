'use strict'
// Run by reloads.test.js with --expose-gc and no other flag: loads a package's JS 1,000 times in
// this thread as a test runner's fresh module registries do, from the first load on: each time,
// every file of the package but the `.node` deleted from require.cache, then required again
// (Node's own bookkeeping, such as this module's `children`, left as Node keeps it). Prints as
// JSON what the loads kept: the growth of RSS and of the JS heap in use once collected, and for
// this package how many bindings they loaded.
//   node reloads-child.js first   this package: one generator, one id a load (the way)
//   node reloads-child.js each    this package: every part that loads on first use, used
//   node reloads-child.js FILE    another package's FILE (flake-idgen's): one generator, one id

const path = require('node:path')
const { collected } = require('./collected')

const root = path.join(__dirname, '..', '..')
const LOADS = 1000
const [mode] = process.argv.slice(2)
const entry = mode === 'first' || mode === 'each' ? root : mode
const dir = mode === entry ? path.dirname(entry) : root

/** A fresh copy of the package's JS, once require.cache forgets its files. */
function fresh() {
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(dir) && !key.endsWith('.node') && key !== __filename && !key.includes('__test__')) {
      delete require.cache[key]
    }
  }
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
  const bindings = new Set()
  const binding = () => {
    if (mode === entry) return
    bindings.add(require.cache[path.join(root, 'lib', 'load-binding.js')]?.exports)
  }
  await use(fresh(), 0)
  binding()
  const before = await collected({ lastResort: true })
  for (let i = 1; i <= LOADS; i++) {
    await use(fresh(), i)
    binding()
  }
  const after = await collected({ lastResort: true })
  const mb = (bytes) => bytes / 2 ** 20
  console.log(
    JSON.stringify({
      loads: LOADS,
      bindings: bindings.size,
      rssMb: mb(after.rss - before.rss),
      heapUsedMb: mb(after.heapUsed - before.heapUsed),
    }),
  )
}

main()

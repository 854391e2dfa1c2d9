'use strict'
// Run by reloads.test.js with --expose-gc: loads the package's JS 1,000 times in this thread
// from the first load on, require.cache cleared each time (the binary stays loaded, as under
// Jest's module registry), each copy used as an app would (ids of each kind, a callback, a
// promise, an async batch, decompose), and prints as JSON what the loads kept: the growth of
// RSS and of the JS heap in use after GC, and how many bindings they loaded.

const path = require('node:path')
const { collected } = require('./collected')

const root = path.join(__dirname, '..', '..')
const LOADS = 1000

/** A fresh copy of the package's JS, once require.cache forgets it. */
function fresh() {
  for (const key of Object.keys(require.cache)) {
    if (key !== __filename && !key.endsWith('.node')) delete require.cache[key]
  }
  const copy = require(root)
  // Node keeps each module a file required among its children: forget them, as the cache did.
  module.children.length = 0
  return copy
}

/** Uses every part of a copy that loads on first use. */
async function use(FlakeId, i) {
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

async function main() {
  const bindings = new Set()
  await use(fresh(), 0)
  bindings.add(require(path.join(root, 'lib', 'load-binding.js')))
  const before = await collected()
  for (let i = 1; i <= LOADS; i++) {
    await use(fresh(), i)
    bindings.add(require(path.join(root, 'lib', 'load-binding.js')))
  }
  const after = await collected()
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

'use strict'
// Run by copies.test.js: loads copies of the package into this one thread and prints, as JSON,
// what they issued. `node copies-child.js SCENARIO [ROOT]`, ROOT the package (default: this
// checkout):
//   registries  copies loaded after clearing require.cache: the package's JS only, then all
//   vm          copies in vm contexts of their own, the binary loaded by Node's require (as
//               Jest and Vitest's vmThreads load them)
//   reloads     the package loaded 2,200 times, require.cache cleared each time (--expose-gc):
//               how much the last 1,000 grew the JS heap, and how many bindings they loaded
//   alias       flake-idgen-rs and flake-idgen, both from ROOT's node_modules

const fs = require('node:fs')
const path = require('node:path')
const vm = require('node:vm')
const { collected } = require('./collected')

const [scenario, root = path.join(__dirname, '..', '..')] = process.argv.slice(2)

/** A fresh copy of the package, once require.cache forgets it (and the binary too if `all`). */
function fresh(all) {
  for (const key of Object.keys(require.cache)) {
    if (key !== __filename && (all || !key.endsWith('.node'))) delete require.cache[key]
  }
  const copy = require(root)
  // Node keeps each module a file required among its children: forget them, as the cache did.
  module.children.length = 0
  return copy
}

/** A copy of the package compiled in a vm context of its own, with the globals Jest gives one. */
function inContext() {
  const context = vm.createContext({
    // Jest gives each test file a process object of its own, too.
    process: Object.create(process),
    Buffer,
    setTimeout,
    clearTimeout,
    setImmediate,
    clearImmediate,
    AbortSignal,
    performance,
    console,
  })
  const modules = new Map()
  const requireFrom = (dir) => (request) => {
    if (!request.startsWith('.')) return require(request)
    let file = path.resolve(dir, request)
    if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) file = path.join(file, 'index.js')
    if (!file.endsWith('.js')) return require(file)
    if (!modules.has(file)) {
      const module = { exports: {} }
      modules.set(file, module)
      const params = ['exports', 'require', 'module', '__filename', '__dirname']
      const body = fs.readFileSync(file, 'utf8')
      const wrapper = vm.compileFunction(body, params, { filename: file, parsingContext: context })
      wrapper.call(module.exports, module.exports, requireFrom(path.dirname(file)), module, file, path.dirname(file))
    }
    return modules.get(file).exports
  }
  return requireFrom(root)('.')
}

/** `take()` again and again until it issues: ids of one generator id outrun one millisecond's. */
function spin(take) {
  for (;;) {
    try {
      return take()
    } catch (error) {
      if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
    }
  }
}

/**
 * Interleaves ids from one generator per copy and option set, in turns, and reports whether
 * each generator's ids carry its own generator id, and each generator id's ids, across copies,
 * only increase.
 */
function interleave(copies, rounds = 1000) {
  const generators = []
  for (const FlakeId of copies) {
    // One generator id shared by every copy in each scope, and one per copy: a copy's calls
    // must not issue for the generator another copy's call described last.
    generators.push({ id: 17, make: () => new FlakeId({ id: 17, scope: 'process' }) })
    generators.push({ id: 18, make: () => new FlakeId({ id: 18 }) })
    const own = 100 + generators.length
    generators.push({ id: own, make: () => new FlakeId({ id: own }) })
  }
  for (const generator of generators) generator.instance = generator.make()
  const last = new Map()
  let ids = 0
  let wrongGenerator = 0
  let notIncreasing = 0
  // Each generator, then another copy's, then the first again: the first's copy described it
  // last, but the other copy wrote the scratch since.
  const order = generators.flatMap((generator, k) => [generator, generators[(k + 3) % generators.length], generator])
  for (let round = 0; round < rounds; round++) {
    for (const { id, instance } of order) {
      const taken =
        round % 3 === 0
          ? spin(() => instance.next()).readBigUInt64BE(0)
          : round % 3 === 1
            ? spin(() => instance.nextBigInt())
            : BigInt(spin(() => instance.nextString()))
      ids++
      if (Number((taken >> 12n) & 0x3ffn) !== id) wrongGenerator++
      if (last.has(id) && taken <= last.get(id)) notIncreasing++
      last.set(id, taken)
    }
  }
  const distinctClasses = new Set(copies).size
  return { copies: copies.length, distinctClasses, ids, wrongGenerator, notIncreasing }
}

const scenarios = {
  registries: () => interleave([require(root), fresh(false), fresh(false), fresh(true), fresh(true)]),
  vm: () => interleave([require(root), inContext(), inContext(), inContext()]),
  async reloads() {
    // The JS heap in use, not RSS: RSS grows 8-12 KB a load for any module compiled again,
    // flake-idgen's one file about as much as this package (reloads.test.js bounds it), while
    // the heap in use stays flat. What a copy keeps is on the heap, and a binary loaded again is
    // a binding object of its own.
    const bindings = new Set()
    const load = () => {
      const copy = fresh(true)
      bindings.add(require(path.join(root, 'lib', 'binding', 'load-binding.js')))
      return copy
    }
    // Warm-up: the JIT's code and the caches grow to their working size over the first loads.
    for (let i = 0; i < 1200; i++) new (load())({ id: i % 1024 }).next()
    const before = (await collected()).heapUsed
    for (let i = 0; i < 1000; i++) new (load())({ id: i % 1024 }).next()
    return { loads: 1000, bindings: bindings.size, grownMb: ((await collected()).heapUsed - before) / 2 ** 20 }
  },
  alias: () => {
    const original = require(path.join(root, 'node_modules', 'flake-idgen'))
    const renamed = require(path.join(root, 'node_modules', 'flake-idgen-rs'))
    return interleave([original, renamed])
  },
}

Promise.resolve(scenarios[scenario]()).then((result) => console.log(JSON.stringify(result)))

'use strict'

// The package's one entry point (CommonJS and ESM alike): every part lives under lib/.
//
// A realm (a thread's global, a vm context, a Jest test file's) compiles the package's JS once.
// A copy loaded again there (a test runner's fresh module registry, require.cache cleared)
// compiles this file alone, and its exports are its own over the first copy's: which issue from
// the same state, as every copy's do. Compiling every file again kept each reload's 50 KB of JS
// alive until the next one, and V8 grew its young generation by what survived: 1,000 reloads
// grew memory by 34 to 73 MB, where flake-idgen's one file grows it by 8 to 20 MB.
const REALM = Symbol.for(`flake-idgen-rs: the realm's copy of ${__filename}`)

/**
 * Defines `target[name]` as `load()`'s value, loaded when first read: until then a getter, then
 * the data property an assignment makes (writable, enumerable, configurable), so that once read
 * it is what `target[name] = load()` would have made. Assigning it first replaces it as well.
 */
function lazy(target, name, load) {
  const set = (value) =>
    Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true })
  Object.defineProperty(target, name, {
    get() {
      const value = load()
      set(value)
      return value
    },
    set,
    enumerable: true,
    configurable: true,
  })
}

/** `load`, called once: its value after. */
function once(load) {
  let value
  return () => {
    value ??= load()
    return value
  }
}

/**
 * A class of a later copy's own over the first copy's: any instance of the first's is one of it
 * (a generator of any copy issues from the same state, and FlakeId.lease() makes an instance of
 * the first's subclass).
 */
function ownClass(First) {
  const named = {
    [First.name]: class extends First {
      static [Symbol.hasInstance](value) {
        return value instanceof First
      }
    },
  }
  return named[First.name]
}

/** A function of a later copy's own over the first copy's: calls it, and has its properties. */
function ownFunction(first) {
  const named = {
    [first.name](...args) {
      return first(...args)
    },
  }
  return Object.assign(named[first.name], first)
}

/**
 * A later copy's own of the first copy's export `first`: a class's `prototype` is read-only, a
 * function's writable (ECMAScript's MakeConstructor), so the export says itself which it is, and
 * no list here says which kind's is a class.
 */
function own(first) {
  const isClass = Object.getOwnPropertyDescriptor(first, 'prototype')?.writable === false
  return isClass ? ownClass(first) : ownFunction(first)
}

let realm = Object.hasOwn(globalThis, REALM) ? globalThis[REALM] : undefined
const later = realm !== undefined
if (!later) {
  realm = {
    FlakeId: require('./lib/generator/flake-id.js'),
    kinds: [],
    forgetEarlierCopies: once(() => require('./lib/binding/earlier-copies.js')),
  }
  // Each 128-bit kind's export, by its row of the binding's kinds, from its file, loaded when
  // first read, as Node's own lib loads its parts: a process that never makes one does not pay
  // for its code at its start. Bundlers (esbuild 0.19 on, webpack) include every file the
  // template matches, so a bundle has them all. (A loop: filter and map cost a start 20 µs more.)
  for (const row of require('./lib/binding/load-binding.js').kinds()) {
    if (row.bytes === 16) realm.kinds.push([row.export, once(() => require(`./lib/kinds/${row.name}.js`))])
  }
  Object.defineProperty(globalThis, REALM, { value: realm })
}
const FlakeId = later ? ownClass(realm.FlakeId) : realm.FlakeId

module.exports = FlakeId
module.exports.FlakeId = FlakeId
module.exports.default = FlakeId
for (const [name, load] of realm.kinds) lazy(module.exports, name, later ? () => own(load()) : load)
if (later) realm.forgetEarlierCopies()(module, require.cache)
// ESM's named imports are the names Node finds by reading this file (cjs-module-lexer), not by
// running it; the getters above hide the 128-bit kinds' exports, so they are spelled out here,
// where they never run: the annotation esbuild writes for the same reason. one-table.test.js
// holds them to the kinds' rows.
// biome-ignore lint/suspicious/noAssignInExpressions: read by Node's lexer, never run
0 && (module.exports = { uuidv7, Flake128 })

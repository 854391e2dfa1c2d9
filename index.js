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

let realm = Object.hasOwn(globalThis, REALM) ? globalThis[REALM] : undefined
const later = realm !== undefined
if (!later) {
  realm = {
    FlakeId: require('./lib/generator/flake-id.js'),
    // Loaded when first read, as Node's own lib loads its parts: a process that never makes a
    // UUIDv7 or a Flake128 does not pay for their code at its start.
    uuidv7: once(() => require('./lib/kinds/uuid.js')),
    Flake128: once(() => require('./lib/kinds/flake128.js')),
    forgetEarlierCopies: once(() => require('./lib/binding/earlier-copies.js')),
  }
  Object.defineProperty(globalThis, REALM, { value: realm })
}
const FlakeId = later ? ownClass(realm.FlakeId) : realm.FlakeId

module.exports = FlakeId
module.exports.FlakeId = FlakeId
module.exports.default = FlakeId
lazy(module.exports, 'uuidv7', later ? () => ownFunction(realm.uuidv7()) : realm.uuidv7)
lazy(module.exports, 'Flake128', later ? () => ownClass(realm.Flake128()) : realm.Flake128)
if (later) realm.forgetEarlierCopies()(module, require.cache)
// ESM's named imports are the names Node finds by reading this file (cjs-module-lexer), not by
// running it; the getters above hide these two, so they are spelled out here, where they never
// run: the annotation esbuild writes for the same reason.
// biome-ignore lint/suspicious/noAssignInExpressions: read by Node's lexer, never run
0 && (module.exports = { uuidv7, Flake128 })

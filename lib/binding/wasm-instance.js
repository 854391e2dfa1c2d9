'use strict'

// The WebAssembly build's plain exports (src/js/wasm_exports.rs): functions of the module
// itself, which lib/binding/native.js calls on the per-id path instead of the id functions, each of
// whose calls crosses between JS and the module many times under emulated N-API. napi-rs's
// generated loader (flake-idgen-rs.wasi.cjs, never edited by hand) exports only what the
// module registered through N-API, and emnapi keeps the module's instance to itself. So while
// binding.js loads, and only then, `WebAssembly.Instance` notes each instance it makes: the one
// that exports ours is the module. The load is synchronous, and the global is put back as it
// was before anything else runs, thrown or not. Loaded only when binding.js runs (load-binding.js
// loads a native binary without it) and by native.js under the WebAssembly build.

// One of the module's plain exports, that no other module has.
const MARK = 'flake_idgen_rs_issue'
// Kept per thread (a worker has a process object, and a module, of its own) beside the binding,
// for every copy of this package that load-binding.js hands that binding (see there).
const kept = Symbol.for(`flake-idgen-rs@${require('../../package.json').version}: wasm exports`)

/** Returns what `load()` returns, keeping the exports of the module's instance it made, if any. */
function capturing(load) {
  const wasm = globalThis.WebAssembly
  const descriptor = wasm === undefined ? undefined : Object.getOwnPropertyDescriptor(wasm, 'Instance')
  if (typeof descriptor?.value !== 'function' || !descriptor.writable) return load()
  let exports
  wasm.Instance = new Proxy(descriptor.value, {
    construct(target, args, newTarget) {
      const instance = Reflect.construct(target, args, newTarget)
      if (typeof instance.exports?.[MARK] === 'function') exports = instance.exports
      return instance
    },
  })
  const lent = process.versions.bun === undefined ? undefined : lendInitialize()
  let loaded
  try {
    loaded = load()
  } finally {
    Object.defineProperty(wasm, 'Instance', descriptor)
    lent?.()
  }
  if (exports !== undefined) Object.defineProperty(process, kept, { value: { exports, now: systemClock() } })
  return loaded
}

/**
 * Bun's node:wasi has no initialize(), which emnapi calls once on the module's instance as it
 * loads (a reactor's start: its memory, then its _initialize): lends its WASI one for the load,
 * and returns what takes it back. Bun's views of the memory are remade only when its buffer is
 * detached, which a shared memory's never is: as it grows, WASI's calls would write past the
 * old view, so each instance initialized here remakes its view whenever the buffer changes.
 */
function lendInitialize() {
  const { WASI } = require('node:wasi')
  const prototype = WASI?.prototype
  if (typeof prototype?.setMemory !== 'function' || 'initialize' in prototype) return undefined
  prototype.initialize = function initialize(instance) {
    this.setMemory(instance.exports.memory)
    this.refreshMemory = function refreshMemory() {
      if (this.view?.buffer !== this.memory.buffer) this.view = new DataView(this.memory.buffer)
    }
    instance.exports._initialize?.()
  }
  return () => delete prototype.initialize
}

/**
 * The system clock, for the readings JS passes the plain exports (Date.now() costs less than
 * the module's WASI clock, the same clock): Date.now of a context of its own, which fake timers
 * (Jest's, sinon's), installed in this one before or after, never replace, as they never reach
 * the native build's readings. Where there is no such context, NaN: the module reads its clock.
 */
function systemClock() {
  try {
    const now = require('node:vm').runInNewContext('Date.now')
    if (typeof now === 'function' && Number.isSafeInteger(now())) return now
  } catch {}
  return () => Number.NaN
}

/**
 * The module's plain exports and the clock to call them by, if the binding is the WebAssembly
 * build's and its instance was caught; undefined otherwise.
 */
const plain = () => process[kept]

module.exports = { capturing, plain }

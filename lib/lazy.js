'use strict'

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

module.exports = lazy

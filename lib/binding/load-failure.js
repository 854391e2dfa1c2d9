'use strict'

// Why no binary loaded, as an error that says what to do: load-binding.js's, loaded only when
// nothing loads.

const codedError = require('../errors/coded-error.js')

// What Deno must grant for the binary to load: binding.js reads environment variables and files
// to choose it (without --allow-read, it asks for --allow-sys instead), then loads it as FFI.
const DENO_FLAGS = { ffi: '--allow-ffi', env: '--allow-env', read: '--allow-read' }
// And for the WebAssembly build besides: napi-rs's loader gives WASI the file system's root, which
// Deno opens only with leave to write.
const DENO_WASM_FLAGS = { ...DENO_FLAGS, write: '--allow-write' }

/**
 * If Deno refused loading for want of a permission: the flags it needs (`flags`), those it was
 * not given (`missing`), and whether it was the WebAssembly build that wanted them (`wasm`).
 */
function denoRefusal(cause) {
  const permissions = globalThis.Deno?.permissions
  if (typeof permissions?.querySync !== 'function') return undefined
  const refused = new Set()
  for (let error = cause; error != null; error = error.cause) {
    // Deno throws NotCapable, or for FFI an Error, "Requires ... access to ..., run again with ...".
    const permission = /^Requires (\w+) access/.exec(error.message)?.[1]
    if (error.name === 'NotCapable' || permission !== undefined) refused.add(permission)
  }
  if (refused.size === 0) return undefined
  // Only the WebAssembly build writes: the native binary would have loaded without leave to.
  const wasm = refused.has('write')
  const flags = wasm ? DENO_WASM_FLAGS : DENO_FLAGS
  const missing = Object.keys(flags)
    .filter((name) => permissions.querySync({ name }).state !== 'granted')
    .map((name) => flags[name])
  return missing.length > 0 ? { flags: Object.values(flags), missing, wasm } : undefined
}

/**
 * The error load-binding.js throws when nothing loaded: binding.js's, `cause`, chained to one that
 * names the platform and what was looked for (`packageName`'s packages among it), or what Deno
 * must grant.
 */
function loadFailure(cause, packageName) {
  const deno = denoRefusal(cause)
  if (deno !== undefined) {
    const [what, why] = deno.wasm
      ? [
          'WebAssembly build',
          "; napi-rs's loader gives WASI the file system's root, which Deno grants only with --allow-write",
        ]
      : ['native binary', '']
    return codedError(
      Error,
      'ERR_FLAKE_DENO_PERMISSION',
      `flake-idgen-rs: Deno refused to load the ${what} without ${deno.missing.join(', ')}: run with ` +
        `${deno.flags.join(' ')}: binding.js reads the environment and files to find the binary, which ` +
        `loads as FFI${why}.`,
      cause,
    )
  }
  const lookedFor = []
  // The chain runs from the last attempt back to the first.
  for (let error = cause; error != null; error = error.cause) {
    const missing = /^Cannot find module '([^']+)'/.exec(error.message)
    if (missing) lookedFor.unshift(missing[1])
  }
  return codedError(
    Error,
    'ERR_FLAKE_NO_NATIVE_BINARY',
    `flake-idgen-rs: no native binary loaded for ${process.platform}-${process.arch} ` +
      `(looked for ${lookedFor.join(', ') || 'nothing'}). If the README lists this platform, ` +
      'reinstall so that npm adds its optional package; if not, install from a git checkout, ' +
      'which builds the binary (needs Rust), or install the WebAssembly build, which runs on any ' +
      `platform, without host scope: its package ${packageName}-wasm32-wasi is installed where npm ` +
      "is asked for the cpu wasm32 (`npm install --cpu=wasm32`, and `cpu=wasm32` in the project's " +
      '.npmrc for later installs); before the first release, see docs/install.md.',
    cause,
  )
}

module.exports = loadFailure

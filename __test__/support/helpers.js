'use strict'

const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')

/** Splits an id into its fields (time is ms after the epoch). */
function decode(id) {
  const n = id.readBigUInt64BE(0)
  return { time: Number(n >> 22n), id: Number((n >> 12n) & 0x3ffn), sequence: Number(n & 0xfffn) }
}

/** A clock for both generators: `clock` for ours, `withDateNow(fn)` runs fn with `Date.now` on it. */
function scriptedClock(start) {
  const clock = { now: start }
  clock.read = () => clock.now
  clock.withDateNow = (fn) => {
    const realNow = Date.now
    Date.now = clock.read
    try {
      return fn()
    } finally {
      Date.now = realNow
    }
  }
  return clock
}

/** Runs fn and returns ['ok', hex] or ['error', message], to compare outcomes. */
function outcome(fn) {
  try {
    return ['ok', fn().toString('hex')]
  } catch (error) {
    return ['error', error.message]
  }
}

/** A seed for fast-check, printed so a failure can be replayed with FC_SEED=<seed>. */
function fcSeed(name) {
  const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : (Date.now() ^ (Math.random() * 2 ** 31)) | 0
  console.log(`${name}: fast-check seed ${seed} (replay: FC_SEED=${seed})`)
  return seed
}

/**
 * Asserts that each of `cases`, `[args, reason]`, makes the command (`run(args)`, a spawnSync
 * result) fail as a usage error: status 2, nothing on stdout, one line on stderr saying
 * `reason` (a string, or a RegExp it matches).
 */
function assertUsageErrors(run, cases) {
  for (const [args, reason] of cases) {
    const { status, stdout, stderr } = run(args)
    assert.equal(status, 2, `${args.join(' ')}: ${stderr}`)
    assert.equal(stdout, '', args.join(' '))
    assert.match(stderr, /^flake-idgen: [^\n]*\n$/, `one line: ${stderr}`)
    assert.ok(stderr.length < 300, stderr)
    const line = stderr.slice('flake-idgen: '.length, -1)
    if (typeof reason === 'string') assert.equal(line, reason)
    else assert.match(line, reason)
    // One quoting style: values in double quotes, never single ones.
    assert.doesNotMatch(line, /'/, line)
  }
}

/**
 * Whether the tests run on the WebAssembly build: NAPI_RS_FORCE_WASI=error loads it and nothing
 * else (read from the environment, so that requiring this file loads no binding). It has no host
 * scope, and each worker thread has a module of its own.
 */
const wasmBuild = process.env.NAPI_RS_FORCE_WASI === 'error'

/** Why a test skips under the WebAssembly build. */
const NO_HOST_SCOPE_IN_WASM = wasmBuild && 'the WebAssembly build has no host scope (no shared mapped files)'

/** Why a test of a state shared by worker threads skips under the WebAssembly build. */
const SEPARATE_MODULES_IN_WASM =
  wasmBuild &&
  'the WebAssembly build loads a module per worker thread, which shares no state (threads.test.js checks the refusal)'

/**
 * spawnSync(command, args, options), started once more if on Windows the process never started
 * (no status, no signal, only spawnSync's `error`): under Wine, a Node process's child is now
 * and then not started under load (twice in CI, each time a different command test). A child
 * that started is never run again, whatever it did; one that cannot be started twice fails
 * with the error.
 */
function spawnCommand(command, args, options) {
  let result = spawnSync(command, args, options)
  if (process.platform === 'win32' && result.error !== undefined && result.status === null && result.signal === null) {
    console.log(`${args.join(' ')} was not started (${result.error.message}): started again`)
    result = spawnSync(command, args, options)
  }
  if (result.error !== undefined && result.status === null) throw result.error
  return result
}

module.exports = {
  spawnCommand,
  decode,
  scriptedClock,
  outcome,
  fcSeed,
  assertUsageErrors,
  wasmBuild,
  NO_HOST_SCOPE_IN_WASM,
  SEPARATE_MODULES_IN_WASM,
}

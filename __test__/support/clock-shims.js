'use strict'
// The LD_PRELOAD clock shims of ./faults (absclock.so: CLOCK_REALTIME frozen through
// FAKE_ABS_FILE; fakeclock.so: stepped through FAKE_OFFSET_FILE), built once per test process
// into a temporary directory (Linux, with gcc), for the children of the tests that fake the
// system clock under both builds: the native one's reads and the WebAssembly one's (WASI's
// and Date.now()'s) all go through the shimmed calls.

const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { removeAtExit } = require('./remove-at-exit.js')

const FAULTS = path.join(__dirname, 'faults')

/** The shims' directory, or why they cannot be built. */
function build() {
  if (process.platform !== 'linux') return { skip: 'the clock shims are LD_PRELOAD ones (Linux)' }
  if (!fs.existsSync(path.join(FAULTS, 'absclock.c'))) return { skip: `no clock shims at ${FAULTS}` }
  // gcc builds them for its own machine: a Node of another one (under qemu) would not load them,
  // and its children would read the real clock.
  let machine
  try {
    machine = execFileSync('gcc', ['-dumpmachine'], { encoding: 'utf8' }).trim()
  } catch (err) {
    return { skip: `no gcc to build the clock shims: ${err.message.split('\n')[0]}` }
  }
  const arch = { x64: 'x86_64', arm64: 'aarch64', arm: 'arm', ia32: 'i686' }[process.arch] ?? process.arch
  if (!machine.startsWith(arch))
    return { skip: `gcc builds the clock shims for ${machine}, and this Node is ${process.arch} (emulated)` }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-shims-'))
  removeAtExit(out)
  try {
    for (const name of ['absclock', 'fakeclock']) {
      execFileSync('gcc', [
        '-O2',
        '-shared',
        '-fPIC',
        '-o',
        path.join(out, `${name}.so`),
        path.join(FAULTS, `${name}.c`),
        '-ldl',
      ])
    }
  } catch (err) {
    return { skip: `gcc cannot build the clock shims: ${err.message.split('\n')[0]}` }
  }
  // The files the shims read: 0 means the real clock.
  for (const name of ['abs', 'offsets']) fs.writeFileSync(path.join(out, name), Buffer.alloc(4096))
  return { out }
}

let built

/** The shims: `{ out }`, their directory, or `{ skip }`, why there are none. Built on first use. */
const shims = () => {
  built ??= build()
  return built
}

/** The environment of a child under `shim` ('absclock' or 'fakeclock'), its clock slot 0. */
function shimEnv(shim) {
  const { out } = shims()
  return {
    ...process.env,
    LD_PRELOAD: path.join(out, `${shim}.so`),
    FAKE_ABS_FILE: path.join(out, 'abs'),
    FAKE_OFFSET_FILE: path.join(out, 'offsets'),
    FAKE_SLOT: '0',
  }
}

module.exports = { shims, shimEnv }

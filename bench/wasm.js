'use strict'
// The WebAssembly part of `npm run bench` (BENCH_ONLY=wasm, issue 42): the WebAssembly build's
// next() side by side with flake-idgen's in one process of its own (wasm-child.js, under
// NAPI_RS_FORCE_WASI=error: a process loads one build), on one generator and on 64 round-robin,
// ratios within each round, then the median. It needs the build beside binding.js (`npm run
// build:wasm`) or its package installed; without either, a full run skips it, saying so, and
// BENCH_ONLY=wasm fails.

const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { median } = require('./stats.js')

const CHILD = path.join(__dirname, 'wasm-child.js')

/** Whether the WebAssembly build is where binding.js looks for it. */
function built() {
  if (fs.existsSync(path.join(__dirname, '..', 'flake-idgen-rs.wasm32-wasi.wasm'))) return true
  try {
    require.resolve('flake-idgen-rs-wasm32-wasi')
    return true
  } catch {
    return false
  }
}

/** The child's samples; rejects with why it could not time them. */
async function run() {
  if (!built()) {
    throw new Error('no WebAssembly build beside binding.js nor its package: run `npm run build:wasm` first')
  }
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CHILD], {
    env: { ...process.env, NAPI_RS_FORCE_WASI: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk
  })
  const status = await new Promise((resolve) => child.on('close', resolve))
  if (status !== 0) throw new Error(`its process exited ${status}`)
  const { target, samples } = JSON.parse(out)
  if (target !== 'wasm32-wasi') throw new Error(`its process loaded ${target}, not the WebAssembly build`)
  return samples
}

function print(samples, printTable) {
  const ratio = (a, b) => median(samples[a].map((x, round) => x / samples[b][round]))
  const rows = [
    ['WebAssembly build (wasm32-wasip1-threads)', 'ns/call', '× flake-idgen', '× floor'],
    ['`next()`', 'wasmNext'],
    ['`next()`, 64 generators (ids 0–63) round-robin', 'wasmNext64'],
    ['flake-idgen 1.4.0 `next()`, in the same process', 'flakeIdgen'],
    ['floor: `Date.now()` + `Buffer.alloc(8)`', 'floor'],
  ]
  console.log()
  printTable([
    rows[0],
    ...rows
      .slice(1)
      .map(([what, key]) => [
        what,
        `${median(samples[key]).toFixed(1)} ns`,
        ratio(key, 'flakeIdgen').toFixed(2),
        ratio(key, 'floor').toFixed(2),
      ]),
  ])
  console.log()
  for (const [what, key] of [
    ['the WebAssembly build’s `next()` ≤ 1.0 × flake-idgen `next()`, 1 generator', 'wasmNext'],
    ['the WebAssembly build’s `next()` ≤ 1.0 × flake-idgen `next()`, 64 generators', 'wasmNext64'],
  ]) {
    const value = ratio(key, 'flakeIdgen')
    console.log(`target: ${what}: ${value.toFixed(2)} ${value <= 1 ? 'met' : 'MISSED'}`)
  }
}

module.exports = { built, run, print }

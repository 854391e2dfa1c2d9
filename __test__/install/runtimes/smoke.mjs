// Run by runtimes.test.js under Bun and Deno (and Node, for the host-scope check), from a
// project that has the package installed: ESM, as such a project would import it.
//
//   smoke.mjs api           every check below that one process can make; prints the names of
//                           those that passed, as JSON, or throws
//   smoke.mjs host ID OUT   prints "ready", reads a start time (ms since 1970) on stdin, takes
//                           ids of generator ID from then for 100 ms, and writes them to OUT
//   smoke.mjs wasm          as api, for the WebAssembly build (NAPI_RS_FORCE_WASI=error): no host
//                           scope, and in a worker thread no shared state, each refused, coded

import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import FlakeId, { FlakeId as Named } from 'flake-idgen-rs'

/** `take()` again and again until it issues: one generator id gives 4,096 ids a millisecond. */
function spin(take) {
  for (;;) {
    try {
      return take()
    } catch (error) {
      if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
    }
  }
}

function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`)
}

/** Each 8-byte id of `buffers` (Buffers of ids one after the other) above the one before. */
function increasing(buffers) {
  let last = -1n
  for (const buffer of buffers) {
    for (let at = 0; at < buffer.length; at += 8) {
      const id = buffer.readBigUInt64BE(at)
      if (id <= last) return false
      last = id
    }
  }
  return true
}

const checks = {
  esm() {
    check(typeof FlakeId === 'function' && Named === FlakeId, 'the default and the named export')
  },
  next() {
    const generator = new FlakeId({ id: 1 })
    const ids = Array.from({ length: 10_000 }, () => spin(() => generator.next()))
    check(
      ids.every((id) => Buffer.isBuffer(id) && id.length === 8),
      '8-byte Buffers',
    )
    check(increasing(ids), 'ids increase')
  },
  nextBigInt() {
    const generator = new FlakeId({ id: 2 })
    const first = generator.nextBigInt()
    const second = spin(() => generator.nextBigInt())
    check(typeof first === 'bigint' && second > first, `${first} then ${second}`)
  },
  nextString() {
    const generator = new FlakeId({ id: 3 })
    const first = generator.nextString()
    const second = spin(() => generator.nextString())
    check(/^\d+$/.test(first) && BigInt(second) > BigInt(first), `${first} then ${second}`)
  },
  async nextCallbacks() {
    // More than a millisecond's ids: some callbacks wait for the clock, and still come in order.
    const generator = new FlakeId({ id: 4 })
    const count = 10_000
    const order = []
    const ids = []
    await new Promise((resolve, reject) => {
      for (let i = 0; i < count; i++) {
        generator.next((error, id) => {
          if (error) reject(error)
          order.push(i)
          ids.push(id)
          if (ids.length === count) resolve()
        })
      }
    })
    check(
      order.every((called, i) => called === i),
      'callbacks in the order of their calls',
    )
    check(increasing(ids), 'ids increase')
  },
  async nextAsync() {
    const id = await new FlakeId({ id: 5 }).nextAsync()
    check(Buffer.isBuffer(id) && id.length === 8, 'an 8-byte Buffer')
  },
  async nextBatchAsync() {
    const generator = new FlakeId({ id: 6 })
    const ids = await generator.nextBatchAsync(20_000)
    check(ids.length === 160_000 && increasing([ids]), '20,000 increasing ids')
    const controller = new AbortController()
    // Far more ids than a few milliseconds give: the abort comes first.
    const batch = generator.nextBatchAsync(10_000_000, { signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    const outcome = await batch.then(
      () => 'resolved',
      (error) => error.name,
    )
    check(outcome === 'AbortError', `aborted batch: ${outcome}`)
    check(spin(() => generator.nextBigInt()) > ids.readBigUInt64BE(ids.length - 8), 'ids after the abort increase')
  },
  decompose() {
    const before = Date.now()
    const id = new FlakeId({ datacenter: 7, worker: 9 }).next()
    const parts = FlakeId.decompose(id)
    check(
      parts.datacenter === 7 && parts.worker === 9,
      JSON.stringify(parts, (_, v) => String(v)),
    )
    check(Number(parts.timestamp) >= before - 1 && Number(parts.timestamp) <= Date.now() + 1, 'its time')
  },
  async workerThreads() {
    // Two workers and this thread on one generator id, in each scope: no id twice. An id for
    // each scope: one id has one state in a process.
    for (const [scope, id] of [
      ['process', 8],
      ['host', 9],
    ]) {
      const options = { id, scope }
      const count = 20_000
      const url = new URL('./smoke-worker.mjs', import.meta.url)
      const workers = [0, 1].map(() => new Worker(url, { workerData: { options, count } }))
      const messages = workers.map((worker) => once(worker, 'message'))
      const generator = new FlakeId(options)
      const own = Buffer.concat(Array.from({ length: count }, () => spin(() => generator.next())))
      const all = [own, ...(await Promise.all(messages)).map(([ids]) => Buffer.from(ids))]
      await Promise.all(workers.map((worker) => worker.terminate()))
      const seen = new Set()
      for (const ids of all) {
        check(ids.length === count * 8, `${count} ids from each thread`)
        for (let at = 0; at < ids.length; at += 8) seen.add(ids.readBigUInt64BE(at))
      }
      check(seen.size === 3 * count, `${scope} scope: ${3 * count - seen.size} duplicates`)
    }
  },
}

// The WebAssembly build's own rules, in place of the checks that need host scope and threads.
const wasmChecks = {
  wasmBuild() {
    const require = createRequire(import.meta.resolve('flake-idgen-rs'))
    const target = require('./binding.js').__napiBindingTarget
    check(target === 'wasm32-wasi', `the WebAssembly build, not ${target}`)
  },
  hostScopeRefused() {
    let code
    try {
      new FlakeId({ id: 10, scope: 'host' })
    } catch (error) {
      code = error.code
    }
    check(code === 'ERR_FLAKE_STATE_DIR', `scope 'host' refused: ${code}`)
  },
  async workerRefused() {
    const url = new URL('./smoke-worker.mjs', import.meta.url)
    const worker = new Worker(url, { workerData: { options: { id: 11, scope: 'process' }, count: 1 } })
    const [error] = await once(worker, 'error')
    check(
      error.code === 'ERR_FLAKE_WASM_THREAD' ||
        String(error.message).includes('issues from a shared state on the main thread only'),
      `a shared state in a worker refused: ${error.code} ${error.message}`,
    )
  },
  uuidv7() {
    const { uuidv7 } = FlakeId
    const [a, b] = [uuidv7(), uuidv7()]
    check(/^[0-9a-f]{8}-[0-9a-f]{4}-7/.test(a) && b > a, `${a} then ${b}`)
  },
}

async function api(wasm = false) {
  const passed = []
  const { workerThreads: _, ...portable } = checks
  for (const [name, run] of Object.entries(wasm ? { ...portable, ...wasmChecks } : checks)) {
    await run()
    passed.push(name)
  }
  console.log(JSON.stringify(passed))
}

async function host(id, out) {
  const generator = new FlakeId({ id: Number(id), scope: 'host' })
  check(generator.scope === 'host', `host scope, not ${generator.scope}`)
  console.log('ready')
  let input = ''
  for await (const chunk of process.stdin) {
    input += chunk
    if (input.includes('\n')) break
  }
  const start = Number(input.trim())
  // Asleep until just before the start, so as not to hold a core the other process needs.
  await new Promise((resolve) => setTimeout(resolve, start - Date.now() - 10))
  while (Date.now() < start);
  const ids = []
  while (Date.now() < start + 100) ids.push(spin(() => generator.next()))
  writeFileSync(out, Buffer.concat(ids))
  process.exit(0)
}

const [mode, ...args] = process.argv.slice(2)
await (mode === 'host' ? host(...args) : api(mode === 'wasm'))

'use strict'
// Issue 22: the package under Bun and Deno, both installed as devDependencies from the npm
// registry (each ships its binary in a platform package). runtimes/smoke.mjs runs in a project
// that has the package installed. A runtime that cannot run here fails its tests, saying why:
// nothing is skipped.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFile, execFileSync, spawn } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { copyPackage, linkPackage, root } = require('../support/package-copy.js')

const { platform, arch } = process
const exe = platform === 'win32' ? '.exe' : ''
const musl = platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime
// Where each runtime's npm package has its binary: in its platform package, which the main
// package's postinstall links in, unless install scripts were off (`npm install --ignore-scripts`
// leaves a placeholder there).
const bunPlatform = `${platform === 'win32' ? 'windows' : platform}-${arch === 'arm64' ? 'aarch64' : arch}${musl ? '-musl' : ''}`
const denoPlatform = `${platform}-${arch}${platform === 'linux' ? '-glibc' : ''}`
const RUNTIMES = {
  bun: {
    binaries: () => [
      path.join(packageDir('bun'), 'bin', 'bun.exe'),
      path.join(packageDir(`@oven/bun-${bunPlatform}`), 'bin', `bun${exe}`),
    ],
    args: [],
  },
  deno: {
    binaries: () => [
      path.join(packageDir('deno'), `deno${exe}`),
      path.join(packageDir(`@deno/${denoPlatform}`), `deno${exe}`),
    ],
    // What the README says Deno needs.
    args: ['run', '--allow-ffi', '--allow-env', '--allow-read'],
  },
}

/** An installed package's directory, or a path that does not exist if it is not installed. */
function packageDir(name) {
  try {
    return path.dirname(require.resolve(`${name}/package.json`))
  } catch {
    return path.join(__dirname, '..', '..', 'node_modules', name)
  }
}

/** The runtime's binary that runs here; throws, saying why, if none does. */
function binaryOf(runtime) {
  const tried = []
  for (const binary of RUNTIMES[runtime].binaries()) {
    try {
      execFileSync(binary, ['--version'], { stdio: 'pipe', timeout: 60_000 })
      return binary
    } catch (error) {
      tried.push(`${binary}: ${error.code ?? error.message.split('\n')[0]}`)
    }
  }
  throw new Error(
    `${runtime} cannot run on this machine (${platform}-${arch}): ${tried.join('; ')}. ` +
      `It is a devDependency: \`npm install\` installs it unless install scripts are off.`,
  )
}

/** A project with the package installed and the smoke scripts; removed after the tests. */
function project(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-runtimes-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "runtimes-fixture", "private": true }\n')
  for (const file of fs.readdirSync(path.join(__dirname, 'runtimes'))) {
    fs.copyFileSync(path.join(__dirname, 'runtimes', file), path.join(dir, file))
  }
  copyPackage(dir)
  return dir
}

/** `command` for smoke.mjs under `runtime` ('node' too), which may write to `out`. */
function smoke(runtime, out) {
  if (runtime === 'node') return [process.execPath, ['smoke.mjs']]
  // The smoke script's own file, not the package, needs Deno's leave to write.
  const write = runtime === 'deno' && out !== undefined ? [`--allow-write=${out}`] : []
  return [binaryOf(runtime), [...RUNTIMES[runtime].args, ...write, 'smoke.mjs']]
}

/** Starts `smoke.mjs host` under `runtime`; resolves once it is ready, to the process. */
function startHost(runtime, dir, id, out) {
  const [file, args] = smoke(runtime, out)
  const child = spawn(file, [...args, 'host', String(id), out], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] })
  let printed = ''
  const exited = new Promise((resolve) => child.on('close', (code) => resolve({ code, printed })))
  const ready = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      printed += chunk
      if (printed.includes('ready')) resolve()
    })
    child.stderr.on('data', (chunk) => {
      printed += chunk
    })
    exited.then(() => reject(new Error(`${runtime} exited before it was ready:\n${printed}`)))
  })
  return ready.then(() => ({ child, exited }))
}

// The checks smoke.mjs passes on either build, in its order: the forms of the API.
const FORMS = ['esm', 'next', 'nextBigInt', 'nextString', 'nextCallbacks', 'nextAsync', 'nextBatchAsync', 'decompose']

/** Runs smoke.mjs (`file` `args`): the names of the checks it passed, its last line. */
function passedChecks(runtime, file, args, options) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 300_000, ...options }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${runtime} failed: ${error.message}\n${stdout}\n${stderr}`))
        : resolve(JSON.parse(stdout.trim().split('\n').pop())),
    )
  })
}

for (const runtime of Object.keys(RUNTIMES)) {
  test(`${runtime}: next, nextBigInt, nextString, next(cb), nextAsync, nextBatchAsync with an abort, decompose, worker threads, ESM import`, async (t) => {
    const dir = project(t)
    const [file, args] = smoke(runtime)
    assert.deepEqual(await passedChecks(runtime, file, [...args, 'api'], { cwd: dir }), [...FORMS, 'workerThreads'])
  })

  test(`${runtime} and a Node process share host scope: no id twice`, async (t) => {
    const dir = project(t)
    const outs = [runtime, 'node'].map((who) => path.join(dir, `${who}.ids`))
    // Each is ready (loaded, its generator made) before either starts: their 100 ms overlap.
    const hosts = await Promise.all([runtime, 'node'].map((who, i) => startHost(who, dir, 400, outs[i])))
    const start = Date.now() + 1000
    for (const { child } of hosts) child.stdin.end(`${start}\n`)
    for (const { exited } of hosts) {
      const { code, printed } = await exited
      assert.equal(code, 0, printed)
    }
    const seen = new Set()
    const ranges = outs.map((out) => {
      const ids = fs.readFileSync(out)
      assert.ok(ids.length > 0, `no ids in ${out}`)
      for (let at = 0; at < ids.length; at += 8) seen.add(ids.readBigUInt64BE(at))
      return { count: ids.length / 8, first: ids.readBigUInt64BE(0), last: ids.readBigUInt64BE(ids.length - 8) }
    })
    // Taken at the same time, on one generator id: each one's ids fall between the other's.
    const [a, b] = ranges
    assert.ok(a.first < b.last && b.first < a.last, 'the two took ids at the same time')
    assert.equal(a.count + b.count - seen.size, 0, 'duplicates')
  })
}

// The WebAssembly build under each runtime (issue 42), where `npm run build:wasm` left it beside
// binding.js (the wasm step of .ci/platforms runs these in its build's tree): smoke.mjs's checks
// for it, from a project that has the package with the build beside binding.js, as the main
// package loads it, and the runtime's packages its loader requires.
const WASM_FILES = JSON.parse(fs.readFileSync(path.join(root, 'npm', 'wasm32-wasi', 'package.json'), 'utf8')).files
const wasmBuilt = fs.existsSync(path.join(root, WASM_FILES[0]))
const WASM_RUNTIME = ['@napi-rs/wasm-runtime', '@emnapi/core', '@emnapi/runtime', '@emnapi/wasi-threads', 'tslib']
// What Deno needs besides: napi-rs's loader gives WASI the file system's root, and Deno's WASI
// asks leave to write there.
const WASM_ARGS = { bun: [], deno: ['--allow-write'] }

for (const runtime of Object.keys(RUNTIMES)) {
  test(`${runtime}: the WebAssembly build (NAPI_RS_FORCE_WASI=error): next and its forms, next(cb), nextAsync, nextBatchAsync, decompose, uuidv7, its refusals`, {
    skip: !wasmBuilt && `no WebAssembly build beside binding.js (\`npm run build:wasm\` makes one)`,
  }, async (t) => {
    const dir = project(t)
    const into = path.join(dir, 'node_modules', 'flake-idgen-rs')
    for (const file of WASM_FILES) fs.copyFileSync(path.join(root, file), path.join(into, file))
    for (const name of WASM_RUNTIME) {
      fs.mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true })
      linkPackage(dir, name, packageDir(name))
    }
    const [file, args] = smoke(runtime)
    const wasmArgs = [...args.slice(0, -1), ...WASM_ARGS[runtime], args.at(-1), 'wasm']
    // Without the harness's state directory (isolate.js sets one where the tests run on a native
    // build), which the build, having no host scope, refuses.
    const { FLAKE_IDGEN_STATE_DIR, ...inherited } = process.env
    const env = { ...inherited, NAPI_RS_FORCE_WASI: 'error' }
    assert.deepEqual(await passedChecks(runtime, file, wasmArgs, { cwd: dir, env }), [
      ...FORMS,
      'wasmBuild',
      'hostScopeRefused',
      'workerRefused',
      'uuidv7',
    ])
  })
}

test('Deno without its permissions names the flags it lacks, not a reinstall', async (t) => {
  const dir = project(t)
  const deno = binaryOf('deno')
  const script = path.join(dir, 'load.mjs')
  fs.writeFileSync(
    script,
    "try { await import('flake-idgen-rs') } catch (e) { console.log(JSON.stringify([e.code, e.message])) }\n",
  )
  for (const [granted, missing] of [
    [[], ['--allow-ffi', '--allow-env', '--allow-read']],
    [['--allow-env', '--allow-read'], ['--allow-ffi']],
    [['--allow-ffi', '--allow-read'], ['--allow-env']],
    [['--allow-ffi', '--allow-env'], ['--allow-read']],
  ]) {
    const printed = execFileSync(deno, ['run', ...granted, script], { cwd: dir, encoding: 'utf8', timeout: 120_000 })
    const [code, message] = JSON.parse(printed)
    assert.equal(code, 'ERR_FLAKE_DENO_PERMISSION', message)
    assert.ok(message.includes(`without ${missing.join(', ')}:`), message)
    assert.match(message, /run with --allow-ffi --allow-env --allow-read/)
    assert.doesNotMatch(message, /reinstall/)
  }
})

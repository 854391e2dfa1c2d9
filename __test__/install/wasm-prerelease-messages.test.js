'use strict'
// Issue 50: what a user of the WebAssembly build is told. The error for a platform with no
// binary names that build; Deno, given the native binary's three permissions but not leave to
// write, is said to lack that permission, not a binary; the build's host-scope warning prints
// once, in a process that runs on and in one that exits at once.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { copyPackage, linkPackage, root } = require('../support/package-copy.js')

const wasmPackage = require('../../npm/wasm32-wasi/package.json')
const missing = wasmPackage.files.filter((file) => !fs.existsSync(path.join(root, file)))
const noWasmBuild =
  missing.length > 0 &&
  `no WebAssembly build in the checkout (no ${missing.join(', ')}): \`npm run build:wasm\` makes one`
// What the build's loader requires, from the checkout's node_modules (devDependencies, and
// theirs).
const WASM_RUNTIME = ['@napi-rs/wasm-runtime', '@emnapi/core', '@emnapi/runtime', '@emnapi/wasi-threads', 'tslib']
const deno = path.join(root, 'node_modules', '.bin', 'deno')

// A user's environment: no state directory of the harness's (isolate.js), which the
// WebAssembly build refuses.
const { FLAKE_IDGEN_STATE_DIR, ...env } = process.env

/** A project with the package installed, without a native binary: with the build, if `wasm`. */
function project(t, wasm) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-wasm-messages-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "wasm-messages", "private": true }\n')
  const into = copyPackage(dir)
  for (const file of fs.readdirSync(into)) if (file.endsWith('.node')) fs.rmSync(path.join(into, file))
  if (wasm) {
    for (const file of wasmPackage.files) fs.copyFileSync(path.join(root, file), path.join(into, file))
    for (const name of WASM_RUNTIME) {
      fs.mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true })
      linkPackage(dir, name, path.join(root, 'node_modules', name))
    }
  }
  return dir
}

const LOAD = `try {
  await import('flake-idgen-rs')
  console.log(JSON.stringify(['loaded']))
} catch (error) {
  console.log(JSON.stringify([error.code, error.message]))
}
`

test('no binary for the platform: the error names the WebAssembly build and how npm installs it', (t) => {
  const dir = project(t, false)
  // napi-rs knows freebsd-x64; no package is published for it.
  const script = `
    Object.defineProperty(process, 'platform', { value: 'freebsd' })
    Object.defineProperty(process, 'arch', { value: 'x64' })
    try { require('flake-idgen-rs') } catch (error) { console.log(JSON.stringify([error.code, error.message])) }`
  const [code, message] = JSON.parse(
    execFileSync(process.execPath, ['-e', script], { cwd: dir, env, encoding: 'utf8' }),
  )
  assert.equal(code, 'ERR_FLAKE_NO_NATIVE_BINARY')
  assert.match(message, /WebAssembly build/)
  assert.ok(message.includes(`${wasmPackage.name} `), message)
  assert.ok(message.includes('npm install --cpu=wasm32'), message)
  assert.ok(message.includes('docs/install.md'), message)
})

test('Deno without --allow-write, where only the WebAssembly build is installed: the permission is named', {
  skip: noWasmBuild || (process.platform !== 'linux' && 'the deno devDependency is installed for Linux'),
  timeout: 120_000,
}, (t) => {
  const dir = project(t, true)
  fs.writeFileSync(path.join(dir, 'load.mjs'), LOAD)
  const run = (flags) =>
    JSON.parse(
      execFileSync(deno, ['run', ...flags, 'load.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 })
        .trim()
        .split('\n')
        .at(-1),
    )
  const [code, message] = run(['--allow-ffi', '--allow-env', '--allow-read'])
  assert.equal(code, 'ERR_FLAKE_DENO_PERMISSION', message)
  assert.ok(message.includes('WebAssembly build without --allow-write:'), message)
  assert.ok(message.includes('run with --allow-ffi --allow-env --allow-read --allow-write'), message)
  // The flags the message gives are enough.
  assert.deepEqual(run(['--allow-ffi', '--allow-env', '--allow-read', '--allow-write']), ['loaded'])
})

test('the WebAssembly build says once that it has no host scope: in a process that runs on, and in one that exits at once', {
  skip: noWasmBuild,
  timeout: 120_000,
}, () => {
  const take = `const FlakeId = require(${JSON.stringify(root)}); new FlakeId({ id: 12 }).next();`
  for (const script of [take, `${take} process.exit(0)`]) {
    const { status, stderr } = spawnSync(process.execPath, ['-e', script], {
      env: { ...env, NAPI_RS_FORCE_WASI: 'error' },
      encoding: 'utf8',
      timeout: 60_000,
    })
    assert.equal(status, 0, stderr)
    const lines = stderr.split('\n').filter((line) => line.includes('[FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE]'))
    assert.equal(lines.length, 1, `${script}:\n${stderr}`)
    assert.match(lines[0], /the WebAssembly build has no host scope/)
  }
})

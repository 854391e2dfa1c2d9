'use strict'
// `npm run lint` after `npm run build` or `npm run build:wasm`: the files napi-rs writes beside
// binding.js are its, not ours, and Biome must not check them (issue 52: the WASI loaders of a
// WebAssembly build failed the lint with 69 errors). The names are read from napi-rs's own CLI,
// so that a version that writes another file fails here before it fails a lint.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const root = path.join(__dirname, '..', '..')
const { napi, scripts } = require('../../package.json')
const cli = fs.readFileSync(path.join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'index.js'), 'utf8')

/** The text of the CLI from `start` to the first `end` after it; fails if napi-rs no longer has it. */
function cliSource(start, end) {
  const from = cli.indexOf(start)
  assert.ok(from >= 0, `@napi-rs/cli has no \`${start}\`: see which files it writes now`)
  return cli.slice(from, cli.indexOf(end, from))
}

/** Every file `napi build` writes beside the loader, for the native and the WebAssembly targets. */
function generatedFiles() {
  const suffixes = [...cliSource('const MANAGED_WASI_FLAVORS = [', '];').matchAll(/loaderSuffix: "([^"]+)"/g)]
  const templates = [
    ...cliSource('function allManagedWasiFilesForSuffix(binaryName, loaderSuffix) {', '\n}').matchAll(
      /[`"]([^`"]+)[`"]/g,
    ),
  ]
  assert.ok(suffixes.length > 0 && templates.length > 0)
  const wasiFiles = suffixes.flatMap(([, loaderSuffix]) =>
    templates.map(([, template]) =>
      template.replace(/\$\{binaryName\}/g, napi.binaryName).replace(/\$\{loaderSuffix\}/g, loaderSuffix),
    ),
  )
  // The browser entry a WebAssembly build writes beside them (a root entry of its package).
  assert.ok(cli.includes('join(dir, "browser.js")'), 'napi build no longer writes browser.js')
  const [, js] = scripts.build.match(/--js (\S+)/)
  const [, dts] = scripts.build.match(/--dts (\S+)/)
  return [...new Set([js, dts, 'browser.js', ...wasiFiles])]
}

test('Biome checks none of the files napi build writes, and still checks ours', (t) => {
  const files = generatedFiles()
  for (const file of ['binding.js', 'wasi-worker.mjs', `${napi.binaryName}.wasi.cjs`])
    assert.ok(files.includes(file), file)

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-lint-scope-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.copyFileSync(path.join(root, 'biome.jsonc'), path.join(dir, 'biome.jsonc'))
  // A statement no Biome rule or format lets pass, in each, and in a file of ours.
  const failing = 'debugger;var  unused=1\n'
  for (const file of [...files, 'ours.js']) fs.writeFileSync(path.join(dir, file), failing)

  const biome = path.join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome')
  const { status, stdout, stderr } = spawnSync(
    process.execPath,
    [biome, 'check', '--error-on-warnings', '--max-diagnostics=none', '--colors=off', '.'],
    { cwd: dir, encoding: 'utf8' },
  )
  const output = stdout + stderr
  assert.equal(status, 1, output)
  assert.match(output, /^ours\.js:\d+:\d+ lint\/suspicious\/noDebugger/m)
  for (const file of files) assert.ok(!output.includes(file), `${file} was checked:\n${output}`)
  // biome.jsonc and ours.js.
  assert.match(output, /Checked 2 files/)
})

'use strict'
// .github/workflows/release.yml runs only on GitHub, on a version tag, and CI.yml on every push.
// Here: `npm run lint` lints both (actionlint, with shellcheck for their scripts:
// scripts/lint-workflows.js); CI lints once, builds each target of `napi.targets` once and tests
// those builds on each OS and Node line; release builds the same matrix, tests as CI does and
// publishes; and its publish steps, run on a copy of the checkout with an npm that records
// `publish` instead of uploading, publish the tarballs `npm run pack:release` makes: every
// platform package with its binary, then a main package that names them all and carries no
// script.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const root = path.join(__dirname, '..', '..')
const workflowDir = path.join(root, '.github', 'workflows')
const workflowFile = path.join(workflowDir, 'release.yml')
const workflow = fs.readFileSync(workflowFile, 'utf8')
const ci = fs.readFileSync(path.join(workflowDir, 'CI.yml'), 'utf8')
const packageJson = require('../../package.json')
const { binaryName, packageName, targets } = packageJson.napi
const allTargets = require('../support/targets.js')
const abiOf = (triple) => [...allTargets, allTargets.wasm].find((target) => target.triple === triple).abi

// The publish job's commands, run by the last test as the workflow runs them.
const ARTIFACTS = 'npx napi artifacts --output-dir artifacts'
const PACK = 'npm run -s pack:release -- "$RUNNER_TEMP/release" --all --no-build >"$RUNNER_TEMP/tarballs"'

/** The `run:` script of the publish job's step named `name`, as bash runs it. */
function stepScript(job, name) {
  const step = job.slice(job.indexOf(`- name: ${name}\n`))
  const [, script] = step.match(/\n {8}run: \|\n((?: {10}.*\n)+)/)
  return script.replace(/^ {10}/gm, '')
}

/** The text of each job of `text` (a workflow), by name: the lines under `jobs:` indented by two spaces, up to the next. */
function jobs(text = workflow) {
  text = text.slice(text.indexOf('\njobs:\n'))
  return Object.fromEntries(
    text
      .split(/^ {2}(?=[\w-]+:$)/m)
      .slice(1)
      .map((job) => [job.slice(0, job.indexOf(':')), job]),
  )
}

/** A workflow's text with no comment lines: what runs, not what is said of it. */
const uncommented = (text) => text.replace(/^ *#.*\n/gm, '')

/** The build job's matrix: each target with the host and flags it is built on and with. */
const buildMatrix = (build) => uncommented(build.slice(build.indexOf('include:'), build.indexOf('steps:')))

/** The targets whose build a workflow's test jobs download: by name, or each of the matrix's. */
function testedTargets(text) {
  const tests = Object.entries(jobs(text)).filter(([name]) => name.startsWith('test'))
  const downloaded = tests.flatMap(([, job]) =>
    [...job.matchAll(/name: bindings-(.+)\n/g)].flatMap(([, name]) =>
      name.includes('matrix.platform.target')
        ? [...job.matchAll(/target: (\S+)\n +abi:/g)].map(([, triple]) => triple)
        : [name],
    ),
  )
  return [...new Set(downloaded)]
}

test('`npm run lint` lints every workflow with actionlint and shellcheck', () => {
  assert.match(packageJson.scripts.lint, /&& node scripts\/lint-workflows\.js$/)
  assert.equal(packageJson.scripts.prelint, 'node scripts/lint-tools.js')
  const files = fs.readdirSync(workflowDir).filter((file) => /\.ya?ml$/.test(file))
  assert.deepEqual(files.sort(), ['CI.yml', 'release.yml'])
})

test('CI: every push and pull request is linted once, each target built once, and the builds tested on Node 20 to 26', () => {
  assert.match(ci, /^on:\n {2}push:\n {4}branches:\n {6}- '\*\*'\n/m)
  assert.match(ci, /^ {2}pull_request:\n/m)
  const { lint, build, test: testJob, ...others } = jobs(ci)
  for (const command of ['npm run lint', 'cargo fmt --check', 'cargo clippy --all-targets -- -D warnings'])
    assert.ok(lint.includes(`run: ${command}\n`), command)

  // The same builds as the release's, cached, and uploaded for the tests.
  assert.equal(buildMatrix(build), buildMatrix(jobs().build))
  assert.match(build, /uses: Swatinem\/rust-cache@v2\n +with:\n +key: \$\{\{ matrix\.target \}\}/)
  assert.match(build, /--target \$\{\{ matrix\.target \}\}/)
  assert.match(build, /name: bindings-\$\{\{ matrix\.target \}\}/)
  assert.match(build, /run: git diff --exit-code -- binding\.js binding\.d\.ts\n/)

  // Every Node line engines admits, from 20: its lower bound is CI's oldest line.
  assert.match(packageJson.engines.node, /^>= 20(\.|$)/)
  assert.match(testJob, /node: \['20', '22', '24', '26'\]/)
  assert.match(testJob, /apt-get install -y --no-install-recommends redis-server postgresql mariadb-server/)
  assert.match(testJob, /if: matrix\.platform\.target == 'x86_64-unknown-linux-gnu'\n +run: npm run test:node\n/)
  assert.match(testJob, /if: matrix\.platform\.target != 'x86_64-unknown-linux-gnu'\n +run: npm run test:node:unit\n/)
  assert.match(testJob, /run: npm run test:types\n/)
  assert.match(testJob, /run: cargo test\n/)

  // The tests take the builds: none builds the addon, lints, or installs but from the lockfile.
  const tests = [
    testJob,
    ...Object.entries(others)
      .filter(([name]) => name.startsWith('test-'))
      .map(([, job]) => job),
  ]
  assert.equal(tests.length, 4)
  for (const job of tests) {
    assert.match(job, /needs: build\n/)
    assert.match(job, /run: npm ci --ignore-scripts\n/)
    assert.match(job, /uses: actions\/download-artifact@v8\n +with:\n +name: bindings-/)
    assert.doesNotMatch(
      uncommented(job),
      /npm (test|install|run (lint|build|test:rust|test:unit)\b)|napi build|cargo (clippy|fmt)/,
    )
  }
  assert.deepEqual(testedTargets(ci).sort(), [...targets].sort())
  assert.doesNotMatch(uncommented(ci), /npm install|npm test/)
})

test('the workflow builds, tests and publishes every target of napi.targets, on a version tag', () => {
  assert.match(workflow, /^on:\n {2}push:\n {4}tags:\n {6}- 'v\*'\n/m)
  const { build, test: testJob, 'test-musl': testMusl, 'test-armv7': testArmv7, publish } = jobs()
  assert.ok(build && testJob && testMusl && testArmv7 && publish, Object.keys(jobs()).join(', '))

  const built = [...build.matchAll(/^ +- target: (\S+)$/gm)].map(([, triple]) => triple)
  assert.deepEqual(built.sort(), [...targets].sort())
  assert.match(build, /--target \$\{\{ matrix\.target \}\}/)
  assert.match(build, /name: bindings-\$\{\{ matrix\.target \}\}/)

  // Each target's tests run on the binary built for it, the loader told to load it: npm test on
  // a runner of its own, the musl ones in Alpine, armv7 under qemu.
  const tested = [...testJob.matchAll(/- target: (\S+)\n +abi: (\S+)\n +host: (\S+)/g)]
  const musl = [...testMusl.matchAll(/- target: (\S+)\n +abi: (\S+)\n +host: (\S+)/g)]
  for (const [, triple, abi] of [...tested, ...musl]) {
    assert.equal(abi, abiOf(triple), triple)
  }
  assert.match(testJob, /name: bindings-\$\{\{ matrix\.platform\.target \}\}/)
  // As CI tests: every Node test where the servers install, the rest where they do not.
  assert.match(testJob, /apt-get install -y --no-install-recommends redis-server postgresql mariadb-server/)
  assert.match(testJob, /if: runner\.os == 'Linux'\n +run: npm run test:node\n/)
  assert.match(testJob, /if: runner\.os != 'Linux'\n +run: npm run test:node:unit\n/)
  assert.doesNotMatch(uncommented(workflow), /npm test|npm install/)
  assert.match(testMusl, /name: bindings-\$\{\{ matrix\.platform\.target \}\}/)
  assert.match(testMusl, /flake-idgen-rs\.\$\{\{ matrix\.platform\.abi \}\}\.node/)
  assert.match(testArmv7, /name: bindings-armv7-unknown-linux-gnueabihf$/m)
  assert.match(testArmv7, /flake-idgen-rs\.linux-arm-gnueabihf\.node/)
  assert.deepEqual(
    [
      ...tested.map(([, triple]) => triple),
      ...musl.map(([, triple]) => triple),
      'armv7-unknown-linux-gnueabihf',
      allTargets.wasm.triple,
    ].sort(),
    [...targets].sort(),
  )
  // The WebAssembly build's tests load it alone, from the package's artifact.
  const { 'test-wasm': testWasm } = jobs()
  assert.match(testWasm, /name: bindings-wasm32-wasip1-threads$/m)
  assert.match(testWasm, /NAPI_RS_FORCE_WASI: error/)

  assert.deepEqual(testedTargets(workflow).sort(), [...targets].sort())
  assert.match(publish, /needs: \[lint, test, test-musl, test-armv7, test-wasm\]/)
  assert.match(publish, /id-token: write/)
  for (const command of [ARTIFACTS, PACK]) assert.ok(publish.includes(command), command)
  assert.match(stepScript(publish, 'Publish'), /npm publish "\$tarball"/)
  assert.match(publish, /NPM_CONFIG_PROVENANCE: 'true'/)
})

/**
 * The WebAssembly build's artifact as the build job uploads it: a module (the least napi-rs
 * takes: one that exports `_initialize`) and its loaders, whose first line says, as `napi build
 * --no-js` writes it, that they own no entry of the main package.
 */
function writeWasmArtifact(dir) {
  const initialize = Buffer.from('_initialize')
  const module = Buffer.concat([
    Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]),
    Buffer.from([0x01, 0x04, 0x01, 0x60, 0x00, 0x00]), // one type: () -> ()
    Buffer.from([0x03, 0x02, 0x01, 0x00]), // one function of it
    Buffer.from([0x07, 3 + initialize.length, 0x01, initialize.length]),
    initialize,
    Buffer.from([0x00, 0x00]), // exported as a function, the first
    Buffer.from([0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b]), // its empty body
  ])
  fs.writeFileSync(path.join(dir, `${binaryName}.wasm32-wasi.wasm`), module)
  const metadata = { version: 2, rootEntry: null, exports: ['setup'], managedRootEntries: [] }
  fs.writeFileSync(
    path.join(dir, `${binaryName}.wasi.cjs`),
    `// napi-rs-artifact-metadata:${JSON.stringify(metadata)}\nmodule.exports = {}\n`,
  )
  for (const file of [
    `${binaryName}.wasi.d.cts`,
    `${binaryName}.wasi-browser.js`,
    'wasi-worker.mjs',
    'wasi-worker-browser.mjs',
  ])
    fs.writeFileSync(path.join(dir, file), `// ${file} of the WebAssembly build\n`)
}

test("the publish steps publish pack:release's tarballs: every platform package with its binaries, then a main package naming them", (t) => {
  if (process.platform === 'win32')
    return t.skip('the publish job runs on Linux; this test fakes npm as a shell script')
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `${packageName}-release-`))
  t.after(() => fs.rmSync(work, { recursive: true, force: true }))

  // The checkout as committed, with its dev tools, and an artifact per target, as download-artifact
  // leaves them.
  const repo = path.join(work, 'repo')
  for (const file of execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0')) {
    if (file === '' || !fs.existsSync(path.join(root, file))) continue
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true })
    fs.copyFileSync(path.join(root, file), path.join(repo, file))
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(repo, 'node_modules'), 'dir')
  for (const triple of targets) {
    const dir = path.join(repo, 'artifacts', `bindings-${triple}`)
    fs.mkdirSync(dir, { recursive: true })
    if (triple === allTargets.wasm.triple) writeWasmArtifact(dir)
    else fs.writeFileSync(path.join(dir, `${binaryName}.${abiOf(triple)}.node`), `binary of ${triple}`)
  }

  // npm, except that `publish` writes what it would upload to a log.
  const bin = path.join(work, 'bin')
  const log = path.join(work, 'published.jsonl')
  const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim()
  fs.mkdirSync(bin)
  fs.writeFileSync(
    path.join(bin, 'npm'),
    `#!/bin/sh
if [ "$1" = publish ]; then
  exec "${process.execPath}" -e '
    const fs = require("node:fs"), path = require("node:path"), { execFileSync } = require("node:child_process")
    const tarball = path.resolve(process.argv[1])
    const dir = fs.mkdtempSync(tarball + "-")
    execFileSync("tar", ["xzf", tarball, "-C", dir])
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package", "package.json"), "utf8"))
    const files = fs.readdirSync(path.join(dir, "package")).sort()
    const provenance = process.argv.includes("--provenance") || process.env.NPM_CONFIG_PROVENANCE === "true"
    fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ manifest, files, provenance }) + "\\n")
  ' "$2" "$@"
fi
exec "${realNpm}" "$@"
`,
    { mode: 0o755 },
  )
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}`, RUNNER_TEMP: work }
  delete env.GITHUB_REPOSITORY // else napi pre-publish would look for a GitHub release
  const sh = (command, extra = {}) =>
    execFileSync('sh', ['-c', command], {
      cwd: repo,
      env: { ...env, ...extra },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    })

  sh(ARTIFACTS)
  execFileSync('bash', ['-e', '-c', stepScript(jobs().publish, 'Publish')], {
    cwd: repo,
    env: { ...env, NPM_CONFIG_PROVENANCE: 'true', NPM_CONFIG_ACCESS: 'public' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })

  const published = fs
    .readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  assert.equal(published.length, targets.length + 1)
  const main = published.pop()
  for (const [i, triple] of targets.entries()) {
    const { manifest, files, provenance } = published[i]
    const binary = `${binaryName}.${abiOf(triple)}.${triple === allTargets.wasm.triple ? 'wasm' : 'node'}`
    assert.equal(manifest.name, `${packageName}-${abiOf(triple)}`)
    assert.equal(manifest.version, packageJson.version)
    assert.ok(files.includes(binary), `${manifest.name} has ${binary}`)
    if (triple !== allTargets.wasm.triple)
      assert.equal(fs.readFileSync(path.join(repo, 'npm', abiOf(triple), binary), 'utf8'), `binary of ${triple}`)
    else for (const file of ['wasi-worker.mjs', `${binaryName}.wasi.cjs`]) assert.ok(files.includes(file), file)
    assert.equal(provenance, true, manifest.name)
  }

  assert.equal(main.manifest.name, packageName)
  assert.equal(main.provenance, true)
  assert.deepEqual(
    main.manifest.optionalDependencies,
    Object.fromEntries(targets.map((triple) => [`${packageName}-${abiOf(triple)}`, packageJson.version])),
  )
  for (const field of ['scripts', 'devDependencies', 'overrides', 'allowScripts'])
    assert.equal(main.manifest[field], undefined, field)
  assert.ok(!main.files.some((file) => file.endsWith('.node')), main.files.join(', '))
  for (const file of ['index.js', 'lib', 'bin', 'binding.js', 'index.d.ts']) assert.ok(main.files.includes(file), file)
})

'use strict'
// Issue 51, item 4: a fresh process's first id paid for binding.js (890 generated lines, compiled
// and run to choose the binary; where /usr/bin/ldd is missing, a diagnostic report of 5 ms or
// more to tell musl from glibc) and for two modules it needs only for the WebAssembly build.
// lib/binding/load-binding.js loads the binary binding.js would choose, without running it: here, on
// every target of napi.targets, with its C library told by each of binding.js's probes, it must
// ask for the very files and packages binding.js asks for, in its order, or leave the choice to
// binding.js. Both run with process.platform, arch and the C library's traces faked, and a
// require that records what each asks for, as platforms.test.js runs binding.js.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const vm = require('node:vm')

const root = path.join(__dirname, '..', '..')
const packageJson = require('../../package.json')
const { binaryName, packageName } = packageJson.napi
const targets = require('../support/targets.js')
const codedError = require('../../lib/errors/coded-error.js')

const file = ({ abi }) => `./${binaryName}.${abi}.node`
const pkg = ({ abi }) => `${packageName}-${abi}`
const notFound = (id) => Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' })
const enoent = () => Object.assign(new Error('ENOENT'), { code: 'ENOENT' })

const GLIBC_MAPS = '7f0000000000-7f0000028000 r--p 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n'
const MUSL_MAPS = '7f0000000000-7f0000014000 r--p 00000000 08:01 1 /lib/ld-musl-x86_64.so.1\n'

/**
 * The traces of a C library binding.js's probe `probe` reads (`ldd`: /usr/bin/ldd, `report`:
 * process.report, `ldd --version`: the command), and nothing else of them but /proc/self/maps
 * where process.report is there (it reads the same). `maps` overrides /proc/self/maps' text.
 */
function system({ platform, arch, libc }, probe, maps) {
  const musl = libc === 'musl'
  const files = {}
  if (probe === 'ldd') files['/usr/bin/ldd'] = musl ? 'exec /lib/ld-musl-x86_64.so.1 --list "$@"\n' : '# GNU libc ldd\n'
  if (probe === 'report') files['/proc/self/maps'] = maps ?? (musl ? MUSL_MAPS : GLIBC_MAPS)
  const fakeFs = {
    readFileSync(name, encoding) {
      if (Object.hasOwn(files, name)) return files[name]
      // load-binding.js reads the package's own package.json.
      if (path.resolve(name) === path.join(root, 'package.json')) return fs.readFileSync(name, encoding)
      throw enoent()
    },
  }
  const report = {
    excludeNetwork: false,
    getReport: () =>
      musl
        ? { header: {}, sharedObjects: ['/lib/ld-musl-x86_64.so.1'] }
        : { header: { glibcVersionRuntime: '2.36' }, sharedObjects: ['/lib/x86_64-linux-gnu/libc.so.6'] },
  }
  const childProcess = {
    execSync: () => {
      if (probe !== 'ldd --version') throw enoent()
      return musl ? 'musl libc (x86_64)\nVersion 1.2.5\n' : 'ldd (GNU libc) 2.36\n'
    },
  }
  return {
    process: {
      platform,
      arch,
      env: {},
      config: { variables: {} },
      versions: process.versions,
      report: probe === 'report' && report,
    },
    builtins: { fs: fakeFs, 'node:fs': fakeFs, child_process: childProcess, 'node:child_process': childProcess },
  }
}

/** Runs `file` (relative to the package) as a CommonJS module with `require` and `process`. */
function run(relative, require, fakeProcess) {
  const filename = path.join(root, relative)
  const module = { exports: {} }
  const wrapper = vm.compileFunction(fs.readFileSync(filename, 'utf8'), [
    'exports',
    'require',
    'module',
    '__filename',
    '__dirname',
    'process',
  ])
  wrapper(module.exports, require, module, filename, path.dirname(filename), fakeProcess)
  return module.exports
}

/**
 * Loads the binary as `entry` (lib/binding/load-binding.js or binding.js) does on `target`, whose C
 * library `probe` tells, with `installed` (ids as binding.js names them) requirable. Returns
 * what each file asked for, as binding.js names it, whether binding.js ran, and the exports or
 * the error.
 */
function load(entry, target, probe, { installed = {}, env = {}, config, maps } = {}) {
  const { process: fakeProcess, builtins } = system(target, probe, maps)
  Object.assign(fakeProcess.env, env)
  if (config !== undefined) fakeProcess.config = config
  const asked = { 'lib/binding/load-binding.js': [], 'binding.js': [] }
  let ranBinding = false
  const requireFrom = (relative) => {
    const require = (id) => {
      if (Object.hasOwn(builtins, id)) return builtins[id]
      if (id === 'node:path') return path
      if (relative === 'lib/binding/load-binding.js') {
        if (id === '../../binding.js') {
          ranBinding = true
          return run('binding.js', requireFrom('binding.js'), fakeProcess)
        }
        if (id === './wasm-instance.js') return { capturing: (loadIt) => loadIt() }
        // What it throws when nothing loads is loaded then, from a module of its own.
        if (id === './load-failure.js') return run('lib/binding/load-failure.js', requireFrom(id), fakeProcess)
        if (id === '../../package.json') return packageJson
      }
      if (relative === './load-failure.js' && id === '../errors/coded-error.js') return codedError
      // As binding.js names it: a file beside it, or a package.
      const named = id.startsWith('../../') ? `./${id.slice(6)}` : id
      asked[relative].push(named)
      if (Object.hasOwn(installed, named)) return installed[named]
      throw notFound(named)
    }
    require.resolve = (id) => {
      throw notFound(id)
    }
    return require
  }
  try {
    const exports = run(entry, requireFrom(entry), fakeProcess)
    return { asked, ranBinding, exports }
  } catch (error) {
    return { asked, ranBinding, error }
  }
}

// binding.js's probes of the C library, on Linux: the first it can read decides.
const probes = (target) => (target.platform === 'linux' ? ['ldd', 'report', 'ldd --version'] : [undefined])

test("load-binding.js asks for binding.js's files and packages, in its order, or leaves it to binding.js", () => {
  for (const target of targets) {
    for (const probe of probes(target)) {
      const where = `${target.triple}, libc from ${probe}`
      const theirs = load('binding.js', target, probe).asked['binding.js']
      const ours = load('lib/binding/load-binding.js', target, probe)
      // With nothing installed, each asks for every binary it would load, then binding.js runs.
      assert.equal(ours.error?.code, 'ERR_FLAKE_NO_NATIVE_BINARY', where)
      assert.deepEqual(ours.asked['binding.js'], theirs, where)
      // Its own choice is binding.js's, but where only binding.js's last probe tells the libc.
      const own = ours.asked['lib/binding/load-binding.js']
      assert.deepEqual(own, probe === 'ldd --version' ? [] : theirs, where)
      assert.ok(own.length === 0 || own.slice(-2).join() === [file(target), pkg(target)].join(), where)
    }
  }
})

test('load-binding.js exports the binary binding.js would, as binding.js exports it, and binding.js never runs', () => {
  for (const target of targets) {
    for (const probe of probes(target).filter((probe) => probe !== 'ldd --version')) {
      for (const installed of [file(target), pkg(target)]) {
        const where = `${target.triple}, libc from ${probe}, ${installed}`
        // binding.js reads a platform package's version, and compares it only when asked to.
        const version = { [`${pkg(target)}/package.json`]: { version: packageJson.version } }
        const binary = () => ({ createGenerator() {}, abi: target.abi })
        const theirs = load('binding.js', target, probe, { installed: { ...version, [installed]: binary() } }).exports
        const mine = binary()
        const ours = load('lib/binding/load-binding.js', target, probe, {
          installed: { ...version, [installed]: mine },
        })
        assert.equal(ours.error, undefined, where)
        assert.equal(ours.ranBinding, false, where)
        assert.equal(ours.exports, mine, where)
        // binding.js's stamp of the build, as binding.js defines it.
        const stamp = (exports) => Object.getOwnPropertyDescriptor(exports, '__napiBindingTarget')
        assert.deepEqual(stamp(ours.exports), stamp(theirs), where)
        assert.equal(ours.exports.__napiBindingTarget, 'native', where)
      }
    }
  }
})

test("what changes binding.js's choice leaves the choice to binding.js", () => {
  const [glibc] = targets
  for (const name of [
    'NAPI_RS_NATIVE_LIBRARY_PATH',
    'NAPI_RS_FORCE_WASI',
    'NAPI_RS_WASI_FLAVOR',
    'NAPI_RS_ENFORCE_VERSION_CHECK',
  ]) {
    const env = { [name]: name === 'NAPI_RS_WASI_FLAVOR' ? 'wasm32-wasi' : '1' }
    const ours = load('lib/binding/load-binding.js', glibc, 'ldd', { env })
    assert.deepEqual(ours.asked['lib/binding/load-binding.js'], [], name)
    assert.equal(ours.ranBinding, true, name)
  }
  // /proc/self/maps naming both C libraries, or neither, does not tell: binding.js asks.
  for (const maps of [`${GLIBC_MAPS}${MUSL_MAPS}`, '7f0000000000-7f0000001000 r--p 00000000 00:00 0 [vdso]\n']) {
    assert.equal(
      load('lib/binding/load-binding.js', glibc, 'report', { maps }).asked['lib/binding/load-binding.js'].length,
      0,
    )
  }
  // A Node built as a shared library, or by MinGW, on Windows x64: binding.js's GNU build.
  const windows = targets.find(({ triple }) => triple === 'x86_64-pc-windows-msvc')
  for (const variables of [{ shlib_suffix: 'dll.a' }, { node_target_type: 'shared_library' }]) {
    const config = { variables }
    const theirs = load('binding.js', windows, undefined, { config }).asked['binding.js']
    const ours = load('lib/binding/load-binding.js', windows, undefined, { config }).asked[
      'lib/binding/load-binding.js'
    ]
    assert.deepEqual(ours, theirs, JSON.stringify(variables))
    assert.ok(ours.includes(`./${binaryName}.win32-x64-gnu.node`), ours.join())
  }
})

test("this machine's C library, told from /proc/self/maps, is the one process.report tells", {
  skip: process.platform !== 'linux' && 'Linux only',
}, () => {
  const report = process.report.getReport()
  const target = { platform: 'linux', arch: process.arch, libc: report.header.glibcVersionRuntime ? 'glibc' : 'musl' }
  const maps = fs.readFileSync('/proc/self/maps', 'utf8')
  const theirs = load('binding.js', target, 'report').asked['binding.js']
  assert.deepEqual(
    load('lib/binding/load-binding.js', target, 'report', { maps }).asked['lib/binding/load-binding.js'],
    theirs,
  )
})

test("a fresh process's first id loads the binary without binding.js, nor what only the WebAssembly build needs", () => {
  const script = `
    const FlakeId = require('.')
    new FlakeId({ id: 1 }).next()
    const path = require('node:path')
    console.log(JSON.stringify(Object.keys(require.cache).map((file) => path.relative(process.cwd(), file).replaceAll(path.sep, '/'))))`
  const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' })
  assert.equal(status, 0, stderr)
  const loaded = JSON.parse(stdout)
  assert.ok(
    loaded.some((file) => file.endsWith('.node')),
    loaded.join(),
  )
  for (const file of [
    'binding.js',
    'lib/binding/wasm-instance.js',
    'lib/errors/coded-error.js',
    'lib/binding/earlier-copies.js',
    'package.json',
  ]) {
    assert.ok(!loaded.includes(file), `${file} loaded: ${loaded.join()}`)
  }
})

// Issue 51, item 4: napi's dyn-symbols looked up every N-API function napi knows with dlsym as the
// binary loaded, a fifth of its load time. Built without it outside Windows (Cargo.toml), the
// binary leaves the dynamic linker to bind those it calls, and names no other: with it, it names
// them all, for dlsym.
test('outside Windows the binary names no N-API function it never calls: it looks none up as it loads', {
  skip: process.platform === 'win32' && 'Windows looks N-API up at run time (MSVC), by design',
}, (t) => {
  require('../..')
  const binary = Object.keys(require.cache).find((file) => file.endsWith('.node'))
  if (binary === undefined) return t.skip('the WebAssembly build loaded: it has no N-API of the host to bind')
  const named = new Set(fs.readFileSync(binary, 'latin1').match(/napi_[a-z0-9_]+(?=\0)/g))
  assert.ok(named.has('napi_create_function'), `${binary} names N-API's functions as this test reads them`)
  for (const uncalled of ['napi_open_callback_scope', 'napi_fatal_exception', 'napi_adjust_external_memory']) {
    assert.ok(!named.has(uncalled), `${path.basename(binary)} names ${uncalled}`)
  }
})

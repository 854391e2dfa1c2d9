'use strict'
// A process's start pays only for what its first id needs: the rest loads on first use, and
// every export is then what it always was.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')

/** What `script` prints as JSON, run in a fresh process in the package's directory. */
function fresh(script) {
  const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(status, 0, stderr)
  return JSON.parse(stdout)
}

// The package's own modules a process has loaded, relative to the package, with / on every OS.
const LOADED = `Object.keys(require.cache).map((file) => require('node:path').relative(process.cwd(), file).replaceAll(require('node:path').sep, '/')).filter((file) => file.startsWith('lib/'))`

test('require and a first id load neither UUIDv7, Flake128, leases, callbacks, async batches, batches of the native side, the loader’s errors, the formats table nor the command', () => {
  const loaded = fresh(
    `const FlakeId = require('.'); new FlakeId({ id: 1 }).next(); console.log(JSON.stringify(${LOADED}))`,
  )
  assert.ok(loaded.includes('lib/generator/flake-id.js') && loaded.includes('lib/binding/native.js'), loaded.join())
  for (const later of [
    'uuidv7.js',
    'flake128.js',
    'lease/',
    'callbacks.js',
    'batch-async.js',
    'wait.js',
    'warn.js',
    'binding/native-rest.js',
    'binding/load-failure.js',
    // The id methods are named without it (see id-methods.js).
    'formats/formats.js',
    'cli/',
  ]) {
    assert.ok(
      !loaded.some((file) => file.startsWith(`lib/${later}`) || file.endsWith(`/${later}`)),
      `${later} loaded: ${loaded.join()}`,
    )
  }
})

test('each later part loads with the call that needs it, and works', () => {
  const loaded = fresh(`
    const FlakeId = require('.')
    const generator = new FlakeId({ id: 2 })
    generator.next((error, id) => {
      if (error) throw error
      generator.nextBatchAsync(2).then((ids) => {
        FlakeId.uuidv7()
        new FlakeId.Flake128({ worker: 1 }).next()
        console.log(JSON.stringify([id.length, ids.length, ${LOADED}]))
      })
    })`)
  const [idBytes, batchBytes, files] = [loaded[0], loaded[1], loaded[2]]
  assert.deepEqual([idBytes, batchBytes], [8, 16])
  for (const file of [
    'lib/generator/callbacks.js',
    'lib/generator/batch-async.js',
    'lib/binding/native-rest.js',
    'lib/kinds/uuidv7.js',
    'lib/kinds/flake128.js',
  ])
    assert.ok(files.includes(file), `${file} not loaded: ${files.join()}`)
})

test('the exports: the same keys, values and property kinds as plain assignments make, once read', () => {
  const FlakeId = require('../..')
  assert.deepEqual(Object.keys(FlakeId), ['FlakeId', 'default', 'uuidv7', 'Flake128'])
  for (const name of ['uuidv7', 'Flake128']) {
    const value = FlakeId[name]
    assert.equal(typeof value, 'function')
    assert.equal(FlakeId[name], value)
    assert.deepEqual(Object.getOwnPropertyDescriptor(FlakeId, name), {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    })
  }
  // Assigned before it is ever read, an export is replaced, as a plain property would be.
  const replaced = fresh(
    `const FlakeId = require('.'); FlakeId.uuidv7 = 7; console.log(JSON.stringify([FlakeId.uuidv7, ${LOADED}.includes('lib/kinds/uuidv7.js')]))`,
  )
  assert.deepEqual(replaced, [7, false])
})

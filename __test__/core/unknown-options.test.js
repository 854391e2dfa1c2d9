'use strict'
// Issue 52, item 4b: an option a constructor or factory does not take. new FlakeId() ignores it
// with a warning (flake-idgen ignores it), worded by the native side (src/options/unknown.rs);
// every JS surface refuses it, in the same words and naming the same option meant, by one module
// (lib/options/unknown.js), whose copy of the native nearest() is held to it here.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('../..')
const binding = require('../../lib/binding/load-binding.js')
const { nearest, unknownOption } = require('../../lib/options/unknown.js')
const { FLAKE_ID_OPTIONS, LEASE_OPTIONS, CLIENT_OPTIONS } = require('../../lib/id-sources/index.js')
const { BATCH_HANDLER_OPTIONS } = require('../../lib/member/options.js')
const { STATE_OPTIONS } = require('../../lib/options/options.js')

// A client recognised as ioredis's that fails the test if a lease ever calls it.
const store = { defineCommand() {}, call: async () => assert.fail('the store was called'), duplicate() {} }

/** The warning new FlakeId() emits for an option `name` (each name warns once a process). */
async function flakeIdWarning(name) {
  const warnings = []
  const listen = (warning) => warnings.push(warning)
  process.on('warning', listen)
  try {
    new FlakeId({ [name]: 1, scope: 'process' })
    await new Promise(setImmediate)
  } finally {
    process.off('warning', listen)
  }
  const ours = warnings.filter((warning) => warning.code === 'FLAKE_IDGEN_UNKNOWN_OPTION')
  assert.equal(ours.length, 1, `warnings for ${name}: ${warnings.map(String)}`)
  return ours[0].message.replace(/^flake-idgen-rs: /, '')
}

/** The error's message, once it is the refusal of an option. */
function refusal(error) {
  assert.ok(error instanceof TypeError, error.stack)
  assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
  return error.message
}

/** What each JS surface says of option `name`: [owner, the options it takes, message]. */
async function refusals(name) {
  const thrown = (run) => {
    try {
      run()
    } catch (error) {
      return refusal(error)
    }
    assert.fail(`option ${name} was taken`)
  }
  const leased = await FlakeId.lease({ store, namespace: 'x', [name]: 1 }).then(
    () => assert.fail(`FlakeId.lease() took ${name}`),
    refusal,
  )
  const generator = new FlakeId({ scope: 'process' })
  return [
    ['FlakeId.lease()', LEASE_OPTIONS, leased],
    ['generator.batchHandler()', BATCH_HANDLER_OPTIONS, thrown(() => generator.batchHandler({ [name]: 1 }))],
    ['FlakeId.client()', CLIENT_OPTIONS, thrown(() => FlakeId.client({ [name]: 1 }))],
    ['uuidv7.create()', STATE_OPTIONS, thrown(() => FlakeId.uuidv7.create({ [name]: 1 }))],
    ['Flake128', [...STATE_OPTIONS, 'worker', 'interface'], thrown(() => new FlakeId.Flake128({ [name]: 1 }))],
    ['uuidv7()', ['msecs', 'seq', 'random', 'rng'], thrown(() => FlakeId.uuidv7({ [name]: 1 }))],
  ]
}

test("lib/options/unknown.js names the option meant as the native side's nearest() does", () => {
  const names = [
    ...['workerId', 'worker_id', 'WORKER', 'datacenterId', 'dataCenterId', 'machineId', 'nodeId', 'processId'],
    ...['ids', 'wokrer', 'epochMs', 'seqmask', 'statedir', 'allowedFuture', 'a', 'Id', 'timeBits', '__proto__', ''],
    ...['generatorId', 'dcId', 'dc', 'namspace', 'ttL', 'acquireTimout', 'tokn', 'prefetchCont', 'member', 'timeout'],
    ...['maxcount', 'allow-no-token', 'MAX_QUEUED', 'scop', 'clok', 'épоch', 'wörker', 'idid', 'x'.repeat(300)],
  ]
  const lists = [FLAKE_ID_OPTIONS, LEASE_OPTIONS, [...LEASE_OPTIONS, 'id', 'worker'], CLIENT_OPTIONS]
  for (const known of [...lists, BATCH_HANDLER_OPTIONS, STATE_OPTIONS]) {
    for (const name of names) {
      assert.equal(nearest(name, known), binding.nearestOption(name, known) ?? undefined, `${name} among ${known}`)
    }
  }
})

test('new FlakeId() warns in the words every other surface refuses with', async () => {
  // The options it takes, as the native side lists them: the sources' table's, in its own order.
  const listed = (await flakeIdWarning('zzqqxx')).match(/\(it takes ([^)]*)\)/)[1].split(', ')
  assert.deepEqual([...listed].sort(), [...FLAKE_ID_OPTIONS].sort())
  for (const name of ['workerId', 'wokrer', 'qqzzxx', 'a\0b\u001b\u0301"', 'é'.repeat(70)]) {
    const warning = await flakeIdWarning(name)
    const head = unknownOption('new FlakeId()', name, listed)
    assert.ok(warning.startsWith(`${head}. It is ignored`), `${warning}\n${head}`)
  }
})

test('every JS surface refuses an unknown option, and a typo, the same way', async () => {
  // A typo of an option each takes, and a name near none: the first names the option meant.
  const cases = [
    ['tokn', 'token', ['generator.batchHandler()', 'FlakeId.client()']],
    ['mescs', 'msecs', ['uuidv7()']],
    ['sope', 'scope', ['FlakeId.lease()', 'uuidv7.create()', 'Flake128']],
    ['stateDIR', 'stateDir', ['FlakeId.lease()', 'uuidv7.create()', 'Flake128']],
  ]
  for (const [typo, meant, owners] of cases) {
    const said = (await refusals(typo)).filter(([owner]) => owners.includes(owner))
    assert.equal(said.length, owners.length)
    for (const [owner, , message] of said) {
      assert.equal(message, `${owner} has no option "${typo}" (did you mean "${meant}"?)`)
    }
  }
  for (const [owner, known, message] of await refusals('colour')) {
    assert.equal(message, `${owner} has no option "colour" (it takes ${known.join(', ')})`)
    assert.equal(message, unknownOption(owner, 'colour', known))
  }
})

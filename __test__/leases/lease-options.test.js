'use strict'
// FlakeId.lease()'s options are refused by name when it does not know them: a misspelt one
// never leaves a default in force. No store is reached: the options are read first.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('../..')

// A client recognised as ioredis's that fails the test if a lease ever calls it.
const store = {
  defineCommand() {},
  call: async () => assert.fail('the store was called'),
  duplicate() {},
}

const refused = (options, message) =>
  assert.rejects(FlakeId.lease(options), (error) => {
    assert.ok(error instanceof TypeError, error.stack)
    assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
    assert.match(error.message, message)
    return true
  })

test('a misspelt option is refused by name, with the nearest one', async () => {
  await refused(
    { store, namspace: 'orders' },
    /^FlakeId\.lease\(\) has no option "namspace" \(did you mean "namespace"\?\)$/,
  )
  await refused(
    { store, namespace: 'orders', ttL: 5000 },
    /^FlakeId\.lease\(\) has no option "ttL" \(did you mean "ttl"\?\)$/,
  )
  await refused({ store, namespace: 'orders', acquireTimout: 1 }, /did you mean "acquireTimeout"\?/)
  // A generator option the lease sets itself is named too: using it is refused as such.
  await refused(
    { store, namespace: 'orders', workerId: 3 },
    /^FlakeId\.lease\(\) has no option "workerId" \(did you mean "worker"\?\)$/,
  )
  await refused(
    { store, namespace: 'orders', nodeId: 3 },
    /^FlakeId\.lease\(\) has no option "nodeId" \(did you mean "id"\?\)$/,
  )
  await refused({ store, namespace: 'orders', worker: 3 }, /option `worker` must be left out: a lease sets it/)
  // Nothing near: the options it takes are listed.
  await refused(
    { store, namespace: 'orders', colour: 'blue' },
    /^FlakeId\.lease\(\) has no option "colour" \(it takes store, namespace, .*, scope, stateDir\)$/,
  )
})

test('a JSON-parsed `__proto__` is an own key, refused; a key of odd characters is quoted', async () => {
  const options = JSON.parse('{"namespace": "orders", "__proto__": {"ttl": 100}}')
  options.store = store
  await refused(options, /^FlakeId\.lease\(\) has no option "__proto__" \(it takes /)
  await refused({ store, namespace: 'orders', 'a\nb': 1 }, /^FlakeId\.lease\(\) has no option "a\\nb" \(it takes /)
})

test('only own enumerable string keys are options: symbols and inherited keys are left alone', async () => {
  const base = (over) => Object.assign(Object.create({ inherited: true }), { store, namespace: 'orders', ...over })
  // Past the options, the first thing that fails is the bad ttl: so neither key was refused.
  await assert.rejects(FlakeId.lease(base({ [Symbol('tag')]: 1, ttl: 5 })), {
    code: 'ERR_FLAKE_INVALID_OPTION',
    message: /option `ttl` must be an integer from 100/,
  })
  const hidden = base({ ttl: 5 })
  Object.defineProperty(hidden, 'namspace', { value: 'x', enumerable: false })
  await assert.rejects(FlakeId.lease(hidden), { message: /option `ttl`/ })
})

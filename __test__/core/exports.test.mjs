// Every way of importing the package reaches the same class.

import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import test from 'node:test'
import FlakeIdDefault, { Flake128, FlakeId as FlakeIdNamed, uuidv7 } from '../../index.js'

const require = createRequire(import.meta.url)

test('ESM default and named imports, CJS require forms', () => {
  const FlakeId = require('../..')
  assert.equal(typeof FlakeId, 'function')
  for (const other of [FlakeIdDefault, FlakeIdNamed, require('../..').FlakeId, require('../..').default]) {
    assert.equal(other, FlakeId)
  }
  assert.ok(Buffer.isBuffer(new FlakeIdNamed({ worker: 1 }).next()))
})

test('uuidv7 and Flake128: ESM named imports and CJS require reach the same', () => {
  assert.equal(uuidv7, require('../..').uuidv7)
  assert.equal(Flake128, require('../..').Flake128)
  assert.equal(typeof uuidv7(), 'string')
  assert.equal(new Flake128({ worker: 1 }).next().length, 16)
})

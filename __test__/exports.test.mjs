// Every way of importing the package reaches the same class.

import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import test from 'node:test'
import FlakeIdDefault, { FlakeId as FlakeIdNamed } from '../index.js'

const require = createRequire(import.meta.url)

test('ESM default and named imports, CJS require forms', () => {
  const FlakeId = require('..')
  assert.equal(typeof FlakeId, 'function')
  for (const other of [FlakeIdDefault, FlakeIdNamed, require('..').FlakeId, require('..').default]) {
    assert.equal(other, FlakeId)
  }
  assert.ok(Buffer.isBuffer(new FlakeIdNamed({ worker: 1 }).next()))
})

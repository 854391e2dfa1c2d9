'use strict'
// A kind is spelled in one place on each side (issue 40): its row of KINDS (src/kinds/mod.rs),
// which the binding lists (`kinds()`); its one TypeScript name, `KindName`; and its command row
// in WIDE_KINDS (lib/cli/decompose.js). Each is held here against the binding's list, so a kind
// added to one and not the others fails.

const test = require('node:test')
const assert = require('node:assert/strict')
const { readFileSync } = require('node:fs')
const path = require('node:path')
const binding = require('../../lib/binding/load-binding.js')
const { WIDE_KINDS } = require('../../lib/cli/decompose.js')

const names = binding.kinds().map((row) => row.name)

test("the binding's kinds are KINDS' rows, each described as its name says", () => {
  assert.ok(names.length >= 3, `${names}`)
  assert.equal(new Set(names).size, names.length, `${names}`)
  for (const row of binding.kinds()) assert.deepEqual(binding.describeKind(row.name), row)
})

test("the one TypeScript name of a kind, KindName, holds exactly the binding's kinds", () => {
  assert.deepEqual(Object.values(binding.KindName).sort(), [...names].sort())
  const declared = readFileSync(path.join(__dirname, '../../binding.d.ts'), 'utf8')
  const union = declared.match(/^export type KindName = (.*)$/m)
  assert.ok(union, 'binding.d.ts declares KindName')
  assert.deepEqual(union[1].split(' | ').sort(), names.map((name) => `'${name}'`).sort())
  // No other declaration spells a kind: each takes a KindName.
  const elsewhere = declared.replace(union[0], '')
  for (const name of names) assert.doesNotMatch(elsewhere, new RegExp(`'${name}'`), name)
})

test("the command's decompose rows are the binding's 128-bit kinds, in its order", () => {
  const wide = binding.kinds().filter((row) => row.bytes === 16)
  assert.deepEqual(
    WIDE_KINDS.map((kind) => kind.type),
    wide.map((row) => row.name),
  )
})

test("each decompose row's forms take its kind's text and no other kind's", () => {
  const { uuidv7, Flake128 } = require('../..')
  const made = {
    uuidv7: [uuidv7()],
    flake128: [Flake128.toBase62(new Flake128({ worker: 1, scope: 'process' }).next()), `0x${'0'.repeat(31)}1`],
  }
  for (const kind of WIDE_KINDS) {
    assert.ok(made[kind.type], `a test id for ${kind.type}`)
    for (const other of WIDE_KINDS) {
      for (const text of made[other.type]) {
        assert.equal(
          kind.forms.some((form) => form.test(text)),
          kind === other,
          `${kind.type} on ${other.type}'s ${text}`,
        )
      }
    }
  }
})

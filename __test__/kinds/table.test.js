'use strict'
// The kinds' table (src/kinds/mod.rs, KINDS) as JS reads it (describeKind): each row says what
// the kind's ids are, and is checked here against ids the kind made and read back.

const test = require('node:test')
const assert = require('node:assert/strict')
const binding = require('../../lib/binding/load-binding.js')
const FlakeId = require('../..')
const { uuidv7, Flake128 } = require('../..')

test('each row: the bytes of its ids, and the parts its decompose gives after timestamp and date', () => {
  const flake = new Flake128({ worker: 7, scope: 'process' })
  const made = {
    flakeId: [new FlakeId({ id: 3, scope: 'process' }).next(), FlakeId.decompose],
    uuidv7: [uuidv7(undefined, Buffer.alloc(16)), uuidv7.decompose],
    flake128: [flake.next(), Flake128.decompose],
  }
  for (const [name, [id, decompose]] of Object.entries(made)) {
    const row = binding.describeKind(name)
    assert.equal(row.name, name)
    assert.equal(row.bytes, id.length, name)
    const [timestamp, date, ...parts] = Object.keys(decompose(id))
    assert.deepEqual([timestamp, date], ['timestamp', 'date'], name)
    // A layout adds its node id's parts by its own names (flake-idgen's datacenter and worker).
    assert.deepEqual(
      parts.filter((part) => row.parts.includes(part)),
      row.parts,
      name,
    )
    if (name !== 'flakeId') assert.deepEqual(parts, row.parts, name)
  }
})

test("the 128-bit rows' ids per millisecond: as many as a clock that stands still gives", () => {
  assert.equal(binding.describeKind('flakeId').idsPerMs, undefined, "a layout's own")
  const stillClock = () => 1_700_000_000_000
  const flake = new Flake128({ worker: 9, clock: stillClock, scope: 'process' })
  const take = {
    uuidv7: uuidv7.create({ clock: stillClock, scope: 'process' }),
    flake128: () => flake.next(),
  }
  for (const [name, next] of Object.entries(take)) {
    let issued = 0
    assert.throws(
      () => {
        for (;;) {
          next()
          issued++
        }
      },
      { code: 'ERR_FLAKE_SEQUENCE_OVERFLOW' },
    )
    assert.equal(issued, binding.describeKind(name).idsPerMs, name)
  }
})

test('an unknown kind is refused', () => {
  assert.throws(() => binding.describeKind('uuidv4'), /unusable call/)
})

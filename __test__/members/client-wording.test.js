'use strict'
// Issue 52, item 4c: the client loads no binary (it runs in workerd and Edge runtimes), so it words
// a bad value with a JS copy of the native side's wording (lib/options/wording.js). Here the copy
// is held to the native messages for the same bad values, as new FlakeId() and nextBatch() throw
// them: one wording, whichever side checks.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const FlakeId = require('../..')
const binding = require('../../lib/binding/load-binding.js')
const wording = require('../../lib/options/wording.js')

// Values of every kind the native side tells apart, and strings its quoting escapes or cuts.
const BAD_VALUES = [
  true,
  false,
  1.5,
  -1,
  -0.5,
  5000,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e21,
  1.5e-7,
  2 ** 53 + 2,
  10n,
  -(10n ** 60n),
  10n ** 60n,
  Symbol('tag'),
  () => {},
  class {},
  {},
  [],
  [1, 2],
  new Map(),
  /regex/,
  new Date(0),
  new Date(1.5),
  new Date(Number.NaN),
  Buffer.alloc(1),
  Buffer.alloc(3),
  new Uint8Array(0),
  new Uint16Array(2),
  new Uint8ClampedArray(1),
  new DataView(new ArrayBuffer(2)),
  Object.defineProperty(new Uint8Array(2), 'length', { value: 9 }),
  'abc',
  '',
  ' ',
  'x'.repeat(40),
  'x'.repeat(41),
  '😀'.repeat(41),
  'a\0b\t\r\n\\"\'\u007f\u001b',
  '\u0301e\u0301',
  '\u200b\u00a0\u2028\u3000\ufeff',
  '\ud800 lone \udfff',
  '\ud83d'.repeat(45),
]

/** What new FlakeId({ id: value }) throws: its message parsed, its class and code. */
function nativeRefusal(value) {
  try {
    new FlakeId({ id: value, scope: 'process' })
  } catch (error) {
    const [, expected, got] = error.message.match(/^option `id` must be (.*), got (.*)$/s)
    return { error, expected, got }
  }
  assert.fail(`new FlakeId() took id ${String(value)}`)
}

test("the client's copy shows every value as the native side does", () => {
  for (const value of BAD_VALUES) {
    assert.equal(wording.describe(value), binding.describeValue(value), String(value?.toString?.() ?? typeof value))
  }
  // Every character, alone: what the native side escapes (Rust's `{:?}`) and prints.
  for (let code = 0; code <= 0x10ffff; code++) {
    const text = String.fromCodePoint(code)
    if (wording.describe(text) !== binding.describeValue(text)) {
      assert.equal(wording.describe(text), binding.describeValue(text), `U+${code.toString(16)}`)
    }
  }
})

test("the client's option errors are new FlakeId()'s, word for word, class and code", () => {
  for (const value of BAD_VALUES) {
    const { error, expected } = nativeRefusal(value)
    const copy = wording.invalidOption('id', expected, value, error instanceof RangeError)
    assert.equal(copy.message, error.message)
    assert.equal(copy.constructor, error.constructor, error.message)
    assert.equal(copy.code, error.code)
  }
  for (const value of [5, 'options', true, Symbol('s'), () => {}, 10n]) {
    const native = captured(() => new FlakeId(value))
    const client = captured(() => FlakeId.client(value))
    assert.deepEqual(
      [client.constructor, client.code, client.message],
      [native.constructor, native.code, native.message],
    )
  }
})

test('FlakeId.client() refuses a bad value in the words new FlakeId() refuses the same value with', () => {
  for (const value of BAD_VALUES) {
    // A member's URL that is no URL: what the client shows of it ends its message, as new FlakeId's.
    const client = captured(() => FlakeId.client({ members: [value] }))
    assert.equal(client.code, 'ERR_FLAKE_INVALID_OPTION')
    const { got } = nativeRefusal(value)
    assert.match(client.message, /^option `members\[0\]` must be /)
    assert.ok(client.message.endsWith(`, got ${got}`), `${client.message}\n…, got ${got}`)
  }
})

test("the client's count errors are nextBatch()'s, word for word, class and code", async () => {
  const generator = new FlakeId({ scope: 'process' })
  const client = FlakeId.client({ members: ['http://127.0.0.1:9/'] })
  try {
    for (const count of ['x', 0, -1, 1.5, 2 ** 25, Number.NaN, 10n, null, undefined, {}]) {
      const native = captured(() => generator.nextBatch(count))
      const copy = await client.nextBatchAsync(count).then(
        () => assert.fail(`the client took count ${String(count)}`),
        (error) => error,
      )
      assert.deepEqual([copy.constructor, copy.code, copy.message], [native.constructor, native.code, native.message])
    }
  } finally {
    await client.close()
  }
})

/** What `run` throws. */
function captured(run) {
  try {
    run()
  } catch (error) {
    return error
  }
  assert.fail('nothing was thrown')
}

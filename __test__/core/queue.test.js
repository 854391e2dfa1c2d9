'use strict'
// The callback queue of next(cb): first in, first out, across segments, reused when empty.

const test = require('node:test')
const assert = require('node:assert/strict')
const Queue = require('../../lib/generator/queue.js')

test('first in, first out across many segments, interleaved', () => {
  const queue = new Queue()
  let pushed = 0
  let shifted = 0
  for (const [push, shift] of [
    [5000, 100],
    [10, 4000],
    [9000, 9000],
    [1, 911],
  ]) {
    for (let i = 0; i < push; i++) assert.equal(queue.push(pushed++), pushed - shifted)
    for (let i = 0; i < shift; i++) assert.equal(queue.shift(), shifted++)
    assert.equal(queue.length, pushed - shifted)
  }
  assert.equal(queue.length, 0)
  assert.equal(queue.push('again'), 1)
  assert.equal(queue.shift(), 'again')
})

test('peek gives what shift would, and removes nothing, at every segment boundary', () => {
  const queue = new Queue()
  for (let i = 0; i < 5000; i++) queue.push(i)
  for (let i = 0; i < 5000; i++) {
    assert.equal(queue.peek(), i)
    assert.equal(queue.length, 5000 - i)
    assert.equal(queue.shift(), i)
  }
})

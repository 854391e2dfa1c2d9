'use strict'

// Segments: a burst of a million next(cb) calls would otherwise grow one array to a million
// slots, copying it on each growth, which costs more than answering the calls. The first is
// small and each next one twice as big up to SEGMENT: most queues hold a call or two, and a
// short-lived generator should not carry 2,048 slots.
const FIRST = 8
const SEGMENT = 2048

function segment(size) {
  return { items: new Array(size), read: 0, write: 0, next: null }
}

/** A first-in first-out queue of callbacks. */
class Queue {
  // Made on the first push: most generators never queue a callback.
  #head = null
  #tail = null
  length = 0

  /** Adds `item` at the end; returns the new length. */
  push(item) {
    let tail = this.#tail
    if (tail === null) {
      tail = this.#head = this.#tail = segment(FIRST)
    } else if (tail.write === tail.items.length) {
      tail = tail.next = segment(Math.min(tail.items.length * 2, SEGMENT))
      this.#tail = tail
    }
    tail.items[tail.write++] = item
    return ++this.length
  }

  /** The first item (the queue must not be empty). */
  peek() {
    const head = this.#head
    return head.read === head.items.length ? head.next.items[0] : head.items[head.read]
  }

  /** The items from the `from`th (0: the first) on, in order, for a look that changes none. */
  *items(from) {
    let skip = from
    for (let segment = this.#head; segment !== null; segment = segment.next) {
      for (let at = segment.read; at < segment.write; at++) {
        if (skip > 0) skip--
        else yield segment.items[at]
      }
    }
  }

  /** Removes and returns the first item (the queue must not be empty). */
  shift() {
    let head = this.#head
    if (head.read === head.items.length) {
      head = this.#head = head.next
    }
    const item = head.items[head.read]
    head.items[head.read++] = undefined
    if (--this.length === 0) {
      // Start over in the one segment left, so a queue that keeps emptying never allocates.
      head.read = head.write = 0
      head.next = null
      this.#tail = head
    }
    return item
  }
}

module.exports = Queue

'use strict'
// How many acquires the leases of one process run at once on one store client. A fleet of
// leases starting together (500 in one process) would otherwise queue in the client's pool,
// each call's time counting from the start of the queue, not of its statement: every call past
// the first few would time out, try again at the back of the queue, and none would ever lease.
// Waiting here counts against acquireTimeout, never against a store call's own time.

const { setTimeout, clearTimeout } = require('node:timers')

/** Acquires in flight per store client: a few, below a pool's usual 10 connections. */
const IN_FLIGHT = 4

const gates = new WeakMap()

/** The gate of `client` (the user's store client): its acquires in flight, and those waiting. */
function gateOf(client) {
  let gate = gates.get(client)
  if (gate === undefined) {
    gate = { active: 0, waiting: [] }
    gates.set(client, gate)
  }
  return gate
}

/**
 * Resolves, once an acquire on `client` may run, with the function that ends its turn; with
 * null if `ms` pass first (Infinity: never) or `signal` aborts.
 */
function turn(client, ms, signal) {
  const gate = gateOf(client)
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    const next = gate.waiting.shift()
    if (next === undefined) gate.active--
    else next.start()
  }
  if (gate.active < IN_FLIGHT) {
    gate.active++
    return Promise.resolve(end)
  }
  if (!(ms > 0) || signal?.aborted) return Promise.resolve(null)
  return new Promise((resolve) => {
    const waiter = {
      start() {
        clearTimeout(timer)
        signal?.removeEventListener('abort', giveUp)
        resolve(end)
      },
    }
    const giveUp = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', giveUp)
      const at = gate.waiting.indexOf(waiter)
      if (at !== -1) gate.waiting.splice(at, 1)
      resolve(null)
    }
    const timer = Number.isFinite(ms) ? setTimeout(giveUp, ms) : undefined
    signal?.addEventListener('abort', giveUp, { once: true })
    gate.waiting.push(waiter)
  })
}

module.exports = { turn, IN_FLIGHT }

'use strict'

// Where a client's batches come from: one request to a member at a time, a random one first (as
// Hazelcast's clients spread their load), then each other in turn when one fails. A member that
// refuses (a lost lease, a state it lost, a token not its own), answers what is not a batch, or
// does not answer within timeoutMs is passed over; when all were, the error names each and why.
// A member that failed is passed over by later requests too, for a while that doubles with each
// failure in a row (PASS_OVER_MS up to MAX_PASS_OVER_MS), as Hazelcast's client stops using a
// member it lost: with one of two members dead, a refill does not fail over every time. When all
// are passed over, they are asked all the same, the soonest due first: a client never fails
// without asking.
//
// Every I/O object of a request (its AbortController, timer, response) is made and let go within
// that request: edge runtimes (Cloudflare's workerd) refuse one made while serving a request to
// be used while serving another, and a client kept at module scope serves many.
const wire = require('../wire/batch-wire.js')
const codedError = require('../errors/coded-error.js')
const { refusalOf } = require('./refusal.js')
const { transport } = require('./transport.js')

// The global one, which every runtime with fetch has.
const { performance } = globalThis
// How long a member that failed is passed over, doubled with each failure in a row up to the max.
const PASS_OVER_MS = 2000
const MAX_PASS_OVER_MS = 30_000

class Members {
  #config
  // The layout and epoch of the first batch: a member of another one is passed over, since its
  // ids would be read by another rule and could equal this one's.
  #layout
  // The request in flight's AbortController, for close(); undefined between requests.
  #inFlight
  #closed = false
  // member → { until (performance.now() before which it is passed over), passMs (its last wait) }
  #passedOver = new Map()
  #transport
  // Every request's headers: neither transport changes them.
  #headers
  failovers = 0

  /** `via` names a transport (see transport.js), for tests; left out, this runtime's. */
  constructor(config, via) {
    this.#config = config
    this.#transport = transport(via)
    this.#headers = { accept: wire.MEDIA_TYPE }
    if (config.token !== undefined) this.#headers.authorization = `Bearer ${config.token}`
  }

  /** A batch of at most `count` ids ({ layout, node, ranges, count }) from the first member that serves one. */
  async fetch(count) {
    const failures = []
    const order = this.#order()
    for (let k = 0; k < order.length; k++) {
      const member = order[k]
      if (this.#closed) throw closed()
      try {
        const batch = await this.#ask(member, count)
        this.#passedOver.delete(member)
        return batch
      } catch (error) {
        if (this.#closed) throw closed()
        this.#passOver(member)
        failures.push(`${member} (${reasonOf(error)})`)
        if (k + 1 < order.length) this.failovers++
      }
    }
    throw codedError(Error, 'ERR_FLAKE_MEMBERS_UNAVAILABLE', `no member served a batch of ids: ${failures.join('; ')}`)
  }

  /** The members to ask, in turn from a random one: those passed over after the others, the soonest due first. */
  #order() {
    const { members } = this.#config
    const start = Math.floor(Math.random() * members.length)
    const now = performance.now()
    const ready = []
    const waiting = []
    for (let k = 0; k < members.length; k++) {
      const member = members[(start + k) % members.length]
      const passed = this.#passedOver.get(member)
      if (passed === undefined || passed.until <= now) ready.push(member)
      else waiting.push(member)
    }
    waiting.sort((a, b) => this.#passedOver.get(a).until - this.#passedOver.get(b).until)
    return ready.concat(waiting)
  }

  /** Passes over `member`, which failed, for twice as long as after its last failure in a row. */
  #passOver(member) {
    const passMs = Math.min(MAX_PASS_OVER_MS, (this.#passedOver.get(member)?.passMs ?? PASS_OVER_MS / 2) * 2)
    this.#passedOver.set(member, { until: performance.now() + passMs, passMs })
  }

  async #ask(member, count) {
    const { timeoutMs } = this.#config
    const url = `${member}${member.includes('?') ? '&' : '?'}count=${count}`
    // A controller of the request's own, aborted by close() or the timeout, both let go once it
    // is answered; no lifelong one: an edge runtime ties each signal to the request it was made in.
    const request = new AbortController()
    this.#inFlight = request
    const timer = setTimeout(
      () => request.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      timeoutMs,
    )
    try {
      const response = await this.#transport.post(url, this.#headers, request.signal, wire.maxBytes(count))
      if (response.status !== 200) throw refusalOf(response)
      const { type } = response
      if (!type.startsWith(wire.MEDIA_TYPE))
        throw codedError(Error, 'ERR_FLAKE_BAD_BATCH', `a member's answer is ${type || 'untyped'}, not a batch`)
      return this.#checked(wire.decode(response.body), count)
    } finally {
      clearTimeout(timer)
      if (this.#inFlight === request) this.#inFlight = undefined
    }
  }

  /** `batch` with its count, if it is of this client's layout and no larger than asked. */
  #checked(batch, count) {
    const layout = JSON.stringify(batch.layout)
    this.#layout ??= layout
    if (layout !== this.#layout)
      throw codedError(
        Error,
        'ERR_FLAKE_MEMBER_MISMATCH',
        `the member serves ids of layout ${layout}, the first member served ${this.#layout}`,
      )
    const got = wire.countOf(batch.ranges)
    if (got > count) throw codedError(Error, 'ERR_FLAKE_BAD_BATCH', `${got} ids for a request of ${count}`)
    return { ...batch, count: got }
  }

  /** Ends the request in flight: the client is closed. */
  close() {
    this.#closed = true
    this.#inFlight?.abort(closed())
    this.#transport.close()
  }
}

/** Why a request failed, in one line: node:http's errors say it in their code, fetch's in their cause (ECONNREFUSED…). */
function reasonOf(error) {
  const cause = error?.cause
  const why = cause?.code ?? cause?.message
  if (error?.name === 'TimeoutError') return `no answer within the timeout: ${error.message}`
  return `${error?.code ?? error?.name}: ${error?.message}${why === undefined ? '' : ` (${why})`}`
}

const closed = () => codedError(Error, 'ERR_FLAKE_CLIENT_CLOSED', 'the client was closed: it issues no more ids')

module.exports = { Members, closed }

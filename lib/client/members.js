'use strict'

// Where a client's batches come from: one request to a member at a time, a random one first (as
// Hazelcast's clients spread their load), then each other in turn when one fails. A member that
// refuses (a lost lease, a state it lost, a token not its own), answers what is not a batch, or
// does not answer within timeoutMs is passed over; when all were, the error names each and why.

const wire = require('../batch-wire.js')
const codedError = require('../coded-error.js')
const { transport } = require('./transport.js')

/** Why `response` (not a 200) was refused: the member's coded JSON error, or its status. */
function refusalOf(response) {
  let error
  try {
    error = JSON.parse(new TextDecoder().decode(response.body))?.error
  } catch {}
  const code = typeof error?.code === 'string' ? error.code : `HTTP ${response.status}`
  const message = typeof error?.message === 'string' ? error.message : response.statusText
  return codedError(Error, code, `${response.status} ${message}`)
}

class Members {
  #config
  // The layout and epoch of the first batch: a member of another one is passed over, since its
  // ids would be read by another rule and could equal this one's.
  #layout
  #controller = new AbortController()
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
    const { members } = this.#config
    const start = Math.floor(Math.random() * members.length)
    const failures = []
    for (let k = 0; k < members.length; k++) {
      const member = members[(start + k) % members.length]
      if (this.#controller.signal.aborted) throw closed()
      try {
        return await this.#ask(member, count)
      } catch (error) {
        if (this.#controller.signal.aborted) throw closed()
        failures.push(`${member} (${reasonOf(error)})`)
        if (k + 1 < members.length) this.failovers++
      }
    }
    throw codedError(Error, 'ERR_FLAKE_MEMBERS_UNAVAILABLE', `no member served a batch of ids: ${failures.join('; ')}`)
  }

  async #ask(member, count) {
    const { timeoutMs } = this.#config
    const url = `${member}${member.includes('?') ? '&' : '?'}count=${count}`
    // A controller of the request's own, aborted by close() or the timeout, both let go once it
    // is answered: AbortSignal.any over the client's lifelong signal, with AbortSignal.timeout,
    // cost more than the request itself on loopback.
    const request = new AbortController()
    const closing = this.#controller.signal
    const onClose = () => request.abort(closing.reason)
    closing.addEventListener('abort', onClose, { once: true })
    const timer = setTimeout(
      () => request.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      timeoutMs,
    )
    try {
      const response = await this.#transport.post(url, this.#headers, request.signal)
      if (response.status !== 200) throw refusalOf(response)
      const { type } = response
      if (!type.startsWith(wire.MEDIA_TYPE))
        throw codedError(Error, 'ERR_FLAKE_BAD_BATCH', `a member's answer is ${type || 'untyped'}, not a batch`)
      return this.#checked(wire.decode(response.body), count)
    } finally {
      clearTimeout(timer)
      closing.removeEventListener('abort', onClose)
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
    this.#controller.abort()
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

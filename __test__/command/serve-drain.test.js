'use strict'
// Issue 50, part 4: SIGTERM drains `flake-idgen serve`. It used to cut every connection at once:
// a batch in flight was lost, with its ids. Now a new connection is refused, what is in flight
// is answered, the lease (if any) released, and the process exits 0.

const assert = require('node:assert/strict')
const net = require('node:net')
const { describe, it } = require('node:test')
const { TOKEN, tokenDir, startServe } = require('./serve-process.js')

/** Whether a new TCP connection to `port` is refused now. */
function refused(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', (error) => resolve(error.code === 'ECONNREFUSED'))
  })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

describe('flake-idgen serve: SIGTERM drains', {
  timeout: 60_000,
  skip: process.platform === 'win32' && 'Windows has no SIGTERM: a kill ends the process',
}, () => {
  it('refuses new connections, answers the batch in flight with its ids, and exits 0', async () => {
    const { tokenFile, cleanup } = tokenDir()
    // 4 ids a millisecond and no run-ahead: 16,000 ids take about 4 s of the clock.
    const layout = '{"timeBits":51,"nodeBits":10,"sequenceBits":2}'
    const flags = ['--id', '22', '--scope', 'process', '--layout', layout, '--allowed-future-ms', '0']
    const member = await startServe([...flags, '--token-file', tokenFile])
    try {
      let answeredAt
      const big = fetch(`${member.url}?count=16000`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      }).then(async (res) => {
        const body = await res.json()
        answeredAt = Date.now()
        return { status: res.status, body }
      })
      big.catch(() => {})
      // In flight, as /metrics says, before the signal.
      let inFlight = 0
      for (let tries = 0; tries < 100 && inFlight !== 1; tries++) {
        const text = await (await fetch(`${member.url}metrics`)).text()
        inFlight = Number(/^flake_idgen_requests_in_flight (\d+)$/m.exec(text)?.[1])
        if (inFlight !== 1) await sleep(20)
      }
      assert.equal(inFlight, 1, 'the batch is in flight')

      member.child.kill('SIGTERM')
      let refusedAt
      for (let tries = 0; tries < 200 && refusedAt === undefined; tries++) {
        if (await refused(member.port)) refusedAt = Date.now()
        else await sleep(10)
      }
      assert.ok(refusedAt !== undefined, 'a new connection is refused once draining')

      const { status, body } = await big
      assert.equal(status, 200, JSON.stringify(body))
      assert.equal(body.node, 22)
      assert.equal(
        body.ranges.reduce((sum, [, , count]) => sum + count, 0),
        16000,
      )
      assert.ok(refusedAt < answeredAt, 'refused while the batch was still being answered')
      assert.equal(await member.exited, 0, member.stderr())
    } finally {
      member.kill()
      cleanup()
    }
  })
})

'use strict'
// Issue 50: a client kept at module scope in Vercel's Edge runtime (npm's `edge-runtime`, its
// EdgeRuntime and server), the Workers recipe of docs/clients.md bundled as written (as a script:
// edge-runtime runs no ES module), against a real member on loopback. Before, the bundle failed at
// load: `Dynamic require of "node:buffer"`. 1,100 requests, 8 at a time, 11+ batches: every
// request answered, all ids distinct, none older than the validity.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { TOKEN, startMember, bundled, manyRequests } = require('./client-edge-helpers.js')

/** `edge-runtime`, or why it cannot run here (it needs Node 18 or later). */
function load() {
  try {
    return { edge: require('edge-runtime') }
  } catch (error) {
    return { skip: `edge-runtime does not load here: ${error.message.split('\n')[0]}` }
  }
}
const { edge, skip } = load()

describe('a client kept at module scope in edge-runtime', { skip: skip ?? false, timeout: 120_000 }, () => {
  let member
  before(async () => {
    member = await startMember(33)
  })
  after(() => member?.close())

  it('answers 1,100 requests from 11+ batches; in a runtime with no Buffer', async (t) => {
    const dir = bundled(['--format=iife', '--global-name=worker'])
    const env = { ID_MEMBERS: member.url, ID_TOKEN: TOKEN }
    const runtime = new edge.EdgeRuntime({
      initialCode: `${fs.readFileSync(path.join(dir, 'dist', 'worker.js'), 'utf8')}
        addEventListener('fetch', (event) => event.respondWith(worker.default.fetch(event.request, ${JSON.stringify(env)})))`,
    })
    assert.equal(runtime.evaluate('typeof Buffer'), 'undefined')
    const server = await edge.runServer({ runtime, port: 0, host: '127.0.0.1' })
    t.after(() => server.close())
    await manyRequests(server.url, member, 33)
  })
})

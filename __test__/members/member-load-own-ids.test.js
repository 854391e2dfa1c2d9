'use strict'
// Issue 50, 4: a member serving batches from the app's own generator (as docs/clients.md's
// example does), flooded with concurrent max-count requests, while the app calls next() in a
// loop. The batches must not make that generator's next() throw ERR_FLAKE_SEQUENCE_OVERFLOW
// more often than a second generator of its id beside the same load (which waits out a unit
// others used up); before, 57 % of its calls threw, the second generator's none. No id repeats
// between the answers and both generators' own.

const { it } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const FlakeId = require('../..')
const { ask, idsOf, duplicates } = require('../support/member-load.js')

const TOKEN = 'member-load-token'
const REQUESTS = 24
const COUNT = 100_000

it("a member's batches leave its generator's next() no more overflows than a second generator's", async () => {
  const generator = new FlakeId({ id: 41, scope: 'process' })
  const twin = new FlakeId({ id: 41, scope: 'process' })
  const server = http.createServer(generator.batchHandler({ token: TOKEN }))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/?count=${COUNT}`
  const agent = new http.Agent({ keepAlive: true, maxSockets: REQUESTS })
  const own = { generator: [], twin: [] }
  const thrown = { generator: 0, twin: 0 }
  const unexpected = []
  let serving = true
  // The app's loop: a few ids of each generator a turn, between the member's slices.
  const loop = () => {
    for (let k = 0; k < 8; k++) {
      for (const name of ['generator', 'twin']) {
        try {
          own[name].push((name === 'generator' ? generator : twin).next())
        } catch (error) {
          if (error.code === 'ERR_FLAKE_SEQUENCE_OVERFLOW') thrown[name]++
          else unexpected.push(error)
        }
      }
    }
    if (serving) setImmediate(loop)
  }
  try {
    setImmediate(loop)
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, () => ask(url, { authorization: `Bearer ${TOKEN}` }, agent)),
    )
    serving = false
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
    )
    assert.deepEqual(unexpected, [])
    const calls = own.generator.length + thrown.generator
    assert.ok(calls >= 100, `the app's loop ran while the member served (${calls} calls)`)
    assert.ok(
      thrown.generator <= thrown.twin,
      `the serving generator's next() threw the overflow ${thrown.generator} times in ${calls} calls, the second generator's ${thrown.twin}`,
    )
    const ids = idsOf(
      answers.map((answer) => answer.body),
      [...own.generator, ...own.twin],
    )
    assert.equal(ids.length, REQUESTS * COUNT + own.generator.length + own.twin.length)
    assert.equal(duplicates(ids), 0)
  } finally {
    serving = false
    agent.destroy()
    server.close()
  }
})

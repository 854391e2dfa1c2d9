'use strict'
// Issue 50, 4: a member flooded with concurrent max-count requests. Before, it took every one
// (200 in flight: +179 MB of RSS, a 1-id request answered after 8.6 s, behind all of them). Now
// at most maxQueued are served at once and the rest refused at once (503, Retry-After, a coded
// JSON error) for another member; every answer holds all the ids it asked for, none repeats,
// the ids counted are the ids answered, and the member's RSS grows by a fraction of what it did.

const { it } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const path = require('node:path')
const { fork } = require('node:child_process')
const FlakeId = require('../..')
const { ask, idsOf, duplicates } = require('../support/member-load.js')

const FLOOD = 200
const COUNT = 100_000
const MAX_QUEUED = 16
// Before: +179 MB for this flood (every request's 800 KB batch taken at once). Now each request
// holds its ranges only, and 16 are served at once: +22 MB here, mostly the sockets.
const MAX_RSS_GROWTH = 64 * 2 ** 20

it('a flood past maxQueued gets 503s with Retry-After, no id lost or repeated, and bounded memory', async () => {
  const child = fork(
    path.join(__dirname, '../support/member-load-child.js'),
    [JSON.stringify({ maxQueued: MAX_QUEUED })],
    {
      execArgv: ['--expose-gc'],
    },
  )
  const message = () =>
    new Promise((resolve, reject) => {
      child.once('message', resolve)
      child.once('exit', (code) => reject(new Error(`the member exited (${code})`)))
    })
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
  try {
    const { port } = await message()
    const headers = { authorization: 'Bearer member-load-token' }
    const flood = Array.from({ length: FLOOD }, () => ask(`http://127.0.0.1:${port}/?count=${COUNT}`, headers, agent))
    // A small request beside the flood is admitted apart from the big ones: never refused.
    const small = await ask(`http://127.0.0.1:${port}/?count=1`, headers, agent)
    const answers = await Promise.all(flood)
    child.send('report')
    const { baseRss, peakRss, stats } = await message()

    assert.equal(small.status, 200)
    const served = answers.filter((answer) => answer.status === 200)
    const refused = answers.filter((answer) => answer.status !== 200)
    assert.ok(served.length >= MAX_QUEUED, `${served.length} served`)
    // All asked at once, most arrive while the first are served (how many depends on the load).
    assert.ok(refused.length > 0, `${refused.length} of ${FLOOD} refused`)
    for (const answer of refused) {
      assert.equal(answer.status, 503)
      assert.match(answer.headers['retry-after'], /^[1-9][0-9]*$/)
      assert.equal(JSON.parse(answer.body).error.code, 'ERR_FLAKE_MEMBER_BUSY')
    }
    const ids = idsOf([...served.map((answer) => answer.body), small.body])
    assert.equal(ids.length, served.length * COUNT + 1, 'every answer holds the ids it asked for')
    assert.equal(duplicates(ids), 0)
    assert.equal(stats.ids, ids.length, "the member's count of ids served")
    assert.equal(stats.refusedBy.ERR_FLAKE_MEMBER_BUSY, refused.length)
    assert.ok(
      peakRss - baseRss < MAX_RSS_GROWTH,
      `member RSS grew ${((peakRss - baseRss) / 2 ** 20).toFixed(0)} MB, at most ${MAX_RSS_GROWTH / 2 ** 20}`,
    )
  } finally {
    agent.destroy()
    child.kill()
  }
})

it('refuses a maxQueued that is not an integer from 1 to 100,000, naming it and the value', () => {
  const generator = new FlakeId({ id: 44, scope: 'process' })
  for (const [maxQueued, type] of [
    [0, RangeError],
    [100_001, RangeError],
    [1.5, RangeError],
    ['8', TypeError],
  ]) {
    assert.throws(
      () => generator.batchHandler({ allowNoToken: true, maxQueued }),
      (error) => {
        assert.ok(error instanceof type, `${maxQueued}: ${error}`)
        assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
        assert.match(error.message, /maxQueued/)
        assert.match(error.message, new RegExp(String(maxQueued)))
        return true
      },
    )
  }
  assert.equal(typeof generator.batchHandler({ allowNoToken: true, maxQueued: 1 }), 'function')
})

it('answers a 1-id request sent after max-count ones before any of them (not after them all)', async () => {
  const generator = new FlakeId({ id: 45, scope: 'process' })
  const server = http.createServer(generator.batchHandler({ allowNoToken: true }))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/?count=`
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
  const answered = []
  const asked = (count, name) =>
    ask(url + count, {}, agent).then((answer) => {
      answered.push(name)
      return answer
    })
  try {
    // 1.6 M ids: 390 ms of the layout's at the least, so the small one is asked long before.
    const big = Array.from({ length: 16 }, (_, k) => asked(COUNT, `big ${k}`))
    await new Promise((resolve) => setTimeout(resolve, 20))
    const small = await asked(1, 'small')
    const answers = [small, ...(await Promise.all(big))]
    assert.equal(answered[0], 'small', `answered in the order ${answered.join(', ')}`)
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
    )
    assert.equal(duplicates(idsOf(answers.map((answer) => answer.body))), 0)
  } finally {
    agent.destroy()
    server.close()
  }
})

'use strict'
// One id has one state in a process: a generator of scope 'process' beside one of host scope on
// the same id issued the same ids (19,987 duplicates in a run of issue 39's). The second scope
// asked for is refused, whichever came first; ids of other generator ids, and UUIDv7s (random
// bits), are not affected.

const test = require('node:test')
const assert = require('node:assert/strict')
const { execFileSync } = require('node:child_process')
const path = require('node:path')
const { stateDir } = require('../support/state-files.js')

const ROOT = path.join(__dirname, '..', '..')

/** What `steps` (code over FlakeId) return in a fresh process, or the code of what it threw. */
function inChild(steps) {
  const script = `
    const FlakeId = require(${JSON.stringify(ROOT)})
    let out
    try { out = (${steps})(FlakeId) } catch (error) { out = { code: error.code, message: error.message } }
    process.stdout.write(JSON.stringify(out))`
  const env = { ...process.env, FLAKE_IDGEN_STATE_DIR: path.join(stateDir('one-state'), 'state') }
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env }))
}

test("scope 'process' on an id this process issues from the host's state is refused, naming both", () => {
  const refused = inChild((FlakeId) => {
    new FlakeId({ id: 7 }).next()
    return new FlakeId({ id: 7, scope: 'process' })
  })
  assert.equal(refused.code, 'ERR_FLAKE_STATE_DIR')
  assert.match(refused.message, /generator id 7 cannot issue from its own state \(scope 'process'\)/)
  assert.match(refused.message, /it issues from the state in ".*state" already/)
})

test('host scope on an id this process issues from its own state is refused, naming both', () => {
  const refused = inChild((FlakeId) => {
    new FlakeId({ id: 7, scope: 'process' }).next()
    return new FlakeId({ id: 7 })
  })
  assert.equal(refused.code, 'ERR_FLAKE_STATE_DIR')
  assert.match(refused.message, /generator id 7 cannot issue from the state in ".*state"/)
  assert.match(refused.message, /its own state \(scope 'process'\) already/)
})

test('other ids, and UUIDv7s, take either scope beside the other', () => {
  const made = inChild((FlakeId) => {
    const ids = [new FlakeId({ id: 7 }).next(), new FlakeId({ id: 8, scope: 'process' }).next()]
    const uuids = [FlakeId.uuidv7(), FlakeId.uuidv7.create({ scope: 'process' })()]
    return { ids: ids.length, uuids: new Set(uuids).size }
  })
  assert.deepEqual(made, { ids: 2, uuids: 2 })
})

'use strict'
// Leases in Redis: one hash per namespace, `flake-idgen:{<namespace>}` (the braces are a Cluster
// hash tag: every script touches one slot), with fields `meta` and `floor` (the marker) and one
// field per id holding its record as JSON {o: owner, e: expires, c: ceiling}. The hash never
// expires and is never deleted: if Redis loses it, the missing marker says history is unknown.
// Each operation is one Lua script, judged by Redis's own clock (TIME), and every ceiling is
// the store's time plus `ahead`: a holder whose clock runs ahead hits its fence sooner, it never
// issues past what a successor starts above.
//
// The scripts work on the key named in ARGV, in database 0, whatever the client does to KEYS[1]
// (an ioredis keyPrefix) or which database it selected: one namespace is one hash. KEYS[1] still
// routes the call to the namespace's Cluster node; a prefix without braces keeps its slot.

const { createHash } = require('node:crypto')
const { checkReply, storeError } = require('./replies.js')

// Redis < 5 replicates scripts verbatim, which a script reading TIME must not be. A SELECT in a
// script is the script's own: the caller's connection keeps its database.
const PRELUDE = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
redis.call('SELECT', 0)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key = ARGV[1]
`

// A namespace's settings may change once no lease of the old ones is live: the records keep
// their ceilings, shifted by the change of epoch (an id's time is its timestamp minus the epoch,
// so a later epoch must start that much later), and the layout never changes.
const ACQUIRE = `${PRELUDE}
local first, last = tonumber(ARGV[2]), tonumber(ARGV[3])
local owner, ttl, ahead = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local meta, unknown = ARGV[7], tonumber(ARGV[8])
local all = redis.call('HGETALL', key)
local fields = {}
for i = 1, #all, 2 do fields[all[i]] = all[i + 1] end
if fields.meta == nil then
  fields.meta, fields.floor = meta, string.format('%.0f', now + unknown)
  redis.call('HSET', key, 'meta', fields.meta, 'floor', fields.floor)
elseif fields.meta ~= meta then
  local okOld, old = pcall(cjson.decode, fields.meta)
  local okNew, new = pcall(cjson.decode, meta)
  if not (okOld and okNew) or type(old) ~= 'table' or type(new) ~= 'table' or old.layout ~= new.layout
    or type(old.epoch) ~= 'number' or type(new.epoch) ~= 'number' then
    return cjson.encode({ status = 'mismatch', meta = fields.meta })
  end
  for name, raw in pairs(fields) do
    if string.match(name, '^%d+$') then
      local r = cjson.decode(raw)
      if type(r.o) == 'string' and r.e > now then
        return cjson.encode({ status = 'mismatch', meta = fields.meta, live = true })
      end
    end
  end
  local shift = new.epoch - old.epoch
  for name, raw in pairs(fields) do
    if string.match(name, '^%d+$') then
      local r = cjson.decode(raw)
      r.c = r.c + shift
      fields[name] = cjson.encode(r)
      redis.call('HSET', key, name, fields[name])
    end
  end
  fields.meta, fields.floor = meta, string.format('%.0f', (tonumber(fields.floor) or (now + unknown)) + shift)
  redis.call('HSET', key, 'meta', fields.meta, 'floor', fields.floor)
end
local floor = tonumber(fields.floor) or (now + unknown)
local best, bestCeiling, retryAt
for id = first, last do
  local raw = fields[string.format('%d', id)]
  local ceiling = floor
  local free = true
  if raw then
    local r = cjson.decode(raw)
    ceiling = r.c
    if type(r.o) == 'string' and r.e > now then
      free = false
      if retryAt == nil or r.e < retryAt then retryAt = r.e end
    end
  end
  if free and (best == nil or ceiling < bestCeiling) then best, bestCeiling = id, ceiling end
end
if best == nil then
  return cjson.encode({ status = 'exhausted', now = now, retryAt = retryAt })
end
local ceiling = math.max(bestCeiling, now + ahead)
redis.call('HSET', key, string.format('%d', best), cjson.encode({ o = owner, e = now + ttl, c = ceiling }))
return cjson.encode({ status = 'acquired', id = best, floor = bestCeiling, ceiling = ceiling, now = now })
`

// A holder of other settings than the namespace's (it changed meanwhile) has lost its lease.
const RENEW = `${PRELUDE}
local field, owner, ttl, ahead, meta = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local raw = redis.call('HGET', key, field)
if not raw or redis.call('HGET', key, 'meta') ~= meta then return cjson.encode({ status = 'lost', now = now }) end
local r = cjson.decode(raw)
if r.o ~= owner then return cjson.encode({ status = 'lost', now = now }) end
r.e = now + ttl
r.c = math.max(r.c, now + ahead)
redis.call('HSET', key, field, cjson.encode(r))
return cjson.encode({ status = 'renewed', ceiling = r.c, now = now })
`

const RELEASE = `${PRELUDE}
local field, owner, last = ARGV[2], ARGV[3], tonumber(ARGV[4])
local raw = redis.call('HGET', key, field)
if not raw or cjson.decode(raw).o ~= owner then return cjson.encode({ status = 'lost' }) end
redis.call('HSET', key, field, cjson.encode({ e = 0, c = last }))
return cjson.encode({ status = 'released' })
`

// Read-only, but a script all the same, so that the records and the time are one moment's.
const LIST = `${PRELUDE}
return cjson.encode({ now = now, fields = redis.call('HGETALL', key) })
`

const TIME = `${PRELUDE}
return cjson.encode({ now = now })
`

function script(source) {
  return { source, sha: createHash('sha1').update(source).digest('hex') }
}

const SCRIPTS = {
  acquire: script(ACQUIRE),
  renew: script(RENEW),
  release: script(RELEASE),
  list: script(LIST),
  time: script(TIME),
}

function keyOf(namespace) {
  return `flake-idgen:{${namespace}}`
}

/**
 * @typedef {object} Store
 * @property {'ioredis' | 'redis' | 'pg'} kind
 * @property {() => Promise<number>} time the store's clock, ms since 1970
 * @property {(a: { namespace: string, first: number, last: number, owner: string, ttl: number, ahead: number, meta: string, unknownMs: number }) => Promise<object>} acquire
 *   takes a free id with ceiling max(its floor, store time + `ahead`)
 * @property {(a: { namespace: string, id: number, owner: string, ttl: number, ahead: number, meta: string }) => Promise<object>} renew
 * @property {(a: { namespace: string, id: number, owner: string, last: number }) => Promise<object>} release
 * @property {(a: { namespace: string }) => Promise<{ now: number, meta: string | null, floor: number | null, records: { id: number, owner: string | null, expires: number, ceiling: number }[] }>} list
 * @property {() => Promise<void>} close closes the connections the store opened itself
 */

/**
 * A Redis store over the user's client.
 * @param {'ioredis' | 'redis'} kind
 * @param {object} transport
 * @param {(args: (string | number)[], key: string) => Promise<unknown>} transport.send sends one
 *   command (name and arguments) to the node of `key`, and resolves with its reply
 * @param {(args: (string | number)[], wait: (string | number)[], key: string) => Promise<[unknown, unknown]>} [transport.sendThenWait]
 *   sends a command and WAIT together, where WAIT on its own would not reach the command's node
 * @param {() => Promise<void>} [transport.close] closes the transport's own connection
 * @param {number} replicas replicas that must acknowledge acquire and renew
 * @param {number} waitMs how long WAIT waits for them
 * @returns {Store}
 */
function redisStore(kind, { send, sendThenWait, close }, replicas, waitMs = 1000) {
  // Resolves with the script's result and, for a script that writes when replicas are asked
  // for, how many replicas acknowledged its write (WAIT may not run inside a script).
  async function run(name, namespace, args, writes = false) {
    const { sha, source } = SCRIPTS[name]
    const key = keyOf(namespace)
    const wait = !writes || replicas === 0 ? null : ['WAIT', replicas, waitMs]
    const exchange = async (command) => {
      let reply
      let acked = replicas
      if (wait && sendThenWait) [reply, acked] = await sendThenWait(command, wait, key)
      else reply = await send(command, key)
      const result = checkReply(kind, name, reply)
      // Nothing to wait for when the script wrote nothing.
      const wrote = result.status === 'acquired' || result.status === 'renewed'
      if (wait && !sendThenWait) acked = wrote ? await send(wait, key) : replicas
      if (typeof acked !== 'number' || !Number.isInteger(acked)) {
        throw storeError(kind, `replied ${JSON.stringify(acked)} to WAIT, not a count of replicas`)
      }
      return { result, acked }
    }
    try {
      return await exchange(['EVALSHA', sha, 1, key, key, ...args])
    } catch (error) {
      // Scripts are gone after a restart, and never loaded on a new server.
      if (!/^NOSCRIPT/.test(String(error?.message))) throw error
      return exchange(['EVAL', source, 1, key, key, ...args])
    }
  }

  return {
    kind,
    async time() {
      return (await run('time', 'time', [])).result.now
    },
    async acquire({ namespace, first, last, owner, ttl, ahead, meta, unknownMs }) {
      const { result, acked } = await run('acquire', namespace, [first, last, owner, ttl, ahead, meta, unknownMs], true)
      return result.status === 'acquired' && acked < replicas ? { ...result, status: 'unreplicated', acked } : result
    },
    async renew({ namespace, id, owner, ttl, ahead, meta }) {
      const { result, acked } = await run('renew', namespace, [id, owner, ttl, ahead, meta], true)
      return result.status === 'renewed' && acked < replicas
        ? { status: 'unreplicated', acked, now: result.now }
        : result
    },
    async release({ namespace, id, owner, last }) {
      return (await run('release', namespace, [id, owner, last])).result
    },
    async list({ namespace }) {
      return (await run('list', namespace, [])).result
    },
    async close() {
      await close?.()
    },
  }
}

module.exports = { redisStore, keyOf }

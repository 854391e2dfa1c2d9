'use strict'
// Leases in Redis: one hash per namespace, `flake-idgen:{<namespace>}` (the braces are a Cluster
// hash tag: every script touches one slot), with fields `meta` and `floor` (the marker) and one
// field per id holding its record as JSON {o: owner, e: expires, c: ceiling}. The hash never
// expires and is never deleted: if Redis loses it, the missing marker says history is unknown.
// Each operation is one Lua script, judged by Redis's own clock (TIME).

const { createHash } = require('node:crypto')

// Redis < 5 replicates scripts verbatim, which a script reading TIME must not be.
const PRELUDE = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key = KEYS[1]
`

const ACQUIRE = `${PRELUDE}
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local owner, ttl, proposed = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local meta, unknown = ARGV[6], tonumber(ARGV[7])
local all = redis.call('HGETALL', key)
local fields = {}
for i = 1, #all, 2 do fields[all[i]] = all[i + 1] end
if fields.meta == nil then
  fields.meta, fields.floor = meta, string.format('%.0f', now + unknown)
  redis.call('HSET', key, 'meta', fields.meta, 'floor', fields.floor)
elseif fields.meta ~= meta then
  return cjson.encode({ status = 'mismatch', meta = fields.meta })
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
local ceiling = math.max(bestCeiling, proposed)
redis.call('HSET', key, string.format('%d', best), cjson.encode({ o = owner, e = now + ttl, c = ceiling }))
return cjson.encode({ status = 'acquired', id = best, floor = bestCeiling, ceiling = ceiling, now = now })
`

const RENEW = `${PRELUDE}
local field, owner, ttl, proposed = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local raw = redis.call('HGET', key, field)
if not raw then return cjson.encode({ status = 'lost', now = now }) end
local r = cjson.decode(raw)
if r.o ~= owner then return cjson.encode({ status = 'lost', now = now }) end
r.e = now + ttl
r.c = math.max(r.c, proposed)
redis.call('HSET', key, field, cjson.encode(r))
return cjson.encode({ status = 'renewed', ceiling = r.c, now = now })
`

const RELEASE = `${PRELUDE}
local field, owner, last = ARGV[1], ARGV[2], tonumber(ARGV[3])
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
 * @property {(a: { namespace: string, first: number, last: number, owner: string, ttl: number, proposed: number, meta: string, unknownMs: number }) => Promise<object>} acquire
 * @property {(a: { namespace: string, id: number, owner: string, ttl: number, proposed: number }) => Promise<object>} renew
 * @property {(a: { namespace: string, id: number, owner: string, last: number }) => Promise<object>} release
 * @property {(a: { namespace: string }) => Promise<{ now: number, meta: string | null, floor: number | null, records: { id: number, owner: string | null, expires: number, ceiling: number }[] }>} list
 */

/**
 * A Redis store over the user's client.
 * @param {'ioredis' | 'redis'} kind
 * @param {object} transport
 * @param {(args: (string | number)[], key: string) => Promise<unknown>} transport.send sends one
 *   command (name and arguments) to the node of `key`, and resolves with its reply
 * @param {(args: (string | number)[], wait: (string | number)[], key: string) => Promise<[unknown, unknown]>} [transport.sendThenWait]
 *   sends a command and WAIT together, where WAIT on its own would not reach the command's node
 * @param {number} replicas replicas that must acknowledge acquire and renew
 * @returns {Store}
 */
function redisStore(kind, { send, sendThenWait }, replicas) {
  // Resolves with the script's result and, for a script that writes when replicas are asked
  // for, how many replicas acknowledged its write (WAIT may not run inside a script).
  async function run(name, namespace, args, ttl) {
    const { sha, source } = SCRIPTS[name]
    const key = keyOf(namespace)
    const wait = ttl === undefined || replicas === 0 ? null : ['WAIT', replicas, Math.min(ttl, 1000)]
    const exchange = async (command) => {
      if (wait && sendThenWait) {
        const [reply, acked] = await sendThenWait(command, wait, key)
        return { result: JSON.parse(String(reply)), acked: Number(acked) }
      }
      const result = JSON.parse(String(await send(command, key)))
      // Nothing to wait for when the script wrote nothing.
      const wrote = result.status === 'acquired' || result.status === 'renewed'
      return { result, acked: wait && wrote ? Number(await send(wait, key)) : replicas }
    }
    try {
      return await exchange(['EVALSHA', sha, 1, key, ...args])
    } catch (error) {
      // Scripts are gone after a restart, and never loaded on a new server.
      if (!/^NOSCRIPT/.test(String(error?.message))) throw error
      return exchange(['EVAL', source, 1, key, ...args])
    }
  }

  return {
    kind,
    async time() {
      return (await run('time', 'time', [])).result.now
    },
    async acquire({ namespace, first, last, owner, ttl, proposed, meta, unknownMs }) {
      const { result, acked } = await run(
        'acquire',
        namespace,
        [first, last, owner, ttl, proposed, meta, unknownMs],
        ttl,
      )
      return result.status === 'acquired' && acked < replicas
        ? { status: 'unreplicated', id: result.id, acked }
        : result
    },
    async renew({ namespace, id, owner, ttl, proposed }) {
      const { result, acked } = await run('renew', namespace, [id, owner, ttl, proposed], ttl)
      return result.status === 'renewed' && acked < replicas ? { status: 'unreplicated', acked } : result
    },
    async release({ namespace, id, owner, last }) {
      return (await run('release', namespace, [id, owner, last])).result
    },
    async list({ namespace }) {
      const { now, fields } = (await run('list', namespace, [])).result
      // cjson encodes an empty table as {}, not [].
      const flat = Array.isArray(fields) ? fields : []
      let meta = null
      let floor = null
      const records = []
      for (let i = 0; i < flat.length; i += 2) {
        const name = flat[i]
        if (name === 'meta') meta = flat[i + 1]
        else if (name === 'floor') floor = Number(flat[i + 1])
        else if (/^\d+$/.test(name)) {
          const r = JSON.parse(flat[i + 1])
          records.push({ id: Number(name), owner: typeof r.o === 'string' ? r.o : null, expires: r.e, ceiling: r.c })
        }
      }
      records.sort((a, b) => a.id - b.id)
      return { now, meta, floor, records }
    },
  }
}

module.exports = { redisStore }

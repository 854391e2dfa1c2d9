'use strict'
// Leases in Redis: one hash per namespace, `flake-idgen:{<namespace>}` (the braces are a Cluster
// hash tag: every script touches one slot), with fields `meta` and `floor` (the marker) and one
// field per id holding its record as JSON {o: owner, e: expires, c: ceiling}. The hash never
// expires and is never deleted: if Redis loses it, the missing marker says history is unknown.
// Each operation is one Lua script, judged by Redis's own clock (TIME), and every ceiling is
// the store's time plus `ahead`: a holder whose clock runs ahead hits its fence sooner, it never
// issues past what a successor starts above.
//
// Redis runs one script at a time for every client, so no script reads the whole pool: three
// indexes beside the hash, in its slot, find an id in O(log n) of the pool (INDEXES below).
// They only choose; the record decides, so an index that is stale (a holder of an older version
// of this package wrote the hash) costs a repair, never a fence.
//
// The scripts work on the key named in ARGV, in database 0, whatever the client does to KEYS[1]
// (an ioredis keyPrefix) or which database it selected: one namespace is one hash. KEYS[1] still
// routes the call to the namespace's Cluster node; a prefix without braces keeps its slot.

const { createHash } = require('node:crypto')
const { checkResult, storeError, schemaError, shown } = require('./replies.js')

// What a record of the hash must be (the scripts' decodeRecord), for a message.
const MISFIT = 'not what the lease writes (a JSON object of integers e and c, and a string o or none; an integer floor)'

// Redis < 5 replicates scripts verbatim, which a script reading TIME must not be. A SELECT in a
// script is the script's own: the caller's connection keeps its database.
const PRELUDE = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
redis.call('SELECT', 0)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key = ARGV[1]
-- The hash's schema: every record a JSON object whose expiry and ceiling are integers a double
-- holds exactly, whose owner is a string or absent; the floor an integer. A value of another
-- type (written by hand, or by another program) fails the script with FLAKE_LEASE_SCHEMA
-- rather than be coerced (Lua reads "12" as 12, and tonumber "0x10" as 16).
local function misfit(field, raw)
  error({ err = 'FLAKE_LEASE_SCHEMA ' .. field .. ' ' .. string.sub(tostring(raw), 1, 80) })
end
local function integral(x)
  return type(x) == 'number' and x == math.floor(x) and math.abs(x) <= 9007199254740991
end
local function decodeRecord(field, raw)
  local ok, r = pcall(cjson.decode, raw)
  if not ok or type(r) ~= 'table' or not integral(r.e) or not integral(r.c)
    or (r.o ~= nil and type(r.o) ~= 'string') then misfit(field, raw) end
  return r
end
`

// The indexes, kept by every write once the hash's field `index` says they are built:
//   <key>:free  ids whose record is free (released, or found expired), scored by ceiling
//   <key>:held  ids whose record has an owner, scored by expiry
//   <key>:runs  the ids that have a record, as maximal runs "<first>-<last>" scored by first:
//               the lowest id never held is the end of a run + 1
// Members are ids of 5 digits, so that ties on a score go to the lowest id.
const INDEXES = `
local INDEX = '1'
local free, held, runs = key .. ':free', key .. ':held', key .. ':runs'
local function member(id) return string.format('%05d', id) end
local function score(n) return string.format('%.0f', n) end
local function record(id)
  local raw = redis.call('HGET', key, string.format('%d', id))
  if raw then return decodeRecord(string.format('%d', id), raw) end
end
local function isFree(r) return type(r.o) ~= 'string' or r.e <= now end
local function runOf(text)
  local first, last = string.match(text, '^(%d+)-(%d+)$')
  return tonumber(first), tonumber(last)
end
-- Every index from the records: once per namespace written by an older version, after a
-- change of settings shifted every ceiling, and when entries were deleted by hand. An id the
-- runs say was held stays so, even if its record is gone: never taken as fresh, at the
-- marker's floor, below a ceiling its holder may still issue up to.
local function rebuild()
  local ever = {}
  for _, text in ipairs(redis.call('ZRANGE', runs, 0, -1)) do
    local a, b = runOf(text)
    if a then for id = a, math.min(b, 65535) do ever[id] = true end end
  end
  redis.call('DEL', free, held, runs)
  local all = redis.call('HGETALL', key)
  for i = 1, #all, 2 do
    if string.match(all[i], '^%d+$') then
      local id = tonumber(all[i])
      ever[id] = true
      local r = decodeRecord(all[i], all[i + 1])
      if type(r.o) == 'string' then redis.call('ZADD', held, score(r.e), member(id))
      else redis.call('ZADD', free, score(r.c), member(id)) end
    end
  end
  local ids = {}
  for id in pairs(ever) do ids[#ids + 1] = id end
  table.sort(ids)
  local first, last
  for _, id in ipairs(ids) do
    if first and id == last + 1 then last = id
    else
      if first then redis.call('ZADD', runs, first, first .. '-' .. last) end
      first, last = id, id
    end
  end
  if first then redis.call('ZADD', runs, first, first .. '-' .. last) end
  redis.call('HSET', key, 'index', INDEX)
end
local function indexHeld(id, expires)
  redis.call('ZREM', free, member(id))
  redis.call('ZADD', held, score(expires), member(id))
end
local function indexFree(id, ceiling)
  redis.call('ZREM', held, member(id))
  redis.call('ZADD', free, score(ceiling), member(id))
end
`

// Acquire takes the free id of lowest ceiling (then of lowest id) in [first, last]: an id never
// held starts at the marker's floor, below every record's ceiling but its equals. Leases found
// expired move to the free index first (each once: O(log n) a lease, amortised). The free index
// is read from its lowest ceiling: its first id is in the pool whenever the namespace's holders
// share one `ids` range; holders of other ranges in one namespace make it skip theirs.
//
// A namespace's settings may change once no lease of the old ones is live: the records keep
// their ceilings, shifted by the change of epoch (an id's time is its timestamp minus the epoch,
// so a later epoch must start that much later), and the layout never changes.
const ACQUIRE = `${PRELUDE}${INDEXES}
local first, last = tonumber(ARGV[2]), tonumber(ARGV[3])
local owner, ttl, ahead = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local meta, unknown = ARGV[7], tonumber(ARGV[8])
local marker = redis.call('HMGET', key, 'meta', 'floor', 'index')
if marker[2] and not string.match(marker[2], '^%-?%d+$') then misfit('floor', marker[2]) end
local current, floor, index = marker[1], tonumber(marker[2]), marker[3]
if current == false then
  redis.call('DEL', free, held, runs)
  floor, index = now + unknown, INDEX
  redis.call('HSET', key, 'meta', meta, 'floor', score(floor), 'index', INDEX)
elseif current ~= meta then
  local okOld, old = pcall(cjson.decode, current)
  local okNew, new = pcall(cjson.decode, meta)
  if not (okOld and okNew) or type(old) ~= 'table' or type(new) ~= 'table' or old.layout ~= new.layout
    or type(old.epoch) ~= 'number' or type(new.epoch) ~= 'number' then
    return cjson.encode({ status = 'mismatch', meta = current })
  end
  local all = redis.call('HGETALL', key)
  for i = 1, #all, 2 do
    if string.match(all[i], '^%d+$') then
      local r = decodeRecord(all[i], all[i + 1])
      if type(r.o) == 'string' and r.e > now then
        return cjson.encode({ status = 'mismatch', meta = current, live = true })
      end
    end
  end
  local shift = new.epoch - old.epoch
  for i = 1, #all, 2 do
    if string.match(all[i], '^%d+$') then
      local r = decodeRecord(all[i], all[i + 1])
      r.c = r.c + shift
      redis.call('HSET', key, all[i], cjson.encode(r))
    end
  end
  floor, index = (floor or (now + unknown)) + shift, nil
  redis.call('HSET', key, 'meta', meta, 'floor', score(floor))
end
floor = floor or (now + unknown)
if index ~= INDEX then rebuild() end
-- Index entries deleted by hand (ZREM, DEL) would leave their ids unleasable for good: fewer
-- ids indexed than records, counted in O(1), says so, and the indexes are built again from
-- the records.
local marks = 0
for _, name in ipairs({ 'meta', 'floor', 'index' }) do marks = marks + redis.call('HEXISTS', key, name) end
if redis.call('ZCARD', free) + redis.call('ZCARD', held) < redis.call('HLEN', key) - marks then rebuild() end

for _, m in ipairs(redis.call('ZRANGEBYSCORE', held, '-inf', now)) do
  local id = tonumber(m)
  local r = record(id)
  if r == nil then redis.call('ZREM', held, m)
  elseif isFree(r) then indexFree(id, r.c)
  else indexHeld(id, r.e) end
end

-- The lowest id of [first, last] with no record: past the run that holds first, if one does.
local function fresh()
  local x = first
  local below = redis.call('ZREVRANGEBYSCORE', runs, first, '-inf', 'LIMIT', 0, 1)
  if #below > 0 then
    local _, to = runOf(below[1])
    if to >= first then x = to + 1 end
  end
  if x <= last then return x end
end
local newId = fresh()
if newId and redis.call('HEXISTS', key, string.format('%d', newId)) == 1 then
  rebuild()
  newId = fresh()
end

local best, bestCeiling
local offset, size = 0, 8
while best == nil do
  local batch = redis.call('ZRANGE', free, offset, offset + size - 1, 'WITHSCORES')
  local dropped = 0
  for i = 1, #batch, 2 do
    local id = tonumber(batch[i])
    if id >= first and id <= last then
      local r = record(id)
      if r and isFree(r) then
        best, bestCeiling = id, r.c
        break
      end
      -- Stale: the record says otherwise.
      dropped = dropped + 1
      if r then indexHeld(id, r.e) else redis.call('ZREM', free, batch[i]) end
    end
  end
  if best ~= nil or #batch < 2 * size then break end
  offset, size = offset + size - dropped, size * 2
end

if newId and (best == nil or floor < bestCeiling or (floor == bestCeiling and newId < best)) then
  best, bestCeiling = newId, floor
  local from, to = newId, newId
  local left = redis.call('ZREVRANGEBYSCORE', runs, newId - 1, '-inf', 'LIMIT', 0, 1)
  if #left > 0 then
    local a, b = runOf(left[1])
    if b == newId - 1 then
      from = a
      redis.call('ZREM', runs, left[1])
    end
  end
  local right = redis.call('ZRANGEBYSCORE', runs, newId + 1, newId + 1, 'LIMIT', 0, 1)
  if #right > 0 then
    local _, b = runOf(right[1])
    to = b
    redis.call('ZREM', runs, right[1])
  end
  redis.call('ZADD', runs, from, from .. '-' .. to)
end
if best == nil then
  local soonest = redis.call('ZRANGE', held, 0, 0, 'WITHSCORES')
  return cjson.encode({ status = 'exhausted', now = now, retryAt = tonumber(soonest[2]) })
end
local ceiling = math.max(bestCeiling, now + ahead)
redis.call('HSET', key, string.format('%d', best), cjson.encode({ o = owner, e = now + ttl, c = ceiling }))
indexHeld(best, now + ttl)
return cjson.encode({ status = 'acquired', id = best, floor = bestCeiling, ceiling = ceiling, now = now })
`

// A holder of other settings than the namespace's (it changed meanwhile) has lost its lease.
const RENEW = `${PRELUDE}${INDEXES}
local field, owner, ttl, ahead, meta = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local got = redis.call('HMGET', key, field, 'meta', 'index')
if not got[1] or got[2] ~= meta then return cjson.encode({ status = 'lost', now = now }) end
local r = decodeRecord(field, got[1])
if r.o ~= owner then return cjson.encode({ status = 'lost', now = now }) end
r.e = now + ttl
r.c = math.max(r.c, now + ahead)
redis.call('HSET', key, field, cjson.encode(r))
if got[3] == INDEX then indexHeld(tonumber(field), r.e) end
return cjson.encode({ status = 'renewed', ceiling = r.c, now = now })
`

const RELEASE = `${PRELUDE}${INDEXES}
local field, owner, last = ARGV[2], ARGV[3], tonumber(ARGV[4])
local got = redis.call('HMGET', key, field, 'index')
if not got[1] or decodeRecord(field, got[1]).o ~= owner then return cjson.encode({ status = 'lost' }) end
redis.call('HSET', key, field, cjson.encode({ e = 0, c = last }))
if got[2] == INDEX then indexFree(tonumber(field), last) end
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

/** A Redis script's reply (JSON text), parsed and checked as checkResult (replies.js) does. */
function checkReply(kind, operation, reply, key) {
  const text = typeof reply === 'string' ? reply : Buffer.isBuffer(reply) ? reply.toString() : null
  let result
  try {
    result = text === null ? reply : JSON.parse(text)
  } catch {
    throw storeError(kind, `replied ${shown(text)} to ${operation}, not the lease script's JSON`)
  }
  checkResult(kind, operation, result, reply)
  return operation === 'list' ? listOf(kind, result, key) : result
}

/** The records of a Redis LIST reply: the marker's meta and floor, and one record per id. */
function listOf(kind, { now, fields }, key) {
  // cjson encodes an empty table as {}, not [].
  const flat = Array.isArray(fields) ? fields : []
  let meta = null
  let floor = null
  const records = []
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const [name, value] = [String(flat[i]), String(flat[i + 1])]
    if (name === 'meta') meta = value
    else if (name === 'floor') {
      if (!/^-?\d+$/.test(value)) throw schemaError(kind, `${key} holds ${shown(value)} at field floor, ${MISFIT}`)
      floor = Number(value)
    } else if (/^\d+$/.test(name)) {
      let r
      try {
        r = JSON.parse(value)
      } catch {
        throw schemaError(kind, `${key} holds ${shown(value)} at field ${name}, ${MISFIT}`)
      }
      const integral = (x) => Number.isSafeInteger(x)
      if (
        r === null ||
        typeof r !== 'object' ||
        !integral(r.e) ||
        !integral(r.c) ||
        !(r.o === undefined || typeof r.o === 'string')
      ) {
        throw schemaError(kind, `${key} holds ${shown(value)} at field ${name}, ${MISFIT}`)
      }
      records.push({ id: Number(name), owner: typeof r.o === 'string' ? r.o : null, expires: r.e, ceiling: r.c })
    }
  }
  records.sort((a, b) => a.id - b.id)
  return { now, meta, floor, records }
}

function keyOf(namespace) {
  return `flake-idgen:{${namespace}}`
}

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
 * @returns {import('./stores.js').Store}
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
      const result = checkReply(kind, name, reply, key)
      // Nothing to wait for when the script wrote nothing.
      const wrote = result.status === 'acquired' || result.status === 'renewed'
      if (wait && !sendThenWait) acked = wrote ? await send(wait, key) : replicas
      if (typeof acked !== 'number' || !Number.isInteger(acked)) {
        throw storeError(kind, `replied ${JSON.stringify(acked)} to WAIT, not a count of replicas`)
      }
      return { result, acked }
    }
    try {
      try {
        return await exchange(['EVALSHA', sha, 1, key, key, ...args])
      } catch (error) {
        // Scripts are gone after a restart, and never loaded on a new server.
        if (!/^NOSCRIPT/.test(String(error?.message))) throw error
        return await exchange(['EVAL', source, 1, key, key, ...args])
      }
    } catch (error) {
      const misfit = /FLAKE_LEASE_SCHEMA (\S+) (.*?)(?: script: .*)?$/s.exec(String(error?.message))
      if (misfit === null) throw error
      throw schemaError(kind, `${key} holds ${shown(misfit[2])} at field ${misfit[1]}, ${MISFIT}`)
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

/** Closes `connection` (ioredis, node-redis v4/v5, client or cluster) without waiting for replies. */
function disconnect(connection) {
  if (typeof connection.destroy === 'function' && typeof connection.isOpen === 'boolean') {
    if (connection.isOpen) connection.destroy()
  } else if (typeof connection.disconnect === 'function') {
    const done = connection.disconnect()
    if (done && typeof done.catch === 'function') done.catch(() => {})
  }
}

/**
 * A connection of the lease's own, made on first use by `make` from the user's client: WAIT
 * blocks the connection it runs on, so it must not be the app's, and it counts the writes of
 * its own connection, so the scripts run there too.
 */
function ownConnection(make) {
  let connection = null
  let ready = null
  return {
    get() {
      if (ready === null) {
        connection = make()
        // Failures reach the lease through its commands; the event would throw without a listener.
        connection.on('error', () => {})
        // Like the renewal timers, the lease's own connection never keeps a process alive.
        connection.on('connect', () => connection.stream?.unref?.())
        ready = typeof connection.connect === 'function' && connection.isOpen === false ? connection.connect() : null
        ready = Promise.resolve(ready).then(() => {
          if (typeof connection.isOpen === 'boolean') connection.unref?.()
          return connection
        })
      }
      return ready
    },
    async close() {
      if (connection !== null) disconnect(connection)
      connection = ready = null
    },
  }
}

// The user's client is recognised by its shape: this package depends on no client, so it
// cannot use instanceof, and the user's client may come from any version in their project.
const isIoredis = (client) => typeof client.defineCommand === 'function' && typeof client.call === 'function'
const isNodeRedis = (client) => typeof client.sendCommand === 'function' && typeof client.isOpen === 'boolean'

/**
 * The Redis store over the user's ioredis `Redis` or `Cluster`, or node-redis v4/v5 client or
 * cluster, with `replicas` that must acknowledge each acquire and renew (`WAIT`, on a
 * connection of the store's own, for up to `waitMs`).
 */
function make(client, { replicas, waitMs }, recognised) {
  if (recognised === 'ioredis') {
    const own = replicas > 0 ? ownConnection(() => client.duplicate()) : null
    const on = async () => (own === null ? client : await own.get())
    const send = async (args) => (await on()).call(...args)
    if (client.isCluster !== true) return redisStore('ioredis', { send, close: own?.close }, replicas, waitMs)
    // A Cluster sends a command without keys, as WAIT is, to any node: in a pipeline it goes
    // with the script, to the namespace's node, on the connection the script wrote on.
    const sendThenWait = async (args, wait) => {
      const results = await (await on())
        .pipeline()
        .call(...args)
        .call(...wait)
        .exec()
      for (const [error] of results) if (error) throw error
      return [results[0][1], results[1][1]]
    }
    return redisStore('ioredis', { send, sendThenWait, close: own?.close }, replicas, waitMs)
  }
  // A node-redis cluster routes each command, WAIT included, by the key it is given.
  const cluster = typeof client.getSlotMaster === 'function' && Array.isArray(client.masters)
  const own = replicas > 0 ? ownConnection(() => client.duplicate()) : null
  const on = async () => (own === null ? client : await own.get())
  const send = cluster
    ? async (args, key) => (await on()).sendCommand(key, false, args.map(String))
    : async (args) => (await on()).sendCommand(args.map(String))
  return redisStore('redis', { send, close: own?.close }, replicas, waitMs)
}

// For `flake-idgen lease list`: clients that give up at the first failure, a command run once
// must not retry for ever.
const ioredis = {
  name: 'ioredis',
  connect(lib, url, timeoutMs) {
    const Redis = lib.Redis ?? lib
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    })
    return {
      client,
      // disconnect() on a client that has ended holds the process for 2 s more.
      close: () => (client.status === 'end' ? undefined : client.quit()),
      destroy: () => (client.status === 'end' ? undefined : client.disconnect()),
    }
  },
}

const nodeRedis = {
  name: 'redis',
  connect(lib, url, timeoutMs) {
    const client = lib.createClient({ url, socket: { connectTimeout: timeoutMs, reconnectStrategy: false } })
    return {
      client,
      // v5 renamed quit to close and disconnect to destroy, and deprecates the old names.
      close: () => (client.isOpen ? (client.close ?? client.quit).call(client) : undefined),
      destroy: () => (client.isOpen ? (client.destroy ?? client.disconnect).call(client) : undefined),
    }
  },
}

/** Redis's row of the lease stores (stores.js). */
module.exports = {
  name: 'redis',
  describes: 'an ioredis client, a node-redis (v4/v5) client',
  recognise: (client) => (isIoredis(client) ? 'ioredis' : isNodeRedis(client) ? 'redis' : undefined),
  make,
  schemes: ['redis:', 'rediss:'],
  clients: [ioredis, nodeRedis],
}

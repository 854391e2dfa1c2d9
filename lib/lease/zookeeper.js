'use strict'
// Leases in ZooKeeper, through the user's node-zookeeper-client Client (its session). Under
// /flake-idgen (in the client's chroot):
//   namespaces/<ns>       the namespace's marker {meta, u, d, s, f}: its floor, for ids never
//                         held, is max(f, its mtime + u); `d` counts the records deleted (below)
//                         that it has accounted for, `s` the settings' shift of epochs (below)
//   namespaces/<ns>/<id>  the id's record, persistent, never deleted: {c, a, s}, whose ceiling
//                         is max(c, its mtime + a), the highest ceiling ever granted to the id;
//                         a release writes {c: last, r: 1, s}, whose ceiling is c
//   held/<ns>/<id>        the holder's record, EPHEMERAL (the holder's session): {o: owner, t:
//                         ttl}, which expires at its mtime + t
// A znode's mtime is the server's clock at the write: a value is written relative to it (a ttl,
// `ahead`), so each operation is one transaction (multi) whose time is the server's, versioned
// on every znode it read, and every ceiling is the server's time plus `ahead`. A session that
// ends takes its holders' znodes with it: their ids are free at once, above their records'
// ceilings, which stay. A paused holder outlives its session and its ttl; the record fences it.
//
// No znode is listed, and no record read, beyond the ids an acquire looks at: a pool of up to
// WHOLE ids is read whole (the free id of lowest ceiling, then of lowest id, as Redis takes), a
// larger one through SAMPLE ids drawn at random (the lowest ceiling among them), and the holders'
// znodes are listed only when every id drawn was held.
//
// A record deleted by hand (maybe while held) must not make its id look never held: the
// marker's cversion counts its children's creations and deletions, so (cversion - children) / 2
// records were deleted; past `d`, the floor of ids with no record is raised to now + u first.
// A change of settings shifts every ceiling by the change of epoch: in the marker's `s`, each
// record reading its own `s` against it, so the change is one write.

const { checkResult, storeError, schemaError, shown } = require('./replies.js')
const { changeable } = require('./settings.js')
const { invalidOption } = require('../errors/errors.js')

const KIND = 'node-zookeeper-client'
// npm zookeeper's client (native), which the row recognises only to refuse.
const NATIVE = 'zookeeper'
const ROOT = '/flake-idgen'
const NAMESPACES = `${ROOT}/namespaces`
const HELD = `${ROOT}/held`
// The clock: written to read the server's time (its mtime), where nothing else is written.
const CLOCK = `${ROOT}/clock`
const PERSISTENT = 0
const EPHEMERAL = 1
// ZooKeeper's error codes.
const NO_NODE = -101
const NODE_EXISTS = -110
const BAD_VERSION = -103
const SESSION_EXPIRED = -112
// node-zookeeper-client's ConnectionManager.STATES.CLOSED.
const CLIENT_CLOSED = -2
// What a multi meets when another client wrote between its reads and it: tried again.
const RACED = new Set([NO_NODE, NODE_EXISTS, BAD_VERSION])

// Each id looked at is two reads in the acquire's round trip: a small pool is read whole, a
// larger one by a few ids, which at 2,000 holders of 65,536 ids are all held once in 10^6.
const WHOLE = 16
const SAMPLE = 4
// Tries of an acquire, renewal or release when another client's write came between its read and its own.
const ATTEMPTS = 24

const MISFIT = 'not what the lease writes (a JSON object of integers'
const SHAPES = {
  marker: [
    (v) => typeof v.meta === 'string' && int(v.u) && int(v.d) && int(v.s) && opt(v.f),
    `${MISFIT} u, d, s, f and a string meta)`,
  ],
  // A grant's `a`, or a release's `r: 1`, never both: a record without either (a release's
  // shape with its mark left out, by hand) would make its ceiling `c` alone, trusted as low.
  record: [
    (v) => int(v.c) && int(v.s) && (v.a === undefined ? v.r === 1 : int(v.a) && v.r === undefined),
    `${MISFIT} c, s, and a or r: 1)`,
  ],
  held: [(v) => typeof v.o === 'string' && int(v.t), `${MISFIT} t and a string o)`],
}
const int = (v) => Number.isSafeInteger(v)
const opt = (v) => v === undefined || int(v)

const codeOf = (error) => (typeof error?.getCode === 'function' ? error.getCode() : error?.code)
const json = (value) => Buffer.from(JSON.stringify(value))
/** A stat's time: node-zookeeper-client gives a long as 8 bytes, big-endian. */
const msOf = (time) => (Buffer.isBuffer(time) ? Number(time.readBigInt64BE(0)) : Number(time))

/** A namespace's name in a path: any text, percent-encoded (no `/`, and never `.` or `..`). */
const nameOf = (namespace) => `n${encodeURIComponent(namespace)}`

// The clients whose root znodes were made (or are being), each with that promise.
const rooted = new WeakMap()

/**
 * A ZooKeeper store over the user's connected node-zookeeper-client `client`.
 * @returns {import('./stores.js').Store}
 */
function zookeeperStore(client) {
  const call = (method, ...args) =>
    new Promise((resolve, reject) => {
      client[method](...args, (error, ...results) => (error ? reject(dead(error)) : resolve(results)))
    })
  // node-zookeeper-client never opens a client again once it closed for good (its session
  // expired, as a client paused past its session timeout finds, or close() was called): every
  // call then fails as a lost connection would, for ever, so it is said, and not tried again.
  // The calls pending at the expiry fail as SESSION_EXPIRED; every later one as CONNECTION_LOSS,
  // which only the connection manager's state (CLOSED) tells apart from a transient loss.
  const dead = (error) =>
    codeOf(error) === SESSION_EXPIRED || client.connectionManager?.state === CLIENT_CLOSED
      ? storeError(
          KIND,
          `has a client closed for good (its session expired, or close() was called; ${error}), and node-zookeeper-client never opens one again: lease with a new client (createClient)`,
          error,
        )
      : error

  /** A znode's data (checked against SHAPES[shape]) and stat, or null where there is none. */
  async function read(path, shape) {
    try {
      const [data, stat] = await call('getData', path)
      return { ...parsed(path, data, shape), stat, version: stat.version, mtime: msOf(stat.mtime) }
    } catch (error) {
      if (codeOf(error) === NO_NODE) return null
      throw error
    }
  }

  function parsed(path, data, shape) {
    if (shape === undefined) return {}
    const [ok, must] = SHAPES[shape]
    const text = data === null || data === undefined ? '' : data.toString()
    let value
    try {
      value = JSON.parse(text)
    } catch {}
    if (value === null || typeof value !== 'object' || !ok(value)) {
      throw schemaError(KIND, `znode ${path} holds ${shown(text)}, ${must}`)
    }
    return { value }
  }

  async function list(path) {
    try {
      return (await call('getChildren', path))[0]
    } catch (error) {
      if (codeOf(error) === NO_NODE) return null
      throw error
    }
  }

  /** Runs `ops` ([method, ...args] of the client's Transaction) as one multi: its results. */
  function multi(ops) {
    return new Promise((resolve, reject) => {
      let transaction = client.transaction()
      for (const [method, ...args] of ops) transaction = transaction[method](...args)
      transaction.commit((error, results) => (error ? reject(dead(error)) : resolve(results)))
    })
  }

  /** A write checked on `version`: node-zookeeper-client reads a version 0 as "any". */
  function versioned(node, path) {
    if (node.version === 0)
      throw schemaError(
        KIND,
        `znode ${path} has version 0: the lease writes each znode it makes twice, so that a write can be checked against its version; this one was made by another program`,
      )
    return node.version
  }

  /** A persistent znode made with `value` (written twice: see versioned), unless one is there. */
  async function make(path, value) {
    try {
      await multi([
        ['create', path, json(value), PERSISTENT],
        ['setData', path, json(value), -1],
      ])
    } catch (error) {
      if (codeOf(error) !== NODE_EXISTS) throw error
    }
  }

  function roots() {
    let ready = rooted.get(client)
    if (ready === undefined) {
      ready = (async () => {
        await make(ROOT, {}).catch((error) => {
          // ZooKeeper makes no chroot: the client's must be there.
          if (codeOf(error) !== NO_NODE) throw error
          throw storeError(
            KIND,
            `found no znode at its client's chroot to make ${ROOT} in: ZooKeeper makes none, make it first`,
          )
        })
        for (const path of [NAMESPACES, HELD, CLOCK]) await make(path, {})
      })().catch((error) => {
        rooted.delete(client)
        throw error
      })
      rooted.set(client, ready)
    }
    return ready
  }

  /** `work()`, again after the root znodes are made anew when it finds one gone (a server that lost its data). */
  async function rootedWork(work) {
    await roots()
    try {
      return await work()
    } catch (error) {
      if (codeOf(error) !== NO_NODE) throw error
      rooted.delete(client)
      await roots()
      return await work()
    }
  }

  /** The server's time: the clock's mtime, written now. */
  async function clock() {
    const [stat] = await rootedWork(() => call('setData', CLOCK, Buffer.alloc(0), -1))
    return msOf(stat.mtime)
  }

  const paths = (namespace) => {
    const name = nameOf(namespace)
    return { marker: `${NAMESPACES}/${name}`, held: `${HELD}/${name}` }
  }

  const floorOf = (marker) => Math.max(marker.value.f ?? -Infinity, marker.mtime + marker.value.u)
  /** A record's ceiling, shifted as the namespace's settings were since it was written. */
  const ceilingOf = (record, marker) =>
    Math.max(record.value.c, record.value.a === undefined ? -Infinity : record.mtime + record.value.a) +
    marker.value.s -
    record.value.s
  const expiryOf = (held) => held.mtime + held.value.t
  const deletions = (marker) => (marker.stat.cversion - marker.stat.numChildren) / 2

  /** The marker, and each id's record and holder: read in one round trip, the marker last. */
  async function look(where, ids) {
    const pending = ids.map((id) =>
      Promise.all([read(`${where.marker}/${id}`, 'record'), read(`${where.held}/${id}`, 'held')]),
    )
    // One Promise.all over all: a failed read must not leave the marker's failure unhandled.
    const [found, marker] = await Promise.all([Promise.all(pending), read(where.marker, 'marker')])
    return { marker, ids: ids.map((id, k) => ({ id, record: found[k][0], held: found[k][1] })) }
  }

  /** The candidate of lowest ceiling, then of lowest id: `[candidate, its ceiling]`. */
  function lowest(candidates, marker) {
    let best
    let bestCeiling
    for (const candidate of candidates) {
      const ceiling = candidate.record === null ? floorOf(marker) : ceilingOf(candidate.record, marker)
      if (best === undefined || ceiling < bestCeiling || (ceiling === bestCeiling && candidate.id < best.id)) {
        best = candidate
        bestCeiling = ceiling
      }
    }
    return [best, bestCeiling]
  }

  /**
   * Takes `candidate` (its record and holder as read) for `owner`, in one multi checked against
   * every version read: the answer, or null when another write came first.
   */
  async function take(where, marker, candidate, floor, { owner, ttl, ahead }) {
    const { id, record, held } = candidate
    const recordPath = `${where.marker}/${id}`
    const heldPath = `${where.held}/${id}`
    const written = json({ c: floor, a: ahead, s: marker.value.s })
    const holder = json({ o: owner, t: ttl })
    const ops = [['check', where.marker, versioned(marker, where.marker)]]
    if (held !== null) ops.push(['remove', heldPath, versioned(held, heldPath)])
    ops.push(['create', heldPath, holder, EPHEMERAL], ['setData', heldPath, holder, -1])
    if (record === null) ops.push(['create', recordPath, written, PERSISTENT])
    ops.push(['setData', recordPath, written, record === null ? -1 : versioned(record, recordPath)])
    // The holders' parent's version moves with each lease taken: a change of settings checks it.
    ops.push(['setData', where.held, Buffer.alloc(0), -1])
    let results
    try {
      results = await multi(ops)
    } catch (error) {
      if (!RACED.has(codeOf(error))) throw error
      // The holders' parent is gone (by hand, or with the server's data): made again.
      if (codeOf(error) === NO_NODE) await make(where.held, {})
      return null
    }
    const now = msOf(results[ops.length - 2].stat.mtime)
    return { status: 'acquired', id, floor, ceiling: Math.max(floor, now + ahead), now }
  }

  /** The marker's floor raised to now + u, once records were found deleted: whether it was. */
  async function raise(where, marker) {
    const value = { ...marker.value, d: deletions(marker), f: floorOf(marker) }
    try {
      await multi([['setData', where.marker, json(value), versioned(marker, where.marker)]])
    } catch (error) {
      if (!RACED.has(codeOf(error))) throw error
    }
  }

  /**
   * The namespace's settings changed to `meta` once no lease is live, each ceiling shifted by
   * the change of epoch: checked on the holders' parent, which every lease taken writes.
   * Whether no lease is live (and so the settings changed, or another change came first).
   */
  async function change(where, marker, meta, unknownMs) {
    const now = await clock()
    const parent = await read(where.held)
    const names = (await list(where.held)) ?? []
    const holders = await Promise.all(names.map((name) => read(`${where.held}/${name}`, 'held')))
    if (holders.some((held) => held !== null && expiryOf(held) > now)) return false
    const shift = JSON.parse(meta).epoch - JSON.parse(marker.value.meta).epoch
    const value = { meta, u: unknownMs, d: marker.value.d, s: marker.value.s + shift, f: floorOf(marker) + shift }
    const ops = [['setData', where.marker, json(value), versioned(marker, where.marker)]]
    if (parent !== null) ops.unshift(['check', where.held, versioned(parent, where.held)])
    try {
      await multi(ops)
    } catch (error) {
      if (!RACED.has(codeOf(error))) throw error
    }
    return true
  }

  /** The namespace's marker and holders' parent, made for `meta`. */
  async function begin(where, meta, unknownMs) {
    await make(where.marker, { meta, u: unknownMs, d: 0, s: 0 })
    await make(where.held, {})
  }

  /** Ids of `[first, last]` no holder's znode names, up to SAMPLE of them at random. */
  async function unheld(where, first, last) {
    const names = new Set((await list(where.held)) ?? [])
    const open = []
    for (let id = first; id <= last; id++) if (!names.has(String(id))) open.push(id)
    return draw(open, SAMPLE)
  }

  /** An acquire's every id held: an expired lease taken over, or when the soonest expires. */
  async function takeOver(where, view, args) {
    const now = await clock()
    let seen = view.ids
    if (args.last - args.first + 1 > WHOLE) {
      const names = ((await list(where.held)) ?? []).map(Number).filter((id) => id >= args.first && id <= args.last)
      seen = (await look(where, names)).ids
    }
    const held = seen.filter((candidate) => candidate.held !== null)
    const expired = held.filter((candidate) => expiryOf(candidate.held) <= now)
    if (expired.length === 0) {
      const soonest = Math.min(...held.map((candidate) => expiryOf(candidate.held)))
      return { answer: { status: 'exhausted', now, retryAt: Number.isFinite(soonest) ? soonest : now } }
    }
    return { pick: lowest(expired, view.marker) }
  }

  async function acquire(args) {
    const { namespace, first, last, meta, unknownMs } = args
    const where = paths(namespace)
    let changed = false
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const ids = last - first + 1 <= WHOLE ? range(first, last) : draw(null, SAMPLE, first, last)
      let view = await rootedWork(() => look(where, ids))
      const { marker } = view
      if (marker === null) {
        await rootedWork(() => begin(where, meta, unknownMs))
        continue
      }
      if (marker.value.meta !== meta) {
        if (!changed && changeable(marker.value.meta, meta)) {
          changed = true
          if (await change(where, marker, meta, unknownMs)) continue
          return checkResult(KIND, 'acquire', { status: 'mismatch', meta: marker.value.meta, live: true })
        }
        return checkResult(KIND, 'acquire', { status: 'mismatch', meta: marker.value.meta })
      }
      let free = view.ids.filter((candidate) => candidate.held === null)
      if (free.length === 0 && ids.length < last - first + 1) {
        const open = await unheld(where, first, last)
        if (open.length > 0) {
          view = await look(where, open)
          free = view.ids.filter((candidate) => candidate.held === null)
        }
      }
      let pick
      if (free.length > 0) pick = lowest(free, view.marker)
      else {
        const over = await takeOver(where, view, args)
        if (over.answer !== undefined) return checkResult(KIND, 'acquire', over.answer)
        pick = over.pick
      }
      const [candidate, floor] = pick
      if (candidate.record === null && deletions(view.marker) > view.marker.value.d) {
        await raise(where, view.marker)
        continue
      }
      const answer = await take(where, view.marker, candidate, floor, args)
      if (answer !== null) return checkResult(KIND, 'acquire', answer)
    }
    // Every try met another acquirer's write: the pool is contended, not exhausted; again at once.
    const now = await clock()
    return checkResult(KIND, 'acquire', { status: 'exhausted', now, retryAt: now })
  }

  /** What a holder's renewal or release of `id` reads: its holder's znode, its record, the marker. */
  async function holding(where, id) {
    const recordPath = `${where.marker}/${id}`
    const heldPath = `${where.held}/${id}`
    const [held, record, marker] = await Promise.all([
      read(heldPath, 'held'),
      read(recordPath, 'record'),
      read(where.marker, 'marker'),
    ])
    return { heldPath, recordPath, held, record, marker }
  }

  async function renew({ namespace, id, owner, ttl, ahead, meta }) {
    const where = paths(namespace)
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const { heldPath, recordPath, held, record, marker } = await holding(where, id)
      if (marker === null || marker.value.meta !== meta || held === null || held.value.o !== owner || record === null)
        break
      const ceiling = ceilingOf(record, marker)
      const ops = [
        ['check', where.marker, versioned(marker, where.marker)],
        ['setData', heldPath, json({ o: owner, t: ttl }), versioned(held, heldPath)],
        ['setData', recordPath, json({ c: ceiling, a: ahead, s: marker.value.s }), versioned(record, recordPath)],
      ]
      let results
      try {
        results = await multi(ops)
      } catch (error) {
        if (RACED.has(codeOf(error))) continue
        throw error
      }
      const now = msOf(results[2].stat.mtime)
      return checkResult(KIND, 'renew', { status: 'renewed', ceiling: Math.max(ceiling, now + ahead), now })
    }
    return checkResult(KIND, 'renew', { status: 'lost', now: await clock() })
  }

  async function release({ namespace, id, owner, last }) {
    const where = paths(namespace)
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const { heldPath, recordPath, held, record, marker } = await holding(where, id)
      if (held === null || held.value.o !== owner) break
      const ops = [['remove', heldPath, versioned(held, heldPath)]]
      // The next holder's floor: the last timestamp issued, in the namespace's settings of now.
      if (marker !== null) {
        const written = json({ c: last, r: 1, s: marker.value.s })
        if (record === null) ops.push(['create', recordPath, written, PERSISTENT], ['setData', recordPath, written, -1])
        else ops.push(['setData', recordPath, written, versioned(record, recordPath)])
      }
      try {
        await multi(ops)
      } catch (error) {
        if (RACED.has(codeOf(error))) continue
        throw error
      }
      return { status: 'released' }
    }
    return { status: 'lost' }
  }

  // Reads, but for the clock: its write is the server's time.
  async function listing({ namespace }) {
    const where = paths(namespace)
    const now = await clock()
    const marker = await read(where.marker, 'marker')
    if (marker === null) return { now, meta: null, floor: null, records: [] }
    const [names, holderNames] = await Promise.all([list(where.marker), list(where.held)])
    const idOf = (name, parent) => {
      if (!/^\d{1,5}$/.test(name)) throw schemaError(KIND, `znode ${parent}/${name} is not a generator id's`)
      return Number(name)
    }
    const ids = (names ?? []).map((name) => idOf(name, where.marker))
    const heldIds = (holderNames ?? []).map((name) => idOf(name, where.held))
    const [records, holders] = await Promise.all([
      Promise.all(ids.map((id) => read(`${where.marker}/${id}`, 'record'))),
      Promise.all(heldIds.map((id) => read(`${where.held}/${id}`, 'held'))),
    ])
    const holderOf = new Map(heldIds.map((id, k) => [id, holders[k]]))
    const listed = []
    ids.forEach((id, k) => {
      if (records[k] === null) return
      const held = holderOf.get(id) ?? null
      listed.push({
        id,
        owner: held === null ? null : held.value.o,
        expires: held === null ? 0 : expiryOf(held),
        ceiling: ceilingOf(records[k], marker),
      })
    })
    listed.sort((a, b) => a.id - b.id)
    return { now, meta: marker.value.meta, floor: floorOf(marker), records: listed }
  }

  return {
    kind: KIND,
    async time() {
      return checkResult(KIND, 'time', { now: await clock() }).now
    },
    acquire,
    renew,
    release,
    list: listing,
    async close() {},
  }
}

const range = (first, last) => Array.from({ length: last - first + 1 }, (_, k) => first + k)

/** `count` distinct ids at random: of `from`, or of [first, last] when `from` is null. */
function draw(from, count, first, last) {
  const size = from === null ? last - first + 1 : from.length
  if (size <= count) return from === null ? range(first, last) : from
  const picked = new Set()
  while (picked.size < count) {
    const k = Math.floor(Math.random() * size)
    picked.add(from === null ? first + k : from[k])
  }
  return [...picked]
}

/** The ZooKeeper store over the user's node-zookeeper-client Client. */
function make(client, { replicas }, recognised) {
  if (recognised === NATIVE) {
    throw invalidOption(
      'store',
      "a node-zookeeper-client Client: npm zookeeper's has no multi (ZooKeeper's transactions), which every lease write needs to check what it read",
      client,
    )
  }
  if (replicas > 0) {
    throw invalidOption(
      'replicas',
      '0 with ZooKeeper (a write is acknowledged once a quorum of its ensemble has it)',
      replicas,
    )
  }
  return zookeeperStore(client)
}

// What `lease list --zookeeper` and `serve --lease zookeeper://…` take: ZooKeeper's connection
// string, host:port[,host:port…][/chroot], after an optional zookeeper:// and user:password@
// (digest authentication).
const ADDRESS = /^(?:zookeeper:\/\/)?(?:([^@/]*)@)?([^,/@:\s]+(?::\d{1,5})?(?:,[^,/@:\s]+(?::\d{1,5})?)*)(\/\S*)?$/i

/** `text`'s hosts and chroot, and its user:password, or undefined when it is not ZooKeeper's. */
function address(text) {
  const match = typeof text === 'string' ? ADDRESS.exec(text) : null
  if (match === null) return undefined
  const [, auth, hosts, chroot] = match
  return {
    hosts: `${hosts}${chroot === undefined || chroot === '/' ? '' : chroot}`,
    auth: auth ? decodeURIComponent(auth) : null,
  }
}

// For `flake-idgen lease list` and `serve --lease`: a client that gives up, where
// node-zookeeper-client retries for ever and says nothing of a refused connection: at the
// timeout, or at a failed authentication; once connected, a lost connection or session ends it.
const nodeZookeeperClient = {
  name: KIND,
  connect(lib, text, timeoutMs) {
    const { hosts, auth } = address(text)
    const client = lib.createClient(hosts, { sessionTimeout: 30_000, retries: 0 })
    if (auth !== null) client.addAuthInfo('digest', Buffer.from(auth))
    const open = () =>
      new Promise((resolve, reject) => {
        const events = {
          connected: () => done(),
          authenticationFailed: () => done(new Error(`authentication failed at ${hosts}`)),
          expired: () => done(new Error(`the session at ${hosts} expired`)),
        }
        const timer = setTimeout(
          () => done(new Error(`no server of ${hosts} made a session within ${timeoutMs} ms`)),
          timeoutMs,
        )
        const done = (error) => {
          clearTimeout(timer)
          for (const [name, listener] of Object.entries(events)) client.removeListener(name, listener)
          if (error === undefined) {
            for (const name of ['disconnected', 'expired']) client.once(name, () => closing || client.emit('end'))
            resolve()
          } else reject(error)
        }
        for (const [name, listener] of Object.entries(events)) client.once(name, listener)
        Object.getPrototypeOf(client).connect.call(client)
      })
    let closing = false
    client.connect = open
    return {
      client,
      close: () => {
        closing = true
        client.close()
      },
    }
  },
}

/** ZooKeeper's row of the lease stores (stores.js). */
module.exports = {
  name: 'zookeeper',
  describes: 'a node-zookeeper-client Client',
  // The user's client is recognised by its shape, as Redis's is (redis.js); npm zookeeper's
  // (native) too, to be refused by name.
  recognise: (client) =>
    typeof client.transaction === 'function' &&
    typeof client.getChildren === 'function' &&
    typeof client.getSessionTimeout === 'function'
      ? KIND
      : typeof client.a_create === 'function' &&
          typeof client.a_get === 'function' &&
          typeof client.mkdirp === 'function'
        ? NATIVE
        : false,
  make,
  value: 'HOSTS',
  form: 'host:port[,host:port…][/chroot], or a zookeeper:// URL',
  address,
  schemes: ['zookeeper:'],
  clients: [nodeZookeeperClient],
}

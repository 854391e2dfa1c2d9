'use strict'
// Leases in etcd v3, over the user's `Etcd3` client (npm etcd3). A namespace is the keys under
// `flake-idgen/<namespace, URI-encoded>/`, whatever namespace() the client was made with:
//   marker            {meta, floor, shift}: the settings, the floor of ids never held, and the
//                     epoch shift of the records (below); written at first use, never expires
//   id/<id>           the record {o: owner, e: expires, c: ceiling}: never expires, never deleted
//   free/<c>/<id>     the free records by ceiling, held/<e>/<id> the held ones by expiry: each
//                     entry holds its record's value, written in the record's transaction
//   runs/<first>      "<last>": the maximal runs of ids that have a record
//   clock             {w}: the newest clock reading a holder left, on that holder's etcd lease
// Every write is one transaction comparing the mod revisions of what it read: a race lost is
// read again, never a blind write. An index entry and its record share a mod revision, so an
// acquire reads the indexes, then writes (one round trip when its client's last write read them
// back); a record changed without its entry (by hand) fails that compare and is indexed again
// from the record, keeping the higher of the two ceilings. etcd 3.4 reads every key of a range
// whatever its limit: the ranges read are kept to the few keys that can answer (expired
// entries, a window of ceilings).
//
// etcd has no clock: expiries and ceilings are the holders' clocks. The fences need none while
// etcd keeps the namespace: each record keeps the highest ceiling ever granted, and a new holder
// starts above it. The clocks matter only once it is lost (restored without its data, keys
// deleted): holders then start above now + unknownMs + maxClockSkewMs, above every ceiling of
// a holder whose clock is within maxClockSkewMs of theirs. So each call reads the newest reading
// another live holder left (its age bounded by the TTL of the etcd lease it is on) and answers a
// clock further from it than maxClockSkewMs with that reading as the store's time: the lease
// refuses the holder as it refuses a clock far from Redis's (docs/fleets.md).

const { EventEmitter } = require('node:events')
const { readFileSync } = require('node:fs')
const tls = require('node:tls')
const { performance } = require('node:perf_hooks')
const { systemNowMs } = require('../binding/load-binding.js')
const { invalidOption } = require('../errors/errors.js')
const { checkResult, storeError, schemaError, shown } = require('./replies.js')

const ROOT = 'flake-idgen/'
// Index entries read per acquire: enough to find an id of the pool past a few of other pools'.
const BATCH = 8
// Races lost in a row before an acquire, renewal or release gives up (the lease tries again).
const TRIES = 64
// etcd checks its leases' expiry twice a second and states their TTL in whole seconds.
const LEASE_SLACK_MS = 1000
// What two reads of one clock may differ by beside the skew: whole milliseconds, and the
// monotonic clock an own reading's age is measured by.
const READ_SLACK_MS = 5

const MISFIT = 'not what the lease writes (a JSON object of integers e and c, and a string o or none)'
const MARKER_MISFIT = 'not what the lease writes (a JSON object of a string meta and integers floor and shift)'

const pad = (n, width) => String(Math.min(Math.max(0, n), 10 ** width - 1)).padStart(width, '0')
const bytes = (text) => Buffer.from(text)
const text = (value) => (Buffer.isBuffer(value) ? value.toString() : String(value ?? ''))

/** The keys of `namespace`; a range is [from, to) as etcd reads it. */
function keysOf(namespace) {
  const base = `${ROOT}${encodeURIComponent(namespace)}/`
  // '0' is the byte after '/': [prefix/, prefix0) is every key under prefix/.
  const under = (name) => [`${base}${name}/`, `${base}${name}0`]
  return {
    base,
    marker: `${base}marker`,
    clock: `${base}clock`,
    record: (id) => `${base}id/${pad(id, 5)}`,
    records: under('id'),
    free: (c, id) => `${base}free/${pad(c, 16)}/${pad(id, 5)}`,
    frees: under('free'),
    held: (e, id) => `${base}held/${pad(e, 16)}/${pad(id, 5)}`,
    helds: under('held'),
    run: (first) => `${base}runs/${pad(first, 5)}`,
    runs: under('runs'),
  }
}

// etcd's enums (rpc.proto), by number: SortOrder DESCEND, SortTarget KEY, CompareTarget VERSION
// and MOD, CompareResult EQUAL.
const [DESCEND, BY_KEY, VERSION, MOD, EQUAL] = [2, 0, 0, 2, 0]
const get = (key) => ({ request_range: { key: bytes(key), serializable: true } })
const scan = ([from, to], limit, descend = false) => ({
  request_range: {
    key: bytes(from),
    range_end: bytes(to),
    limit,
    serializable: true,
    ...(descend ? { sort_order: DESCEND, sort_target: BY_KEY } : {}),
  },
})
const put = (key, value, lease) => ({ request_put: { key: bytes(key), value: bytes(value), lease } })
const del = (key) => ({ request_delete_range: { key: bytes(key) } })
const unchanged = (key, kv) =>
  kv === undefined
    ? { key: bytes(key), target: VERSION, result: EQUAL, version: 0 }
    : { key: bytes(key), target: MOD, result: EQUAL, mod_revision: kv.mod_revision }

/** The id at the end of an index key or run key. */
const idOf = (kv) => Number(text(kv.key).slice(-5))

// The acquires of one client in one namespace, one at a time: they would race each other for
// the same lowest id, each race lost a round trip more (the leases of other processes still race).
const turns = new WeakMap()

/** `fn()` once every acquire before it on `kv` in `namespace` has settled. */
function inTurn(kv, namespace, fn) {
  if (!turns.has(kv)) turns.set(kv, new Map())
  const queues = turns.get(kv)
  const run = (queues.get(namespace) ?? Promise.resolve()).then(fn)
  const tail = run.catch(() => {})
  queues.set(namespace, tail)
  tail.then(() => queues.get(namespace) === tail && queues.delete(namespace))
  return run
}

// What each client's last acquire in a namespace saw after it wrote, for the next: one round trip
// an acquire while it is still so (a transaction that compares what it read), two once not.
const views = new WeakMap()
const SEEN_MS = 1000
const seenBy = (kv) => {
  if (!views.has(kv)) views.set(kv, new Map())
  return views.get(kv)
}
// Per client and namespace, a ceiling no free entry was below when last read (`c`, raw), kept
// low by its own releases: its acquires read the free entries from there. Others' releases
// may go below it, so it is read again in full each SEEN_MS.
const lowest = new WeakMap()
const WINDOW_MS = 16
const lows = (kv) => {
  if (!lowest.has(kv)) lowest.set(kv, new Map())
  return lowest.get(kv)
}
function lowOf(kv, namespace) {
  const low = lows(kv).get(namespace)
  return low !== undefined && performance.now() - low.at <= SEEN_MS ? low.c : undefined
}

/** Waits a few ms, more after each race lost, so that processes racing for one id spread out. */
const backOff = (tries) => new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(tries, 6)))

/** The settings' maxClockSkewMs, as the lease writes them in `meta` (0 for any other meta). */
function skewOf(meta) {
  try {
    const { maxClockSkewMs } = JSON.parse(meta)
    return Number.isSafeInteger(maxClockSkewMs) && maxClockSkewMs >= 0 ? maxClockSkewMs : 0
  } catch {
    return 0
  }
}

/**
 * An etcd store over `kv` and `leases` (an Etcd3's KV and Lease services). Its own etcd lease,
 * granted at its first write with the lease's ttl, carries the clock readings it leaves; it is
 * kept alive only by a call that leaves one, so that a reading is never older than its lease's
 * age says, and revoked by close().
 */
function etcdStore(kv, leases) {
  const kind = 'etcd3'
  let own = null
  // The reading this store left last: its mod revision, value and monotonic time.
  let mine = null

  async function txn(compare, success, failure = []) {
    const reply = await kv.txn({ compare, success, failure })
    if (reply === null || typeof reply !== 'object' || !Array.isArray(reply.responses)) {
      throw storeError(kind, `replied ${shown(reply)} to a transaction, not etcd's TxnResponse`)
    }
    return reply
  }
  const ranged = (reply, i) => reply.responses[i]?.response_range?.kvs ?? []

  /** The store's etcd lease, granted or kept alive when a third of its TTL has passed. */
  async function ownLease(ttl) {
    const now = performance.now()
    if (own !== null && now - own.kept < own.ms / 3) return own
    if (own !== null) {
      const stream = await leases.leaseKeepAlive()
      const reply = await new Promise((resolve, reject) => {
        stream.on('data', resolve)
        stream.on('error', reject)
        stream.write({ ID: own.id })
      }).finally(() => stream.end())
      if (Number(reply?.TTL) > 0) {
        own.kept = now
        return own
      }
    }
    const granted = await leases.leaseGrant({ TTL: Math.max(1, Math.ceil(ttl / 1000)) })
    own = { id: String(granted.ID), ms: Number(granted.TTL) * 1000, kept: now }
    return own
  }

  /** What a write the store's etcd lease is no longer there for threw: the lease is granted again. */
  const lostLease = (error) => /lease not found|EtcdLeaseInvalid/i.test(`${error?.name} ${error?.message}`)

  /**
   * The clock this call judges by, from the reading `kv` of the namespace's `clock` key: `now`,
   * the store's time it answers (the reading's when this process's clock is further from it
   * than `skew`), `base`, the time its records are written at, and `leaves`, whether it leaves
   * its own reading.
   */
  async function reckon(kv, skew) {
    const clock = systemNowMs()
    const at = performance.now()
    const ok = { now: clock, base: clock, leaves: true, at }
    if (kv === undefined) return ok
    let reading
    try {
      reading = JSON.parse(text(kv.value))
    } catch {}
    if (!Number.isSafeInteger(reading?.w)) {
      throw schemaError(kind, `${text(kv.key)} holds ${shown(text(kv.value))}, not the lease's {w: an integer}`)
    }
    const { w } = reading
    // Its writer's clock reads w or more now: further behind it than skew is certain.
    if (w - clock > skew + READ_SLACK_MS) return { now: w, base: clock, leaves: false }
    if (clock - w <= skew + READ_SLACK_MS) return ok
    // Ahead, unless the reading is that old: its age is at most the time since its writer last
    // kept its lease alive (before leaving it), which the lease's TTL says to the second.
    let age
    if (mine !== null && mine.revision === kv.mod_revision) age = at - mine.at
    else {
      const lease = await leases.leaseTimeToLive({ ID: kv.lease })
      // Expired: its writer is gone, and so is the reading.
      if (!(Number(lease?.TTL) >= 0)) return ok
      age = (Number(lease.grantedTTL) - Number(lease.TTL)) * 1000 + LEASE_SLACK_MS
    }
    const latest = Math.ceil(w + age)
    // Ceilings from the reading itself: none past what the other holder's clock has read.
    if (clock - latest > skew + READ_SLACK_MS) return { now: latest, base: w, leaves: false }
    return ok
  }

  /** `kv`'s record, checked: {o, e, c} with ceilings as written (before the marker's shift). */
  function recordOf(kv) {
    let r
    try {
      r = JSON.parse(text(kv.value))
    } catch {}
    if (
      r === null ||
      typeof r !== 'object' ||
      !Number.isSafeInteger(r.e) ||
      !Number.isSafeInteger(r.c) ||
      !(r.o === undefined || typeof r.o === 'string')
    ) {
      throw schemaError(kind, `${text(kv.key)} holds ${shown(text(kv.value))}, ${MISFIT}`)
    }
    return r
  }

  function markerOf(kv) {
    if (kv === undefined) return undefined
    let m
    try {
      m = JSON.parse(text(kv.value))
    } catch {}
    if (
      m === null ||
      typeof m !== 'object' ||
      typeof m.meta !== 'string' ||
      !Number.isSafeInteger(m.floor) ||
      !Number.isSafeInteger(m.shift ?? 0)
    ) {
      throw schemaError(kind, `${text(kv.key)} holds ${shown(text(kv.value))}, ${MARKER_MISFIT}`)
    }
    return { meta: m.meta, floor: m.floor, shift: m.shift ?? 0 }
  }

  /**
   * The writes that leave `record` at `id` with its index entry (moved from `oldEntry`): in one
   * transaction, so both share a mod revision.
   */
  function writeRecord(k, id, record, oldEntry) {
    const value = JSON.stringify(record)
    const entry = typeof record.o === 'string' ? k.held(record.e, id) : k.free(record.c, id)
    const ops = []
    if (oldEntry !== undefined && oldEntry !== entry) ops.push(del(oldEntry))
    ops.push(put(k.record(id), value), put(entry, value))
    return ops
  }
  const entryOf = (k, id, r) => (typeof r.o === 'string' ? k.held(r.e, id) : k.free(r.c, id))

  /** The reading this call leaves, on the store's etcd lease, if it leaves one. */
  function leave(k, clock, lease) {
    return clock.leaves ? [put(k.clock, JSON.stringify({ w: clock.base }), lease.id)] : []
  }
  function left(clock, reply) {
    if (clock.leaves) mine = { revision: reply.header?.revision, at: clock.at }
  }

  /**
   * Writes `ops` under `compare` on the store's etcd lease; what a write whose lease etcd no
   * longer has (expired while the process was paused, or etcd lost its data) throws is granted
   * again and written once more.
   */
  async function write(ttl, build) {
    for (let again = 0; ; again++) {
      const lease = await ownLease(ttl)
      const { compare, success, failure } = build(lease)
      try {
        return await txn(compare, success, failure)
      } catch (error) {
        if (again > 0 || !lostLease(error)) throw error
        own = null
      }
    }
  }

  /** Indexes `id` again from its record (or its absence: unknown history, at `unknown`). */
  async function repair(k, id, recordKv, entryKv, marker, unknown) {
    const compare = [unchanged(k.record(id), recordKv), unchanged(text(entryKv.key), entryKv)]
    let success
    // The entry keeps the ceiling last granted with the record: kept if higher, as a ceiling
    // lowered or deleted by hand would let the next holder issue below what a holder may use.
    const granted = recordOf(entryKv).c
    if (recordKv === undefined) {
      // A record deleted by hand: its holder may issue up to a ceiling nobody knows, at most
      // now + unknownMs + skew by its clock.
      success = writeRecord(k, id, { e: 0, c: Math.max(unknown - marker.shift, granted) }, text(entryKv.key))
    } else {
      const r = recordOf(recordKv)
      success = writeRecord(k, id, { ...r, c: Math.max(r.c, granted) }, text(entryKv.key))
    }
    await txn(compare, success)
  }

  /** Runs from the records: the ids ever held, when the runs disagree with them. */
  async function rebuildRuns(k) {
    const reply = await kv.range({ key: bytes(k.records[0]), range_end: bytes(k.records[1]), keys_only: true })
    const ids = (reply?.kvs ?? []).map(idOf).filter(Number.isInteger)
    const runs = []
    for (const id of ids) {
      const lastRun = runs.at(-1)
      if (lastRun !== undefined && id === lastRun[1] + 1) lastRun[1] = id
      else runs.push([id, id])
    }
    await txn([], [{ request_delete_range: { key: bytes(k.runs[0]), range_end: bytes(k.runs[1]) } }])
    for (let at = 0; at < runs.length; at += 100) {
      await txn(
        [],
        runs.slice(at, at + 100).map(([a, b]) => put(k.run(a), String(b))),
      )
    }
  }

  /** The first free index entry of [first, last] from key `after` on: past the first read's page. */
  async function moreFree(k, after, first, last) {
    for (let from = after; ; ) {
      const reply = await kv.range({ key: bytes(from), range_end: bytes(k.frees[1]), limit: 64, serializable: true })
      const kvs = reply?.kvs ?? []
      const found = kvs.find((entry) => idOf(entry) >= first && idOf(entry) <= last)
      if (found !== undefined || !reply?.more || kvs.length === 0) return found
      from = `${text(kvs.at(-1).key)}\0`
    }
  }

  /**
   * What an acquire reads: the marker, the clock reading, the held entries of the soonest
   * expiries, the free ones of the lowest ceilings, and the runs beside `first` (the one that holds
   * it, if any, and the one after).
   */
  const reads = (k, first, low) => [
    get(k.marker),
    get(k.clock),
    // etcd 3.4 reads every key of a range, whatever its limit: the held entries expired by now,
    // and the free ones from a ceiling no free one is below, within a window.
    scan([k.helds[0], k.held(systemNowMs() + 1, 0)], BATCH),
    low === undefined ? scan(k.frees, BATCH) : scan([k.free(low, 0), k.free(low + WINDOW_MS, 0)], BATCH),
    scan([k.runs[0], `${k.run(first)}\0`], 1, true),
    scan([`${k.run(first)}\0`, k.runs[1]], 1),
  ]

  /**
   * The reads that bring this client's views of `namespace` up to date after a write of its own,
   * to append to the write's transaction, and what takes them from its reply.
   */
  function refresh(k, namespace) {
    const prefix = `${namespace}\0`
    const views = [...seenBy(kv).keys()].filter((view) => view.startsWith(prefix))
    const low = lowOf(kv, namespace)
    return {
      ops: views.flatMap((view) => reads(k, Number(view.slice(prefix.length)), low)),
      apply(responses) {
        const at = performance.now()
        views.forEach((view, i) => {
          const end = responses.length - 6 * (views.length - 1 - i)
          seenBy(kv).set(view, { read: responses.slice(end - 6, end), at, earlier: true })
        })
      },
    }
  }

  async function acquire({ namespace, first, last, owner, ttl, ahead, meta, unknownMs }) {
    const k = keysOf(namespace)
    const skew = skewOf(meta)
    const view = `${namespace}\0${first}`
    let seen = seenBy(kv).get(view)
    if (seen !== undefined && performance.now() - seen.at > SEEN_MS) seen = undefined
    for (let tries = 0; tries < TRIES; tries++) {
      if (tries > 0) await backOff(tries)
      const low = lowOf(kv, namespace)
      if (seen === undefined) seen = { read: (await txn([], reads(k, first, low))).responses, at: performance.now() }
      const read = { responses: seen.read }
      const [markerKv] = ranged(read, 0)
      const [clockKv] = ranged(read, 1)
      const clock = await reckon(clockKv, skew)
      const now = clock.base
      const unknown = now + unknownMs + skew
      let marker = markerOf(markerKv)
      let markerWrite = null
      if (marker === undefined) {
        marker = { meta, floor: unknown, shift: 0 }
        markerWrite = marker
      } else if (marker.meta !== meta) {
        const changed = await settingsChange(k, marker, meta, now)
        if (changed.status === 'mismatch') return changed
        marker = changed.marker
        markerWrite = marker
      }
      const { shift } = marker

      // Candidates: held entries found expired, the free entry of the lowest ceiling, and the
      // lowest id never held.
      const candidates = []
      const heldKvs = ranged(read, 2)
      for (const entry of heldKvs) {
        const r = recordOf(entry)
        if (r.e > now) break
        const id = idOf(entry)
        if (id >= first && id <= last) candidates.push({ id, entry, c: r.c + shift, held: true })
      }
      let freeKv = ranged(read, 3).find((entry) => idOf(entry) >= first && idOf(entry) <= last)
      if (freeKv === undefined && (read.responses[3]?.response_range?.more || low !== undefined)) {
        const from = low === undefined ? `${text(ranged(read, 3).at(-1).key)}\0` : k.frees[0]
        freeKv = await moreFree(k, from, first, last)
      }
      if (freeKv !== undefined) candidates.push({ id: idOf(freeKv), entry: freeKv, c: recordOf(freeKv).c + shift })
      const [below] = ranged(read, 4)
      const [above] = ranged(read, 5)
      const belowLast = below === undefined ? -1 : Number(text(below.value))
      const fresh = below !== undefined && belowLast >= first ? belowLast + 1 : first
      if (fresh <= last) candidates.push({ id: fresh, fresh: true, c: marker.floor })

      if (candidates.length === 0 && seen.earlier) {
        // Exhausted as seen then, perhaps not now.
        seen = undefined
        continue
      }
      if (candidates.length === 0) {
        const [soonest] = ranged(await txn([], [scan(k.helds, 1)]), 0)
        return { status: 'exhausted', now: clock.now, retryAt: soonest === undefined ? null : recordOf(soonest).e }
      }
      candidates.sort((a, b) => a.c - b.c || a.id - b.id)
      const best = candidates[0]
      const ceiling = Math.max(best.c, now + ahead)
      const record = { o: owner, e: now + ttl, c: ceiling - shift }

      const reply = await write(ttl, (lease) => {
        // What was seen earlier than this call is written over only if its reading is still
        // the newest: its age was judged as of then.
        const compare = [unchanged(k.marker, markerKv)]
        if (seen.earlier) compare.push(unchanged(k.clock, clockKv))
        const success = markerWrite === null ? [] : [put(k.marker, JSON.stringify(markerWrite))]
        let extra
        if (best.fresh) {
          // The record must still be absent, and the runs beside it as read.
          compare.push(unchanged(k.record(best.id), undefined))
          const joinsBelow = below !== undefined && belowLast === best.id - 1
          const rightKey = k.run(best.id + 1)
          const right = above !== undefined && text(above.key) === rightKey ? above : undefined
          if (joinsBelow) compare.push(unchanged(text(below.key), below))
          compare.push(unchanged(rightKey, right))
          const from = joinsBelow ? idOf(below) : best.id
          const to = right === undefined ? best.id : Number(text(right.value))
          if (right !== undefined) success.push(del(rightKey))
          success.push(put(k.run(from), String(to)))
          success.push(...writeRecord(k, best.id, record, undefined))
          extra = scan([k.runs[0], `${k.run(best.id)}\0`], 1, true)
        } else {
          compare.push(unchanged(text(best.entry.key), best.entry))
          compare.push({
            key: bytes(k.record(best.id)),
            target: MOD,
            result: EQUAL,
            mod_revision: best.entry.mod_revision,
          })
          success.push(...writeRecord(k, best.id, record, text(best.entry.key)))
          extra = get(text(best.entry.key))
        }
        success.push(...leave(k, clock, lease))
        // Either way, what the next acquire reads: after this one's writes, or as they are now.
        const next = reads(k, first, best.entry !== undefined && !best.held ? best.c - shift : low)
        return { compare, success: [...success, ...next], failure: [...next, get(k.record(best.id)), extra] }
      })
      const after = reply.responses
      if (reply.succeeded) {
        left(clock, reply)
        seenBy(kv).set(view, { read: after.slice(-6), at: performance.now(), earlier: true })
        if (best.entry !== undefined && !best.held)
          lows(kv).set(namespace, { c: best.c - shift, at: performance.now() })
        return { status: 'acquired', id: best.id, floor: best.c, ceiling, now: clock.now }
      }
      seen = { read: after.slice(0, 6), at: performance.now() }
      // Lost a race, or the index disagrees with a record: read again, after mending it.
      const [recordKv] = ranged(reply, 6)
      if (best.fresh) {
        // Taken meanwhile, its run written with it; a record no run holds was written otherwise.
        const [run] = ranged(reply, 7)
        const covered = run !== undefined && Number(text(run.value)) >= best.id
        if (recordKv !== undefined && !covered) {
          await rebuildRuns(k)
          seen = undefined
        }
      } else {
        const [entryKv] = ranged(reply, 7)
        const sameEntry = entryKv !== undefined && entryKv.mod_revision === best.entry.mod_revision
        if (sameEntry && recordKv?.mod_revision !== entryKv.mod_revision) {
          await repair(k, best.id, recordKv, entryKv, marker, unknown)
          seen = undefined
        }
      }
    }
    seenBy(kv).delete(view)
    throw storeError(kind, `lost ${TRIES} races in a row to acquire in ${k.base}`)
  }

  /**
   * The namespace's settings changed to `meta`: refused while a lease of the old ones is live
   * (the held entry of the latest expiry says so) or for another layout; else its marker, with
   * every ceiling shifted by the change of epoch (the records keep theirs, the marker's shift
   * moves them all).
   */
  async function settingsChange(k, marker, meta, now) {
    let old, next
    try {
      old = JSON.parse(marker.meta)
      next = JSON.parse(meta)
    } catch {}
    const epochs = typeof old?.epoch === 'number' && typeof next?.epoch === 'number'
    if (!epochs || old.layout !== next.layout) return { status: 'mismatch', meta: marker.meta }
    // Sorted by etcd in full: read only here, where settings change.
    const [latest] = ranged(await txn([], [scan(k.helds, 1, true)]), 0)
    if (latest !== undefined) {
      const r = recordOf(latest)
      if (typeof r.o === 'string' && r.e > now) return { status: 'mismatch', meta: marker.meta, live: true }
    }
    const delta = next.epoch - old.epoch
    return { marker: { meta, floor: marker.floor + delta, shift: marker.shift + delta } }
  }

  async function renew({ namespace, id, owner, ttl, ahead, meta }) {
    const k = keysOf(namespace)
    const skew = skewOf(meta)
    for (let tries = 0; tries < TRIES; tries++) {
      if (tries > 0) await backOff(tries)
      const read = await txn([], [get(k.record(id)), get(k.marker), get(k.clock)])
      const [recordKv] = ranged(read, 0)
      const [markerKv] = ranged(read, 1)
      const clock = await reckon(ranged(read, 2)[0], skew)
      const marker = markerOf(markerKv)
      if (recordKv === undefined || marker?.meta !== meta) return { status: 'lost', now: clock.now }
      const r = recordOf(recordKv)
      if (r.o !== owner) return { status: 'lost', now: clock.now }
      const now = clock.base
      const ceiling = Math.max(r.c + marker.shift, now + ahead)
      const record = { o: owner, e: now + ttl, c: ceiling - marker.shift }
      const views = refresh(k, namespace)
      const reply = await write(ttl, (lease) => ({
        compare: [unchanged(k.record(id), recordKv), unchanged(k.marker, markerKv)],
        success: [...writeRecord(k, id, record, entryOf(k, id, r)), ...leave(k, clock, lease), ...views.ops],
      }))
      if (reply.succeeded) {
        left(clock, reply)
        views.apply(reply.responses)
        return { status: 'renewed', ceiling, now: clock.now }
      }
    }
    throw storeError(kind, `lost ${TRIES} races in a row to renew in ${k.base}`)
  }

  async function release({ namespace, id, owner, last }) {
    const k = keysOf(namespace)
    for (let tries = 0; tries < TRIES; tries++) {
      if (tries > 0) await backOff(tries)
      const read = await txn([], [get(k.record(id)), get(k.marker)])
      const [recordKv] = ranged(read, 0)
      const [markerKv] = ranged(read, 1)
      if (recordKv === undefined) return { status: 'lost' }
      const r = recordOf(recordKv)
      if (r.o !== owner) return { status: 'lost' }
      const shift = markerOf(markerKv)?.shift ?? 0
      // The free entry it writes may be the lowest: this client's acquires read from there on.
      const low = lows(kv).get(namespace)
      if (low !== undefined && last - shift < low.c) low.c = last - shift
      const views = refresh(k, namespace)
      const reply = await txn(
        [unchanged(k.record(id), recordKv), unchanged(k.marker, markerKv)],
        [...writeRecord(k, id, { e: 0, c: last - shift }, entryOf(k, id, r)), ...views.ops],
      )
      if (reply.succeeded) {
        views.apply(reply.responses)
        return { status: 'released' }
      }
    }
    throw storeError(kind, `lost ${TRIES} races in a row to release in ${k.base}`)
  }

  async function list({ namespace }) {
    const k = keysOf(namespace)
    const read = await txn(
      [],
      [
        { request_range: { key: bytes(k.marker) } },
        { request_range: { key: bytes(k.clock) } },
        { request_range: { key: bytes(k.records[0]), range_end: bytes(k.records[1]) } },
      ],
    )
    const marker = markerOf(ranged(read, 0)[0])
    const clock = await reckon(ranged(read, 1)[0], skewOf(marker?.meta))
    const shift = marker?.shift ?? 0
    const records = ranged(read, 2).map((kv) => {
      const r = recordOf(kv)
      return { id: idOf(kv), owner: typeof r.o === 'string' ? r.o : null, expires: r.e, ceiling: r.c + shift }
    })
    return { now: clock.now, meta: marker?.meta ?? null, floor: marker?.floor ?? null, records }
  }

  // Every answer checked as the other stores' are: a reply etcd3 mangled is no fence.
  const checked = (operation, fn) => async (args) => checkResult(kind, operation, await fn(args))

  return {
    kind,
    // The host's clock, once etcd answers: no namespace, so no reading to judge it by.
    async time() {
      await kv.range({ key: bytes(ROOT), limit: 1, keys_only: true, serializable: true })
      return systemNowMs()
    },
    acquire: checked('acquire', (args) => inTurn(kv, args.namespace, () => acquire(args))),
    renew: checked('renew', renew),
    release: checked('release', release),
    list,
    async close() {
      const lease = own
      own = null
      if (lease !== null) await leases.leaseRevoke({ ID: lease.id }).catch(() => {})
    },
  }
}

/** The etcd store over the user's `Etcd3` client (or a namespace() of it: its keys are the lease's own). */
function make(client, { replicas }) {
  if (replicas > 0) {
    throw invalidOption('replicas', '0 with etcd (its writes are acknowledged by a majority of its members)', replicas)
  }
  return etcdStore(client.kv, client.leaseClient)
}

// The shape of an Etcd3: its KV and Lease services, which its namespace()s share.
const recognise = (client) =>
  typeof client.kv?.txn === 'function' &&
  typeof client.leaseClient?.leaseGrant === 'function' &&
  typeof client.leaseClient?.leaseTimeToLive === 'function'
    ? 'etcd3'
    : undefined

// For `flake-idgen lease list` and `serve --lease`: one host (etcd://host:port; etcds:// over TLS,
// trusting the system's CAs and NODE_EXTRA_CA_CERTS, which gRPC would not read), the user and
// password of the URL, calls that fail at once, each within the timeout.
const etcd3 = {
  name: 'etcd3',
  connect(lib, url, timeoutMs) {
    const parsed = new URL(url)
    const secure = parsed.protocol === 'etcds:'
    const extra = secure && process.env.NODE_EXTRA_CA_CERTS
    const direct = { execute: (fn) => fn({ signal: new AbortController().signal, attempt: 0 }) }
    const client = new lib.Etcd3({
      hosts: `${secure ? 'https' : 'http'}://${parsed.host}`,
      ...(extra
        ? {
            credentials: {
              rootCertificate: Buffer.from([...tls.rootCertificates, readFileSync(extra, 'utf8')].join('\n')),
            },
          }
        : {}),
      ...(parsed.username
        ? { auth: { username: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) } }
        : {}),
      defaultCallOptions: () => ({ deadline: Date.now() + timeoutMs }),
      faultHandling: { host: () => direct, global: direct },
    })
    // What the command's clients have: connect(), and events (etcd3's calls fail on their own).
    const events = new EventEmitter()
    Object.assign(client, {
      on: (name, listener) => events.on(name, listener),
      connect: () => client.kv.range({ key: bytes(ROOT), limit: 1 }),
    })
    return { client, close: () => client.close() }
  },
}

/** etcd's row of the lease stores (stores.js). */
module.exports = {
  name: 'etcd',
  describes: 'an etcd3 Etcd3 client',
  recognise,
  make,
  schemes: ['etcd:', 'etcds:'],
  clients: [etcd3],
}

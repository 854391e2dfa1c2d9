'use strict'
// 128-bit ids read back without the code under test: UUIDv7 fields and base62 from the bytes,
// order checks, and the children of wide-child.js with their records.

const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { once } = require('node:events')

const CHILD = path.join(__dirname, 'wide-child.js')
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const MAX128 = 2n ** 128n - 1n

/** The 128 bits of `bytes` at `offset`, big-endian, as a bigint. */
function bigIntOf(bytes, offset = 0) {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset + offset, 16)
  return (view.readBigUInt64BE(0) << 64n) | view.readBigUInt64BE(8)
}

/** A bigint below 2^128 as 16 big-endian bytes. */
function bytesOf(value) {
  const bytes = Buffer.alloc(16)
  bytes.writeBigUInt64BE(value >> 64n, 0)
  bytes.writeBigUInt64BE(value & 0xffffffffffffffffn, 8)
  return bytes
}

/** The reference base62: 22 digits of 0-9A-Za-z, most significant first, zero-padded. */
function toBase62(value) {
  let digits = ''
  for (let rest = value; rest > 0n; rest /= 62n) digits = BASE62[Number(rest % 62n)] + digits
  return digits.padStart(22, '0')
}

function fromBase62(text) {
  let value = 0n
  for (const char of text) {
    const digit = BASE62.indexOf(char)
    if (digit < 0) throw new Error(`not a base62 digit: ${char}`)
    value = value * 62n + BigInt(digit)
  }
  return value
}

// The UUIDv7 counter's width, as src/kinds/uuid.rs documents it: its high 12 bits are rand_a, the rest
// follow the variant; the random bits fill what is left of the 62 after the variant.
const COUNTER_BITS = 15
const LOW_COUNTER_BITS = COUNTER_BITS - 12
const RANDOM_BITS = 62 - LOW_COUNTER_BITS

/** A UUID's fields as RFC 9562 §5.7 places them, with this package's counter and random bits. */
function uuidFields(bytes, offset = 0) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset + offset, 16)
  const low = b.readBigUInt64BE(8)
  const counterLow = Number((low >> BigInt(RANDOM_BITS)) & BigInt(2 ** LOW_COUNTER_BITS - 1))
  return {
    timestamp: b.readUIntBE(0, 6),
    version: b[6] >> 4,
    variant: b[8] >> 6,
    counter: ((((b[6] & 0x0f) << 8) | b[7]) << LOW_COUNTER_BITS) | counterLow,
    random: low & (2n ** BigInt(RANDOM_BITS) - 1n),
  }
}

/** The bytes of a canonical UUID string. */
const uuidBytes = (text) => Buffer.from(text.replaceAll('-', ''), 'hex')

/** Flake128's fields from its 16 bytes: 64-bit ms | 48-bit worker | 16-bit sequence. */
function flakeFields(bytes, offset = 0) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset + offset, 16)
  return { timestamp: Number(b.readBigUInt64BE(0)), worker: b.readUIntBE(8, 6), sequence: b.readUInt16BE(14) }
}

/** The 16-byte id `index` of `ids` in hex. */
const hexAt = (ids, index) => ids.toString('hex', index * 16, index * 16 + 16)

/** `fn` throws an error of `ErrorClass` and `code` whose message has every one of `words`. */
function assertRefused(assert, fn, ErrorClass, code, words) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof ErrorClass, `${error.name}: ${error.message}`)
    assert.equal(error.code, code, error.message)
    for (const word of words) assert.ok(error.message.includes(word), `"${word}" not in: ${error.message}`)
    return true
  })
}

/**
 * Fails unless the 16-byte ids of `ids` (a Buffer of them end to end) strictly increase, as
 * bytes. assert.fail on the one failure: no message built for each id that passes.
 */
function assertIncreasing(assert, ids, label) {
  for (let i = 16; i < ids.length; i += 16) {
    if (Buffer.compare(ids.subarray(i - 16, i), ids.subarray(i, i + 16)) >= 0) {
      const [before, after] = [ids.subarray(i - 16, i).toString('hex'), ids.subarray(i, i + 16).toString('hex')]
      assert.fail(`${label}: id ${i / 16}, ${after}, is not above the one before, ${before}`)
    }
  }
}

/** How many 16-byte ids of the Buffers `lists` appear more than once. */
function duplicates(lists) {
  const seen = new Set()
  let count = 0
  for (const ids of lists) {
    for (let i = 0; i < ids.length; i += 16) {
      const key = ids.toString('latin1', i, i + 16)
      if (seen.has(key)) count++
      seen.add(key)
    }
  }
  return count
}

/**
 * Runs wide-child.js with `job` (JSON) and `env` added; resolves to its exit code, stdout and
 * stderr.
 */
async function runChild(job, env = {}) {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(job)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  // 'close', not 'exit': at exit the pipes may still hold output (Node's docs say so), which
  // 'close' waits for.
  const [code, signal] = await once(child, 'close')
  return { code, signal, stdout, stderr }
}

/** runChild, failing unless it exits 0; resolves to its stdout parsed as JSON. */
async function childResult(assert, job, env) {
  const { code, signal, stdout, stderr } = await runChild(job, env)
  assert.equal(code, 0, `${job.mode} child: exit ${code ?? signal}\n${stderr}`)
  return JSON.parse(stdout)
}

/**
 * `processes` children of wide-child.js's `take`, started together in `dir` (their
 * FLAKE_IDGEN_STATE_DIR, unless `envDir` says another): each takes `count` ids of `kind` from the
 * same moment on; every `lockEvery`-th one (0: none) is taken holding a lock the children share,
 * and logged under it, so the log is in issue order across processes. Resolves to { lists: each child's ids in its issue order (a
 * Buffer, or for form 'string' an array of strings), log: [{ child, index, id }] in lock order }.
 */
async function race(
  assert,
  { dir, processes, count, kind = 'uuid', options = null, lockEvery = 0, form = 'bytes', envDir = dir },
) {
  // Late enough for every child to be up and spinning: they start issuing together.
  const startAt = Date.now() + 1500
  const outs = Array.from({ length: processes }, (_, i) => path.join(dir, `ids-${i}`))
  const logFile = path.join(dir, 'lock-log')
  const jobs = outs.map((out, child) =>
    runChild(
      { mode: 'take', kind, options, count, startAt, out, child, form, lockEvery, lockDir: dir, logFile },
      { FLAKE_IDGEN_STATE_DIR: envDir },
    ),
  )
  for (const [i, { code, signal, stderr }] of (await Promise.all(jobs)).entries()) {
    assert.equal(code, 0, `child ${i}: exit ${code ?? signal}\n${stderr}`)
  }
  const lists = outs.map((out) =>
    form === 'string' ? fs.readFileSync(out, 'latin1').split('\n').slice(0, -1) : fs.readFileSync(out),
  )
  const log = lockEvery
    ? fs
        .readFileSync(logFile, 'latin1')
        .split('\n')
        .slice(0, -1)
        .map((line) => {
          const [child, index, id] = line.split(' ')
          return { child: Number(child), index: Number(index), id }
        })
    : []
  return { lists, log }
}

/**
 * The lock's log is a timeline across processes: each entry's id must be the one its child
 * recorded at that index, and each must be above the entry before (taken after it was issued).
 */
function assertLogOrdered(assert, lists, log, idHex = hexAt) {
  assert.ok(log.length > 0, 'nothing was taken under the lock')
  const owners = new Set()
  for (const [k, { child, index, id }] of log.entries()) {
    owners.add(child)
    assert.equal(id, idHex(lists[child], index), `log entry ${k}: not child ${child}'s id ${index}`)
    if (k > 0 && log[k - 1].id >= id) {
      assert.fail(`log entry ${k}: child ${child}'s ${id} not above child ${log[k - 1].child}'s ${log[k - 1].id}`)
    }
  }
  assert.equal(owners.size, lists.length, 'some child took nothing under the lock')
}

module.exports = {
  BASE62,
  MAX128,
  COUNTER_BITS,
  RANDOM_BITS,
  bigIntOf,
  bytesOf,
  toBase62,
  fromBase62,
  uuidFields,
  uuidBytes,
  flakeFields,
  hexAt,
  assertRefused,
  assertIncreasing,
  duplicates,
  runChild,
  childResult,
  race,
  assertLogOrdered,
}

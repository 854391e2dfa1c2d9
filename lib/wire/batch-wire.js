'use strict'

// The wire between a member (generator.batchHandler) and a client (flake-idgen-rs/client): the
// one module that knows it, required by both sides. Pure JS with no binding, as the client must
// load no native code.
//
// A batch is sent as the ranges of its ids, not the ids: in the 42/5/5/12 layout the node id sits
// between time and sequence, so a batch that crosses a millisecond is not one run of integers,
// but it is one (time, first sequence, count) range per millisecond. 100,000 ids are ~25 ranges,
// 424 bytes instead of 800,000.
//
// Version 1, big-endian:
//   0  u8   version (1)
//   1  u8   order: 0 node-sequence (node bits above sequence bits), 1 sequence-node
//   2  u8   timeBits       3  u8  nodeBits       4  u8  sequenceBits       5  u8  0
//   6  u16  timeUnitMs
//   8  u64  epoch, ms since 1970
//   16 u32  node id
//   20 u32  ranges, R
//   24 R × { u64 time (units since the epoch), u32 first sequence, u32 count }

// The global Buffer, which only the member's side (encode, toJSON: Node) uses: the client's
// side (decode, writeIds) runs in edge runtimes too, which have no node:buffer to require.
const { Buffer } = globalThis
const codedError = require('../errors/coded-error.js')

const VERSION = 1
const HEADER = 24
const RANGE = 16
/** The binary batch's media type; `application/json` gets the same batch as JSON, for curl. */
const MEDIA_TYPE = 'application/vnd.flake-idgen.batch'
const ORDERS = ['node-sequence', 'sequence-node']
const TWO_32 = 2 ** 32

/**
 * The most bytes an answer to a request of `count` ids may take: one range per id, a batch whose
 * every id is of another time unit. A client reads no more (a member is not trusted with its
 * memory).
 */
const maxBytes = (count) => HEADER + RANGE * count

/** A batch's answer that is not one: the client fails over from the member that sent it. */
const badBatch = (why) => codedError(Error, 'ERR_FLAKE_BAD_BATCH', `a member's answer is not a batch: ${why}`)

// A member's runs, as the native side takes them (issueRuns, src/js/generator/batches.rs): a
// header of the node id and the runs' count (u32 each), then each run as a range is sent.
const RUNS_HEADER = 8

/**
 * Adds the runs a member just took (`runs`, a Uint8Array in issueRuns' form) to `batch` ({ node,
 * ranges, count }: node -1 before the first), the first merged into the last range where it goes
 * on from it. Adds nothing and returns false for runs of another node id than the batch's (a
 * leased generator that took a new id: its ids are never sent under the first's).
 */
function addRuns(batch, runs) {
  const view = new DataView(runs.buffer, runs.byteOffset, runs.byteLength)
  const node = view.getUint32(0)
  if (batch.node === -1) batch.node = node
  else if (node !== batch.node) return false
  const total = view.getUint32(4)
  for (let offset = RUNS_HEADER; offset < RUNS_HEADER + RANGE * total; offset += RANGE) {
    const time = view.getUint32(offset) * TWO_32 + view.getUint32(offset + 4)
    const first = view.getUint32(offset + 8)
    const count = view.getUint32(offset + 12)
    const last = batch.ranges.at(-1)
    if (last !== undefined && last[0] === time && last[1] + last[2] === first) last[2] += count
    else batch.ranges.push([time, first, count])
    batch.count += count
  }
  return true
}

/** The wire's layout fields of a resolved layout (generator.layout), with the epoch in force. */
function layoutOf(layout) {
  const { timeBits, timeUnitMs, nodeBits, sequenceBits, order, epoch } = layout
  return { timeBits, timeUnitMs, nodeBits, sequenceBits, order, epoch }
}

/** `batch` ({ layout, node, ranges }) as version 1's bytes. */
function encode({ layout, node, ranges }) {
  const bytes = Buffer.alloc(HEADER + RANGE * ranges.length)
  bytes.writeUInt8(VERSION, 0)
  bytes.writeUInt8(ORDERS.indexOf(layout.order), 1)
  bytes.writeUInt8(layout.timeBits, 2)
  bytes.writeUInt8(layout.nodeBits, 3)
  bytes.writeUInt8(layout.sequenceBits, 4)
  bytes.writeUInt16BE(layout.timeUnitMs, 6)
  bytes.writeBigUInt64BE(BigInt(layout.epoch), 8)
  bytes.writeUInt32BE(node, 16)
  bytes.writeUInt32BE(ranges.length, 20)
  let offset = HEADER
  for (const [time, first, count] of ranges) {
    bytes.writeUInt32BE(Math.floor(time / TWO_32), offset)
    bytes.writeUInt32BE(time % TWO_32, offset + 4)
    bytes.writeUInt32BE(first, offset + 8)
    bytes.writeUInt32BE(count, offset + 12)
    offset += RANGE
  }
  return bytes
}

/**
 * The batch in `bytes` (a Uint8Array of version 1), every field checked: a member of another
 * version, or bytes cut short or garbled, are an ERR_FLAKE_BAD_BATCH, never ids.
 */
function decode(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes.byteLength < HEADER) throw badBatch(`${bytes.byteLength} bytes, fewer than its header's ${HEADER}`)
  const version = view.getUint8(0)
  if (version !== VERSION) throw badBatch(`wire version ${version}, this client reads version ${VERSION}`)
  const order = ORDERS[view.getUint8(1)]
  const timeBits = view.getUint8(2)
  const nodeBits = view.getUint8(3)
  const sequenceBits = view.getUint8(4)
  const timeUnitMs = view.getUint16(6)
  const epoch = Number(view.getBigUint64(8))
  const node = view.getUint32(16)
  const count = view.getUint32(20)
  const bits = timeBits + nodeBits + sequenceBits
  if (order === undefined || nodeBits > 16 || sequenceBits < 1 || sequenceBits > 16 || (bits !== 63 && bits !== 64))
    throw badBatch(`layout ${timeBits}/${nodeBits}/${sequenceBits} (order ${view.getUint8(1)}) is not one`)
  if (timeUnitMs < 1 || timeUnitMs > 1000 || !Number.isSafeInteger(epoch)) throw badBatch('its time unit or epoch')
  if (node >= 2 ** nodeBits) throw badBatch(`node id ${node} does not fit in ${nodeBits} bits`)
  if (count === 0 || bytes.byteLength !== HEADER + RANGE * count)
    throw badBatch(`${bytes.byteLength} bytes for ${count} ranges`)
  const ranges = []
  let previous = -1
  for (let offset = HEADER; offset < bytes.byteLength; offset += RANGE) {
    const time = view.getUint32(offset) * TWO_32 + view.getUint32(offset + 4)
    const first = view.getUint32(offset + 8)
    const size = view.getUint32(offset + 12)
    // Ascending and within the layout: a range that overlaps another would be a duplicate.
    const start = time * 2 ** sequenceBits + first
    if (time >= 2 ** timeBits || size === 0 || first + size > 2 ** sequenceBits || start <= previous)
      throw badBatch(`range (${time}, ${first}, ${size}) is not in the layout or not ascending`)
    previous = start + size - 1
    ranges.push([time, first, size])
  }
  return { layout: { timeBits, timeUnitMs, nodeBits, sequenceBits, order, epoch }, node, ranges }
}

/** How many ids `ranges` hold. */
const countOf = (ranges) => ranges.reduce((sum, range) => sum + range[2], 0)

/**
 * The ids of `batch` ({ layout, node, ranges }) written into `out` (8 bytes each, big-endian)
 * from byte `offset` on; returns the offset after them. Each range's first id is made with
 * BigInt, the rest stepped as two 32-bit words: a range's ids are a sequence's steps apart.
 */
function writeIds({ layout, node, ranges }, out, offset) {
  const { nodeBits, sequenceBits } = layout
  const low = BigInt(nodeBits + sequenceBits)
  const nodeFirst = layout.order === 'node-sequence'
  const step = nodeFirst ? 1 : 2 ** nodeBits
  // A DataView's writes: writeUInt32BE checks each offset (and value) first.
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength)
  let at = offset
  for (const [time, first, count] of ranges) {
    const fields = nodeFirst
      ? (BigInt(node) << BigInt(sequenceBits)) | BigInt(first)
      : (BigInt(first) << BigInt(nodeBits)) | BigInt(node)
    const id = (BigInt(time) << low) | fields
    let hi = Number(id >> 32n)
    let lo = Number(id & 0xffffffffn)
    for (let k = 0; k < count; k++) {
      view.setUint32(at, hi)
      view.setUint32(at + 4, lo)
      at += 8
      lo += step
      if (lo >= TWO_32) {
        lo -= TWO_32
        hi++
      }
    }
  }
  return at
}

/** `batch` as JSON's value, for curl: its layout, node id, ranges, and its ids as decimal strings. */
function toJSON(batch) {
  const ids = Buffer.allocUnsafe(countOf(batch.ranges) * 8)
  writeIds(batch, ids, 0)
  const strings = []
  for (let offset = 0; offset < ids.length; offset += 8) strings.push(ids.readBigUInt64BE(offset).toString())
  return { version: VERSION, layout: batch.layout, node: batch.node, ranges: batch.ranges, ids: strings }
}

module.exports = {
  MEDIA_TYPE,
  VERSION,
  RANGE,
  RUNS_HEADER,
  maxBytes,
  addRuns,
  layoutOf,
  encode,
  decode,
  countOf,
  writeIds,
  toJSON,
}

'use strict'
// State files as docs/host-scope.md documents them, built byte by byte: to plant a state ahead of the
// clock, or a damaged file, without going through the code under test.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { removeAtExit } = require('./remove-at-exit.js')

const HEADER = 4096
const WORDS = 1024
const LINE = 64
const LENGTH = HEADER + WORDS * LINE
const NOTHING_ISSUED = 2n ** 64n - 1n

/**
 * A state file whose words are `words` ({ id: bigint word }), the others unused; its header says
 * `epoch` (0, as every file this version writes: another one is a damaged file).
 */
function stateFile(words = {}, epoch = 0) {
  const bytes = Buffer.alloc(LENGTH)
  bytes.write('FLAKEIDS', 0, 'latin1')
  bytes.writeUInt32LE(1, 8)
  bytes.writeUInt32LE(HEADER, 12)
  bytes.writeBigUInt64LE(BigInt(epoch), 16)
  bytes.writeUInt32LE(WORDS, 24)
  bytes.writeUInt32LE(LINE, 28)
  for (let id = 0; id < WORDS; id++) writeWord(bytes, id, words[id] ?? NOTHING_ISSUED)
  return bytes
}

const wordOffset = (id) => HEADER + id * LINE

function writeWord(bytes, id, word) {
  if (os.endianness() === 'LE') bytes.writeBigUInt64LE(word, wordOffset(id))
  else bytes.writeBigUInt64BE(word, wordOffset(id))
}

function readWord(bytes, id) {
  return os.endianness() === 'LE' ? bytes.readBigUInt64LE(wordOffset(id)) : bytes.readBigUInt64BE(wordOffset(id))
}

/** The state word of a last id at `delta` ms after the epoch, sequence `sequence`, no lead. */
const word = (delta, sequence = 0) => (BigInt(delta) << 22n) | BigInt(sequence)

/** The id a state word says was issued last by generator `id`, or undefined. */
function lastId(stateWord, id) {
  if (stateWord === NOTHING_ISSUED) return undefined
  return ((stateWord >> 22n) << 22n) | (BigInt(id) << 12n) | (stateWord & 0xfffn)
}

/** A fresh directory (0700) for state files, removed when the test process exits. */
function stateDir(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `flake-idgen-${name}-`))
  fs.chmodSync(dir, 0o700)
  removeAtExit(dir)
  return dir
}

/** Writes `bytes` as the state file of `dir` (or as `name` beside it), mode 0600. */
function plant(dir, bytes, name = 'epoch-0.state') {
  const file = path.join(dir, name)
  fs.writeFileSync(file, bytes, { mode: 0o600 })
  return file
}

module.exports = { LENGTH, stateFile, readWord, writeWord, word, lastId, stateDir, plant }

#!/usr/bin/env node
'use strict'
// Checks a macOS binary built here, where nothing can load it: a 64-bit Mach-O dylib of the
// architecture asked for, exporting napi_register_module_v1 (Node's entry point of an addon), and
// asking for no newer macOS than the one given.
//
//   node .ci/check-macho.js FILE x86_64|arm64 MIN_MACOS   e.g. ... darwin-x64.node x86_64 10.13

const fs = require('node:fs')

const CPU = { x86_64: 0x01000007, arm64: 0x0100000c }
const MH_MAGIC_64 = 0xfeedfacf
const MH_DYLIB = 6
const LC_BUILD_VERSION = 0x32
const LC_VERSION_MIN_MACOSX = 0x24
const LC_DYLD_INFO_ONLY = 0x80000022
const LC_DYLD_EXPORTS_TRIE = 0x80000033
const PLATFORM_MACOS = 1
const ENTRY = '_napi_register_module_v1'

/** A version as Mach-O packs it (xxxx.yy.zz in nibbles), as text. */
const unpack = (v) => `${v >>> 16}.${(v >> 8) & 0xff}${v & 0xff ? `.${v & 0xff}` : ''}`
const pack = (text) => {
  const [major, minor = 0, patch = 0] = text.split('.').map(Number)
  return ((major << 16) | (minor << 8) | patch) >>> 0
}

/** An unsigned LEB128 at `at`: [value, offset after it]. */
function uleb(bytes, at) {
  let value = 0
  let shift = 0
  for (;;) {
    const byte = bytes[at++]
    value += (byte & 0x7f) * 2 ** shift
    shift += 7
    if (byte < 0x80) return [value, at]
  }
}

/** Every name the export trie at `bytes` exports. */
function exportedNames(bytes) {
  const names = []
  const walk = (at, prefix) => {
    const [terminal, edges] = uleb(bytes, at)
    if (terminal > 0) names.push(prefix)
    let cursor = edges + terminal
    const count = bytes[cursor++]
    for (let i = 0; i < count; i++) {
      const end = bytes.indexOf(0, cursor)
      const label = bytes.toString('latin1', cursor, end)
      const [child, next] = uleb(bytes, end + 1)
      cursor = next
      walk(child, prefix + label)
    }
  }
  if (bytes.length > 0) walk(0, '')
  return names
}

function check(file, arch, minMacos) {
  const bytes = fs.readFileSync(file)
  const problems = []
  if (bytes.readUInt32LE(0) !== MH_MAGIC_64) return [`${file} is not a 64-bit Mach-O file`]
  if (bytes.readUInt32LE(4) !== CPU[arch]) problems.push(`its CPU type is ${bytes.readUInt32LE(4)}, not ${arch}'s`)
  if (bytes.readUInt32LE(12) !== MH_DYLIB) problems.push(`its file type is ${bytes.readUInt32LE(12)}, not a dylib`)
  const commands = bytes.readUInt32LE(16)
  let at = 32
  let minos
  let exports = []
  for (let i = 0; i < commands; i++) {
    const cmd = bytes.readUInt32LE(at)
    const size = bytes.readUInt32LE(at + 4)
    if (cmd === LC_BUILD_VERSION && bytes.readUInt32LE(at + 8) === PLATFORM_MACOS) minos = bytes.readUInt32LE(at + 12)
    if (cmd === LC_VERSION_MIN_MACOSX) minos = bytes.readUInt32LE(at + 8)
    if (cmd === LC_DYLD_EXPORTS_TRIE) {
      const offset = bytes.readUInt32LE(at + 8)
      exports = exportedNames(bytes.subarray(offset, offset + bytes.readUInt32LE(at + 12)))
    }
    if (cmd === LC_DYLD_INFO_ONLY) {
      const offset = bytes.readUInt32LE(at + 40)
      exports = exportedNames(bytes.subarray(offset, offset + bytes.readUInt32LE(at + 44)))
    }
    at += size
  }
  if (!exports.includes(ENTRY)) problems.push(`it does not export ${ENTRY} (exports: ${exports.join(', ') || 'none'})`)
  if (minos === undefined) problems.push('it names no minimum macOS')
  else if (minos > pack(minMacos)) problems.push(`it asks for macOS ${unpack(minos)}, newer than ${minMacos}`)
  if (problems.length === 0)
    console.log(`${file}: Mach-O ${arch} dylib, exports ${ENTRY}, minimum macOS ${unpack(minos)}`)
  return problems
}

if (require.main === module) {
  const [file, arch, minMacos] = process.argv.slice(2)
  if (!file || !CPU[arch] || !/^\d+(\.\d+){0,2}$/.test(minMacos ?? '')) {
    console.error('usage: node .ci/check-macho.js FILE x86_64|arm64 MIN_MACOS')
    process.exit(2)
  }
  const problems = check(file, arch, minMacos)
  for (const problem of problems) console.error(`${file}: ${problem}`)
  process.exitCode = problems.length > 0 ? 1 : 0
}

module.exports = { check }

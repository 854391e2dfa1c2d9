'use strict'

// `flake-idgen decompose [ID...]`: the parts of each id, as one JSON object per line.

const { createInterface } = require('node:readline')
const FlakeId = require('../flake-id.js')
const { readEpoch, readLayout } = require('./args.js')
const { UsageError, withFlags } = require('./command-errors.js')
const { write } = require('./output.js')

/** Prints the parts of each of `ids`, or of each line of stdin when there are none. */
async function decompose(values, ids) {
  const options = { layout: readLayout(values.layout), epoch: readEpoch(values.epoch) }
  // A bad --layout or --epoch is the flag's fault, not the first id's.
  withFlags(() => FlakeId.decompose(0n, options))
  const parts = (text, where) => {
    try {
      return JSON.stringify(FlakeId.decompose(text, options))
    } catch (error) {
      if (error instanceof TypeError || error instanceof RangeError) throw new UsageError(`${where}${error.message}`)
      throw error
    }
  }
  if (ids.length > 0) {
    // All checked before any is printed: a bad argument prints nothing but its reason.
    await write(`${ids.map((id) => parts(id, '')).join('\n')}\n`)
    return
  }
  let number = 0
  for await (const text of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    number++
    if (text.trim() !== '') await write(`${parts(text, `line ${number}: `)}\n`)
  }
}

module.exports = decompose

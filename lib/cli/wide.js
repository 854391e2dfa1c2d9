'use strict'

// The command of each 128-bit kind: its new ids, one per line, from the state `--scope` and
// `--state-dir` say, of the worker id `--worker` or `--interface` gives when its ids carry one.
// What differs between kinds is the kind's row (`binding.kinds()`) and the command's row in
// bin/flake-idgen.js's COMMANDS: which kind, how a generator of it is made, what `--format`
// calls the kind's own text, and the other forms it prints.

const binding = require('../binding/load-binding.js')
const { describe } = require('../errors/errors.js')
const { readCount, readStateDir } = require('./args.js')
const { UsageError, CommandError, withFlags } = require('./command-errors.js')
const { writeIds } = require('./output.js')

/** A line of a batch's id at `offset` in hex, 0x-prefixed as the 64-bit ids' hex and as `decompose` reads it (and `BigInt()` too). */
const hexLine = (ids, offset) => `0x${ids.toString('hex', offset, offset + 16)}`

/**
 * How each line of `command` writes the id at `offset` of a batch, as `format` (its `--format`)
 * says: the kind's own text (by default, and as `command.text` names it), or one of the row's
 * `formats`: hex, or a form of lib/formats/formats.js's rows that 128-bit ids are written in.
 */
function lineOf(command, format) {
  if (format === undefined || format === command.text) return (ids, offset) => binding.idText(command.kind, ids, offset)
  if (!command.formats.includes(format)) {
    const names = [command.text, ...command.formats]
    throw new UsageError(
      `--format must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, got ${describe(format)}`,
    )
  }
  if (format === 'hex') return hexLine
  return (ids, offset) => binding.idText(command.kind, ids, offset, format)
}

/**
 * `--worker`'s value as the `worker` option takes it: digits (decimal, or hex after 0x) are a
 * number, as a bigint for the library to check; anything else is passed as it is, for the
 * library to read as a MAC address or refuse.
 */
const readWorker = (text) => (/^(?:[0-9]+|0x[0-9a-f]+)$/i.test(text) ? BigInt(text) : text)

/** What `--worker` takes, for a kind whose largest worker id is `maxWorker`. */
const workerExpected = (maxWorker) =>
  `an integer from 0 to 2^${Math.log2(maxWorker + 1)}-1 (decimal, or 0x and hex digits) or a MAC address such as aa:bb:cc:dd:ee:ff`

/** The batches of the generator `options` describe; a refusal names its flag, and the worker id as typed. */
function batchesOf(command, options, values) {
  try {
    return command.make(options)
  } catch (error) {
    // The library's words for a worker id are a program's (a number, a bigint): here, the flag's.
    if (error?.code === 'ERR_FLAKE_INVALID_OPTION' && error.message.startsWith('option `worker`')) {
      const expected = workerExpected(binding.describeKind(command.kind).maxWorker)
      throw new UsageError(`--worker must be ${expected}, got ${describe(values.worker)}`)
    }
    if (error?.code === 'ERR_FLAKE_NO_MAC_ADDRESS')
      throw new CommandError(
        'no network interface has a MAC address to be the worker id: give one with --worker W or --interface NAME',
      )
    return withFlags(() => {
      throw error
    })
  }
}

/** Prints `--count` new ids of `command`'s kind (its row in bin/flake-idgen.js's COMMANDS). */
async function printWide(command, values) {
  const count = readCount(values.count)
  const line = lineOf(command, values.format)
  if (values.worker !== undefined && values.interface !== undefined)
    throw new UsageError(`${command.name} takes --worker or --interface, not both`)
  const options = {}
  if (values.worker !== undefined) options.worker = readWorker(values.worker)
  if (values.interface !== undefined) options.interface = values.interface
  if (values.scope !== undefined) options.scope = values.scope
  if (values['state-dir'] !== undefined) options.stateDir = readStateDir(values['state-dir'])
  // The library checks the options, at once or at the first id: a bad one names its flag.
  const batch = batchesOf(command, options, values)
  await writeIds(count, 16, (n) => withFlags(() => batch(n)), line)
}

module.exports = printWide

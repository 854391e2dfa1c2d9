'use strict'

// `flake-idgen flake128`: new 128-bit flake ids (Boundary's: ms | 48-bit worker | sequence), one per line.

const Flake128 = require('../kinds/flake128.js')
const { describe } = require('../errors/errors.js')
const { readCount, readStateDir } = require('./args.js')
const { UsageError, CommandError, withFlags } = require('./command-errors.js')
const { writeIds } = require('./output.js')

// Each format: the id at `offset` of a batch as its line. Hex is 0x-prefixed, as the 64-bit ids'
// hex and as `decompose` reads it (and `BigInt()` too).
const FORMATS = {
  base62: (ids, offset) => Flake128.toBase62(ids.subarray(offset, offset + 16)),
  hex: (ids, offset) => `0x${ids.toString('hex', offset, offset + 16)}`,
}

/**
 * `--worker`'s value as the `worker` option takes it: digits (decimal, or hex after 0x) are a
 * number, as a bigint for the library to check; anything else is passed as it is, for the
 * library to read as a MAC address or refuse.
 */
const readWorker = (text) => (/^(?:[0-9]+|0x[0-9a-f]+)$/i.test(text) ? BigInt(text) : text)

const WORKER_EXPECTED =
  'an integer from 0 to 2^48-1 (decimal, or 0x and hex digits) or a MAC address such as aa:bb:cc:dd:ee:ff'

/** The generator `options` describe; a refusal names its flag, and the worker id as typed. */
function generatorOf(options, values) {
  try {
    return new Flake128(options)
  } catch (error) {
    // The library's words for a worker id are a program's (a number, a bigint): here, the flag's.
    if (error?.code === 'ERR_FLAKE_INVALID_OPTION' && error.message.startsWith('option `worker`'))
      throw new UsageError(`--worker must be ${WORKER_EXPECTED}, got ${describe(values.worker)}`)
    if (error?.code === 'ERR_FLAKE_NO_MAC_ADDRESS')
      throw new CommandError(
        'no network interface has a MAC address to be the worker id: give one with --worker W or --interface NAME',
      )
    return withFlags(() => {
      throw error
    })
  }
}

/** Prints `--count` new Flake128 ids in `--format`, of the worker id `--worker` or `--interface` gives. */
async function printFlakes(values) {
  const count = readCount(values.count)
  const format = values.format ?? 'base62'
  if (!Object.hasOwn(FORMATS, format)) throw new UsageError(`--format must be base62 or hex, got ${describe(format)}`)
  if (values.worker !== undefined && values.interface !== undefined)
    throw new UsageError('flake128 takes --worker or --interface, not both')
  const options = {}
  if (values.worker !== undefined) options.worker = readWorker(values.worker)
  if (values.interface !== undefined) options.interface = values.interface
  if (values.scope !== undefined) options.scope = values.scope
  if (values['state-dir'] !== undefined) options.stateDir = readStateDir(values['state-dir'])
  const generator = generatorOf(options, values)
  const line = FORMATS[format]
  await writeIds(
    count,
    16,
    (n) => withFlags(() => generator.nextBatch(n)),
    (ids, offset) => line(ids, offset),
  )
}

module.exports = printFlakes

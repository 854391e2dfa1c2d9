#!/usr/bin/env node
'use strict'

const { parseArgs } = require('node:util')
const { createInterface } = require('node:readline')
const path = require('node:path')
const FlakeId = require('..')
const native = require('../native.js')

const USAGE = `Usage:
  flake-idgen [options]                print new ids, one per line
  flake-idgen decompose [ID...]        print the parts of each ID (or of each line of stdin)
                                       as one JSON object per line
  flake-idgen state [--state-dir D]    list the host's state files: generator id, epoch and
                                       the time of the last id each issued
  flake-idgen state --reset ID [--epoch TIME] [--state-dir D]
                                       forget generator ID's state (in every epoch's file, or
                                       in TIME's); refused while a process has the file open

Options:
  -n, --count N        how many ids to print (default 1)
  --format FORMAT      dec (default), hex (0x-prefixed), base64, or json (one array of
                       decimal strings)
  --id N               generator id, 0-1023 (instead of --datacenter and --worker)
  --datacenter N       datacenter id, 0-31 (default 0)
  --worker N           worker id, 0-31 (default 0)
  --epoch TIME         ms since 1970, or a date such as 2020-01-01 (default 0); decompose
                       adds it back
  --scope SCOPE        host (default: unique across the host's processes) or process
  --state-dir D        the state directory (default: $FLAKE_IDGEN_STATE_DIR, else
                       $XDG_RUNTIME_DIR/flake-idgen, else flake-idgen-<uid> in the temp dir)
  -h, --help           show this help

Bad arguments exit with status 2 and the reason on stderr.`

const OPTIONS = {
  count: { type: 'string', short: 'n' },
  format: { type: 'string' },
  id: { type: 'string' },
  datacenter: { type: 'string' },
  worker: { type: 'string' },
  epoch: { type: 'string' },
  scope: { type: 'string' },
  'state-dir': { type: 'string' },
  reset: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
}

const FORMATS = {
  dec: (ids, offset) => ids.readBigUInt64BE(offset).toString(),
  hex: (ids, offset) => `0x${ids.toString('hex', offset, offset + 8)}`,
  base64: (ids, offset) => ids.toString('base64', offset, offset + 8),
  json: (ids, offset) => `"${ids.readBigUInt64BE(offset)}"`,
}

// Enough ids per write to keep the pipe busy, few enough to keep memory flat for any count.
const CHUNK = 65_536

/** A bad argument: status 2 and one line on stderr. */
class Usage extends Error {}
/** Something the command could not do (a reset refused, a file unreadable): status 1, no stack. */
class Failure extends Error {}

function main(argv) {
  let parsed
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    throw new Usage(error.message)
  }
  const { values, positionals } = parsed
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const epoch = values.epoch === undefined ? undefined : readEpoch(values.epoch)
  if (positionals[0] === 'state') {
    for (const name of ['count', 'format', 'id', 'datacenter', 'worker', 'scope']) {
      if (values[name] !== undefined) throw new Usage(`--${name} does not apply to state`)
    }
    if (positionals.length > 1) throw new Usage(`state takes no arguments, got '${positionals[1]}'`)
    if (epoch !== undefined && values.reset === undefined) throw new Usage('--epoch applies to state --reset only')
    return state(values['state-dir'] ?? native.defaultStateDir(), values.reset, epoch)
  }
  if (values.reset !== undefined) throw new Usage('--reset applies to state only')
  if (positionals[0] === 'decompose') {
    for (const name of ['count', 'format', 'id', 'datacenter', 'worker', 'scope', 'state-dir']) {
      if (values[name] !== undefined) throw new Usage(`--${name} does not apply to decompose`)
    }
    return decompose(positionals.slice(1), { epoch })
  }
  if (positionals.length > 0) throw new Usage(`unknown command '${positionals[0]}' (see --help)`)
  const count = values.count === undefined ? 1 : readCount(values.count)
  const format = values.format ?? 'dec'
  if (!Object.hasOwn(FORMATS, format)) throw new Usage(`--format must be dec, hex, base64 or json, got '${format}'`)
  const generator = construct({
    id: values.id,
    datacenter: values.datacenter,
    worker: values.worker,
    epoch,
    scope: values.scope,
    stateDir: values['state-dir'],
  })
  return print(generator, count, format)
}

function readCount(text) {
  const count = /^[0-9]+$/.test(text) ? Number(text) : NaN
  if (!(count >= 1 && count <= Number.MAX_SAFE_INTEGER)) throw new Usage(`--count must be a positive integer, got '${text}'`)
  return count
}

/** Digits are ms since 1970; anything else must be a date `Date.parse` reads. */
function readEpoch(text) {
  if (/^\s*[0-9]+\s*$/.test(text)) return text
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) throw new Usage(`--epoch must be ms since 1970 or a date, got '${text}'`)
  return new Date(ms)
}

function construct(options) {
  try {
    return new FlakeId(options)
  } catch (error) {
    const flag = (option) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
    if (error.code === 'ERR_FLAKE_INVALID_OPTION') throw new Usage(error.message.replace(/^option `(\w+)`/, (_, option) => flag(option)))
    throw error
  }
}

async function print(generator, count, format) {
  const line = FORMATS[format]
  const json = format === 'json'
  let out = json ? '[' : ''
  for (let left = count; left > 0; ) {
    const size = Math.min(left, CHUNK)
    const ids = generator.nextBatch(size)
    left -= size
    const lines = []
    for (let offset = 0; offset < ids.length; offset += 8) lines.push(line(ids, offset))
    out += json ? lines.join(',') + (left > 0 ? ',' : ']\n') : lines.join('\n') + '\n'
    await write(out)
    out = ''
  }
}

/** Lists the state files of `dir`, or resets generator `reset`'s state in them. */
async function state(dir, reset, epoch) {
  if (!path.isAbsolute(dir)) throw new Usage(`--state-dir must be an absolute path, got '${dir}'`)
  if (reset !== undefined) {
    if (!/^[0-9]+$/.test(reset) || Number(reset) > 1023) throw new Usage(`--reset must be a generator id from 0 to 1023, got '${reset}'`)
    const done = native.resetState(dir, Number(reset), epoch === undefined ? undefined : Number(epoch))
    if (done.length === 0) throw new Failure(`generator ${reset} has no state in ${dir}${epoch === undefined ? '' : ` for epoch ${Number(epoch)}`}`)
    const lines = done.map((file) => `${file.removed ? 'removed' : 'reset generator ' + reset + ' in'} ${file.path}`)
    return write(lines.join('\n') + '\n')
  }
  const files = native.stateFiles(dir)
  const rows = [['id', 'epoch', 'last id issued at', 'sequence', 'file']]
  const problems = []
  for (const file of files) {
    if (file.error !== undefined) problems.push(`${file.error} [${file.code}]`)
    for (const entry of file.entries) {
      rows.push([String(entry.id), epochText(file.epoch), new Date(entry.time).toISOString(), String(entry.sequence), path.basename(file.path)])
    }
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  const table = rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd())
  await write(`state directory: ${dir}\n${rows.length > 1 ? table.join('\n') : '(no state)'}\n`)
  if (problems.length > 0) throw new Failure(problems.join('\n'))
}

const epochText = (epoch) => (epoch === 0 ? '0' : `${epoch} (${new Date(epoch).toISOString()})`)

async function decompose(ids, options) {
  const parts = (text, where) => {
    try {
      return JSON.stringify(FlakeId.decompose(text, options))
    } catch (error) {
      if (error instanceof TypeError || error instanceof RangeError) throw new Usage(`${where}${error.message}`)
      throw error
    }
  }
  if (ids.length > 0) {
    // All checked before any is printed: a bad argument prints nothing but its reason.
    await write(ids.map((id) => parts(id, '')).join('\n') + '\n')
    return
  }
  let number = 0
  for await (const text of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    number++
    if (text.trim() !== '') await write(parts(text, `line ${number}: `) + '\n')
  }
}

/** Writes to stdout, waiting while the pipe is full. */
function write(text) {
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve()
    else process.stdout.once('drain', resolve)
  })
}

// `flake-idgen -n 1000000 | head`: a closed pipe ends the job, it is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

Promise.resolve()
  .then(() => main(process.argv.slice(2)))
  .catch((error) => {
    const plain = error instanceof Usage || error instanceof Failure || /^ERR_FLAKE_STATE/.test(error.code)
    process.stderr.write(`flake-idgen: ${plain ? error.message : error.stack}\n`)
    process.exitCode = error instanceof Usage ? 2 : 1
  })

#!/usr/bin/env node
'use strict'

const { createInterface } = require('node:readline')
const path = require('node:path')
const FlakeId = require('..')
const native = require('../lib/load-binding.js')

const USAGE = `Usage:
  flake-idgen [options]                print new ids, one per line
  flake-idgen decompose [ID...]        print the parts of each ID (or of each line of stdin)
                                       as one JSON object per line
  flake-idgen state [--state-dir D]    list the host's state files: generator id, epoch and
                                       the time of the last id each issued
  flake-idgen state --reset ID [--epoch TIME] [--state-dir D]
                                       forget generator ID's state (in every epoch's file, or
                                       in TIME's); refused while a process has the file open
  flake-idgen lease list (--redis URL | --postgres URL) --namespace N
                                       list namespace N's leases of generator ids: holder,
                                       expiry and ceiling of each, with ioredis (else redis)
                                       or pg from the current directory's project

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
  --redis URL          lease list: a redis:// or rediss:// URL
  --postgres URL       lease list: a postgres:// or postgresql:// URL
  --namespace N        lease list: the namespace, as FlakeId.lease takes it
  -h, --help           show this help

Bad arguments exit with status 2 and the reason on stderr.`

// Each option: whether it takes a value. Short forms: SHORT.
const OPTIONS = {
  count: true,
  format: true,
  id: true,
  datacenter: true,
  worker: true,
  epoch: true,
  scope: true,
  'state-dir': true,
  reset: true,
  redis: true,
  postgres: true,
  namespace: true,
  help: false,
}
const SHORT = { n: 'count', h: 'help' }
const LEASE_OPTIONS = ['redis', 'postgres', 'namespace']

// Each store's URL schemes, and the clients that may serve it, in order of preference. None is
// a dependency of this package: they are loaded from the user's project.
const STORES = {
  redis: { schemes: ['redis:', 'rediss:'], clients: ['ioredis', 'redis'] },
  postgres: { schemes: ['postgres:', 'postgresql:'], clients: ['pg'] },
}

// Without it, an address that drops packets would hold the command for the client's default
// (ioredis: 10 s, pg: forever).
const CONNECT_TIMEOUT_MS = 5_000

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

/**
 * A value as messages show it: in double quotes, cut to 40 characters and "…" (as the
 * library's own messages show strings), never more than one line.
 */
function quote(text) {
  const chars = Array.from(text)
  return chars.length > 40 ? `${JSON.stringify(chars.slice(0, 40).join('')).slice(0, -1)}…"` : JSON.stringify(text)
}

/**
 * Splits `argv` into option values and positionals, as getopt does: an option that takes a
 * value takes the next argument whatever it is (`-n -1` is a count of "-1", refused as such),
 * or the rest of its own (`--count=5`, `-n5`); `--` ends the options. Every problem is one
 * `Usage` line, in our words.
 */
function parse(argv) {
  const values = {}
  const positionals = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    let name
    let inline
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=')
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
      inline = eq === -1 ? undefined : arg.slice(eq + 1)
      if (!Object.hasOwn(OPTIONS, name)) throw new Usage(`unknown option ${quote(eq === -1 ? arg : arg.slice(0, eq))} (see --help)`)
    } else if (arg.startsWith('-') && arg.length > 1) {
      name = SHORT[arg[1]]
      if (name === undefined) throw new Usage(`unknown option ${quote(arg.slice(0, 2))} (see --help)`)
      if (arg.length > 2) inline = arg.slice(arg[2] === '=' ? 3 : 2)
    } else {
      positionals.push(arg)
      continue
    }
    const flag = `--${name}`
    if (Object.hasOwn(values, name)) throw new Usage(`${flag} is given more than once`)
    if (!OPTIONS[name]) {
      if (inline !== undefined) throw new Usage(`${flag} takes no value, got ${quote(inline)}`)
      values[name] = true
    } else if (inline !== undefined) {
      values[name] = inline
    } else if (i + 1 < argv.length) {
      values[name] = argv[++i]
    } else {
      throw new Usage(`${flag} needs a value (see --help)`)
    }
  }
  return { values, positionals }
}

function main(argv) {
  const { values, positionals } = parse(argv)
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (positionals[0] === 'lease') return lease(values, positionals.slice(1))
  for (const name of LEASE_OPTIONS) {
    if (values[name] !== undefined) throw new Usage(`--${name} applies to lease list only`)
  }
  const epoch = values.epoch === undefined ? undefined : readEpoch(values.epoch)
  if (positionals[0] === 'state') {
    for (const name of ['count', 'format', 'id', 'datacenter', 'worker', 'scope']) {
      if (values[name] !== undefined) throw new Usage(`--${name} does not apply to state`)
    }
    if (positionals.length > 1) throw new Usage(`state takes no arguments, got ${quote(positionals[1])}`)
    if (epoch !== undefined && values.reset === undefined) throw new Usage('--epoch applies to state --reset only')
    return state(values['state-dir'] ?? native.defaultStateDir(), values.reset, epoch)
  }
  if (values.reset !== undefined) throw new Usage('--reset applies to state only')
  if (positionals[0] === 'decompose') {
    for (const name of ['count', 'format', 'id', 'datacenter', 'worker', 'scope', 'state-dir']) {
      if (values[name] !== undefined) throw new Usage(`--${name} does not apply to decompose`)
    }
    // A bad --epoch is the flag's fault, not the first id's.
    options(() => FlakeId.decompose(0n, { epoch }))
    return decompose(positionals.slice(1), { epoch })
  }
  if (positionals.length > 0) throw new Usage(`unknown command ${quote(positionals[0])} (see --help)`)
  const count = values.count === undefined ? 1 : readCount(values.count)
  const format = values.format ?? 'dec'
  if (!Object.hasOwn(FORMATS, format)) throw new Usage(`--format must be dec, hex, base64 or json, got ${quote(format)}`)
  const generator = options(() => new FlakeId({
    id: values.id,
    datacenter: values.datacenter,
    worker: values.worker,
    epoch,
    scope: values.scope,
    stateDir: values['state-dir'],
  }))
  return print(generator, count, format)
}

function readCount(text) {
  const count = /^[0-9]+$/.test(text) ? Number(text) : NaN
  if (!(count >= 1 && count <= Number.MAX_SAFE_INTEGER)) throw new Usage(`--count must be a positive integer, got ${quote(text)}`)
  return count
}

/** Digits are ms since 1970; anything else must be a date `Date.parse` reads. */
function readEpoch(text) {
  if (/^\s*[0-9]+\s*$/.test(text)) return text
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) throw new Usage(`--epoch must be ms since 1970 or a date, got ${quote(text)}`)
  return new Date(ms)
}

/** Runs `fn`, a bad option in its error made a bad argument that names the flag. */
function options(fn) {
  try {
    return fn()
  } catch (error) {
    if (error.code !== 'ERR_FLAKE_INVALID_OPTION') throw error
    const flag = (option) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
    // The library writes JS string literals ('host'); here they are words, as the flags take them.
    const message = error.message.replace(/^option `(\w+)`/, (_, option) => flag(option)).replace(/'(host|process)'/g, '$1')
    throw new Usage(message)
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
  if (!path.isAbsolute(dir)) throw new Usage(`--state-dir must be an absolute path, got ${quote(dir)}`)
  if (reset !== undefined) {
    if (!/^[0-9]+$/.test(reset) || Number(reset) > 1023) throw new Usage(`--reset must be a generator id from 0 to 1023, got ${quote(reset)}`)
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
  await write(`state directory: ${dir}\n${rows.length > 1 ? table(rows) : '(no state)'}\n`)
  if (problems.length > 0) throw new Failure(problems.join('\n'))
}

/** Prints the lease records of a namespace in a Redis or PostgreSQL store. */
async function lease(values, args) {
  if (args.length === 0) throw new Usage('lease needs a command: list (see --help)')
  if (args[0] !== 'list') throw new Usage(`unknown lease command ${quote(args[0])} (see --help)`)
  if (args.length > 1) throw new Usage(`lease list takes no arguments, got ${quote(args[1])}`)
  for (const name of Object.keys(values)) {
    if (!LEASE_OPTIONS.includes(name)) throw new Usage(`--${name} does not apply to lease list`)
  }
  if ((values.redis === undefined) === (values.postgres === undefined)) {
    throw new Usage(values.redis === undefined ? 'lease list needs --redis URL or --postgres URL (see --help)' : 'lease list takes --redis or --postgres, not both')
  }
  const namespace = values.namespace
  if (namespace === undefined) throw new Usage('lease list needs --namespace N (see --help)')
  // As FlakeId.lease counts them.
  if (namespace.length === 0 || namespace.length > 200) throw new Usage(`--namespace must be 1 to 200 characters, got ${quote(namespace)}`)
  const flag = values.redis === undefined ? 'postgres' : 'redis'
  const { schemes, clients } = STORES[flag]
  let url = null
  try {
    url = new URL(values[flag])
  } catch {}
  if (url === null || !schemes.includes(url.protocol)) {
    const shown = url === null ? values[flag] : redact(url)
    throw new Usage(`--${flag} must be a ${schemes.map((scheme) => `${scheme}//`).join(' or ')} URL, got ${quote(shown)}`)
  }

  const name = clients.find((client) => resolve(client) !== null)
  if (name === undefined) {
    const which = clients.length > 1 ? `${clients.join(' or ')} installed in your project (npm install ${clients[0]}); neither was` : `${clients[0]} installed in your project (npm install ${clients[0]}); it was not`
    throw new Failure(`lease list --${flag} needs ${which} found from ${process.cwd()}`)
  }
  const client = connect(name, require(resolve(name)), values[flag])
  const where = `${redact(url)} (${name})`
  let listed
  try {
    try {
      await client.open()
    } catch (error) {
      throw new Failure(`cannot connect to ${where}: ${reason(error)}`)
    }
    try {
      listed = await require('../lib/lease/store.js').storeFor(client.client).list({ namespace })
    } catch (error) {
      throw new Failure(`cannot list the leases at ${where}: ${reason(error)}`)
    }
  } finally {
    await client.close()
  }

  const { now, meta, floor, records } = listed
  const marker = meta === null ? 'no marker (never leased, or the store lost it)' : `meta ${plain(meta)}, floor ${iso(floor)}`
  const rows = [['id', 'holder', 'expires', 'ceiling']]
  for (const { id, owner, expires, ceiling } of records) {
    const expiry = owner === null ? 'free' : expires <= now ? 'expired' : iso(expires)
    rows.push([String(id), owner === null ? '-' : plain(owner), expiry, iso(ceiling)])
  }
  const head = `namespace ${JSON.stringify(namespace)} in ${where} at ${iso(now)} by its clock: ${marker}`
  await write(`${head}\n${rows.length > 1 ? table(rows) : '(no leases)'}\n`)
}

/** The file of package `name` in the project of the current directory (or its parents), or null. */
function resolve(name) {
  try {
    return require.resolve(name, { paths: [process.cwd()] })
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND') return null
    throw error
  }
}

/**
 * A client of library `name` for `url`, not yet connected, that gives up at the first failure:
 * a command run once must not retry for ever. `close()` never throws: the command must end.
 */
function connect(name, lib, url) {
  let client, close
  if (name === 'ioredis') {
    const Redis = lib.Redis ?? lib
    client = new Redis(url, { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, retryStrategy: () => null, maxRetriesPerRequest: 0 })
    // disconnect() on a client that has ended holds the process for 2 s more.
    close = () => (client.status === 'end' ? undefined : client.quit())
  } else if (name === 'redis') {
    client = lib.createClient({ url, socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: false } })
    // v5 renamed quit to close and disconnect to destroy, and deprecates the old names.
    close = () => (client.isOpen ? (client.close ?? client.quit).call(client) : undefined)
  } else {
    client = new lib.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS })
    close = () => client.end()
  }
  // A client's 'error' event with no listener throws. It says why the connection failed, where
  // ioredis's connect() only says "Connection is closed."
  let failure
  client.on('error', (error) => {
    failure ??= error
  })
  return {
    client,
    async open() {
      try {
        await client.connect()
      } catch (error) {
        throw failure ?? error
      }
    },
    async close() {
      try {
        await close()
      } catch {
        if (name === 'ioredis' && client.status !== 'end') client.disconnect()
        else if (name === 'redis' && client.isOpen) (client.destroy ?? client.disconnect).call(client)
      }
    },
  }
}

/** The URL without its password, in its user part or in its query (pg and ioredis read both). */
function redact(url) {
  const copy = new URL(url)
  if (copy.password !== '') copy.password = '***'
  for (const key of [...copy.searchParams.keys()]) {
    if (/pass/i.test(key)) copy.searchParams.set(key, '***')
  }
  return copy.href
}

/** An error's message on one line (Node's connect errors to several addresses have none of their own). */
function reason(error) {
  const text = error?.message || error?.errors?.map((e) => e.message).join('; ') || error?.code || String(error)
  return text.replace(/\s*\n\s*/g, ' ')
}

const iso = (ms) => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms))

// A token another process wrote (an owner, a meta): quoted if it could break a line or a column.
const plain = (text) => (/^[\x21-\x7e]+$/.test(text) ? text : JSON.stringify(text))

/** Rows of cells as lines, each column as wide as its widest cell, two spaces between. */
function table(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n')
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

#!/usr/bin/env node
'use strict'

// The command's interface: its usage, its options, and which command takes which. Each command
// runs from its own file under lib/cli/, but for the 128-bit kinds', which are rows run by one.

const { parse, rawValue } = require('../lib/cli/args.js')
const { describe } = require('../lib/errors/errors.js')
const { UsageError, CommandError } = require('../lib/cli/command-errors.js')
const { exitOnClosedPipe } = require('../lib/cli/output.js')
const { STORE_FLAGS, leaseListUsage, serveLeaseUsage, storeOptionsUsage } = require('../lib/cli/store-flags.js')

const USAGE = `Usage:
  flake-idgen [options]                print new 64-bit ids, one per line
  flake-idgen uuid [-n N] [--format uuid|base32|base62] [--scope S] [--state-dir D]
                                       print new UUIDv7s (RFC 9562), one per line, increasing
                                       across the host's processes
  flake-idgen flake128 [-n N] [--format base62|base32|hex] [--worker W | --interface NAME]
                       [--scope S] [--state-dir D]
                                       print new 128-bit flake ids (ms since 1970, a 48-bit
                                       worker id, a sequence), one per line
  flake-idgen decompose [--format F] [ID...]
                                       print the parts of each ID (or of each line of stdin)
                                       as one JSON object per line. An ID is a 64-bit id (at
                                       most 20 decimal digits, 13 base32 characters, 11 base62
                                       ones, 16 hex digits, or 0x and 16 hex digits: --format
                                       says which digits alone are), a UUIDv7 (8-4-4-4-12 hex
                                       digits) or a 128-bit Flake128 of Boundary's flake (22
                                       base62 characters, or 0x and 32 hex digits); a 128-bit
                                       id's object starts with its "type": uuidv7 or flake128
  flake-idgen state [--state-dir D]    list the host's state files, one per layout (uuid's
                                       and flake128's too): each file's start (no id is issued
                                       until the clock passes it) and the time and sequence of
                                       the last id each node id issued
  flake-idgen state --reset ID|start|all [--file NAME] [--state-dir D]
                                       forget node id ID's state, the file's start (when it is
                                       ahead of the clock) or the whole file, in state file
                                       NAME as state lists it (default epoch-0.state, the
                                       default layout's); refused while a process has it open
${leaseListUsage()}
  flake-idgen serve --port P [--host H] (--id N | --id-from SOURCE [--id-offset N] |
                    --lease URL --namespace N) --token-file F [--max-count N]
                    [--max-queued N] [--allowed-future-ms N] [--layout L] [--epoch T]
                    [--scope S] [--state-dir D]
${serveLeaseUsage()}

Options:
  -n, --count N        how many ids to print (default 1)
  --format FORMAT      decimal (default), base32 (13 characters, Crockford's), base62 (11
                       characters), hex (16 digits), base64, or json (one array of decimal
                       strings); the fixed-width forms sort as the ids do. uuid: uuid
                       (default), base32 (26 characters, ULID's) or base62 (22); flake128:
                       base62 (default, 22), base32 (26) or hex (0x and 32 digits);
                       decompose: the form of 64-bit ids
  --layout LAYOUT      64-bit ids' bit layout, for new ids and decompose: a preset
                       (flake-idgen (default), twitter, discord, instagram, snowcast,
                       hazelcast, sonyflake) or a custom layout as JSON, such as
                       '{"timeBits":41,"nodeBits":13,"sequenceBits":10}' (docs/layouts.md)
  --id N               node id, 0 to 2^nodeBits-1 (0-1023 in the default layout); wins
                       over the parts below
  --datacenter N       datacenter id, 0-31 (default 0): flake-idgen and twitter layouts
  --worker N           worker id, 0-31 (default 0): flake-idgen, twitter and discord;
                       flake128: 0 to 2^48-1 (decimal, or 0x and hex digits) or a MAC
                       address aa:bb:cc:dd:ee:ff (default: the MAC address of the first
                       non-internal network interface, by name)
  --interface NAME     flake128: the worker id is network interface NAME's MAC address
  --process N          process id, 0-31 (default 0): discord layout
  --id-from SOURCE     the node id the orchestrator gave: statefulset (the ordinal ending
                       $HOSTNAME, else the host's name), job-index, pm2 or env:NAME
                       (docs/fleets.md); not with --id or its parts
  --id-offset N        with --id-from: added to its number (default 0)
  --epoch TIME         ms since 1970, or a date such as 2020-01-01 (default: the layout's,
                       0 for flake-idgen); decompose adds it back to 64-bit ids
  --scope SCOPE        host (default: unique across the host's processes) or process
  --state-dir D        the state directory (default: $FLAKE_IDGEN_STATE_DIR, else
                       /tmp/flake-idgen-<uid> on Linux; docs/host-scope.md)
  --file NAME          state --reset: the state file, by its name as state lists it
${storeOptionsUsage()}
  --namespace N        lease list, serve --lease: the namespace, as FlakeId.lease takes it
  --port P             serve: the TCP port (0: any free one, printed)
  --host H             serve: the address to listen on (default 127.0.0.1)
  --lease URL          serve: lease the node id from the store at URL
  --token-file F       serve: the file holding the bearer token clients send
  --max-count N        serve: the most ids one request takes (default 100000)
  --max-queued N       serve: the most batch requests served at once (default 128)
  --allowed-future-ms N
                       serve: how far ahead of the clock ids may be borrowed (default 0)
  -h, --help           show this help (serve --help: serve's own)

Bad arguments exit with status 2 and the reason on stderr.`

// Each option: whether it takes a value. Short forms: SHORT.
const OPTIONS = {
  count: true,
  format: true,
  layout: true,
  id: true,
  'id-from': true,
  'id-offset': true,
  datacenter: true,
  worker: true,
  interface: true,
  process: true,
  epoch: true,
  scope: true,
  'state-dir': true,
  reset: true,
  file: true,
  ...Object.fromEntries(STORE_FLAGS.map((name) => [name, true])),
  namespace: true,
  port: true,
  host: true,
  lease: true,
  'token-file': true,
  'max-count': true,
  'max-queued': true,
  'allowed-future-ms': true,
  help: false,
}
const SHORT = { n: 'count', h: 'help' }

// Each command: its name in messages, the options it takes, whether it takes arguments, and its
// runner (required when run: a command loads only its own code).
const PRINT = {
  name: 'flake-idgen',
  options: [
    'count',
    'format',
    'layout',
    'id',
    'id-from',
    'id-offset',
    'datacenter',
    'worker',
    'process',
    'epoch',
    'scope',
    'state-dir',
  ],
  run: (values) => require('../lib/cli/ids.js')(values),
}
/**
 * A 128-bit kind's command, run by lib/cli/wide.js from its row: besides a command's fields, the
 * kind's name in the kinds table (`kind`), what `--format` calls the kind's own text (`text`)
 * and the other forms it prints (`formats`: every 128-bit form of lib/formats/formats.js's rows,
 * and hex where the kind's readers read it), and `make(options)`, the batches of a generator of
 * the kind with the library's `options`.
 */
const wide = (row) => ({ ...row, run: (values) => require('../lib/cli/wide.js')(row, values) })
const COMMANDS = {
  uuid: wide({
    name: 'uuid',
    kind: 'uuidv7',
    text: 'uuid',
    formats: ['base32', 'base62'],
    options: ['count', 'format', 'scope', 'state-dir'],
    make: (options) => require('../lib/kinds/uuidv7.js').create(options).batch,
  }),
  flake128: wide({
    name: 'flake128',
    kind: 'flake128',
    text: 'base62',
    formats: ['base32', 'hex'],
    options: ['count', 'format', 'worker', 'interface', 'scope', 'state-dir'],
    make: (options) => {
      const flakes = new (require('../lib/kinds/flake128.js'))(options)
      return (count) => flakes.nextBatch(count)
    },
  }),
  decompose: {
    name: 'decompose',
    options: ['format', 'layout', 'epoch'],
    takesArguments: true,
    run: (values, ids) => require('../lib/cli/decompose.js')(values, ids),
  },
  serve: {
    name: 'serve',
    options: [
      'port',
      'host',
      'id',
      'id-from',
      'id-offset',
      'lease',
      'namespace',
      'token-file',
      'max-count',
      'max-queued',
      'allowed-future-ms',
      'layout',
      'epoch',
      'scope',
      'state-dir',
    ],
    run: (values) => require('../lib/cli/serve.js')(values),
  },
  state: {
    name: 'state',
    options: ['state-dir', 'reset', 'file'],
    run: (values) => require('../lib/cli/state.js')(values),
  },
}
const LEASE_COMMANDS = {
  list: {
    name: 'lease list',
    options: [...STORE_FLAGS, 'namespace'],
    run: (values) => require('../lib/cli/lease-list.js')(values),
  },
}
const ALL = [PRINT, ...Object.values(COMMANDS), ...Object.values(LEASE_COMMANDS)]

/** The command the positionals name, and its arguments. */
function commandOf(positionals) {
  const [name, ...args] = positionals
  if (name === undefined) return [PRINT, []]
  if (name === 'lease') {
    if (args.length === 0) throw new UsageError('lease needs a command: list (see --help)')
    if (!Object.hasOwn(LEASE_COMMANDS, args[0]))
      throw new UsageError(`unknown lease command ${describe(args[0])} (see --help)`)
    return [LEASE_COMMANDS[args[0]], args.slice(1)]
  }
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`unknown command ${describe(name)} (see --help)`)
  return [COMMANDS[name], args]
}

/** Why option `name` is refused by `command`, which does not take it. */
function misplaced(name, command) {
  // An option of one subcommand only is named with it: the user may have left the subcommand out.
  const takers = ALL.filter((other) => other.options.includes(name))
  if (takers.length === 0 || takers.includes(PRINT)) return `--${name} does not apply to ${command.name}`
  const names = takers.map((taker) => taker.name)
  const last = names.pop()
  return `--${name} applies to ${names.length > 0 ? `${names.join(', ')} and ${last}` : last} only`
}

function main(argv) {
  const parsed = parse(argv, { options: OPTIONS, short: SHORT })
  const { values, positionals } = parsed
  // A directory's name need not be UTF-8: its bytes, where process.argv lost them.
  if (values['state-dir'] !== undefined) values['state-dir'] = rawValue(argv, parsed, 'state-dir')
  if (values.help) {
    const serve = positionals[0] === 'serve'
    process.stdout.write(`${serve ? require('../lib/cli/serve-help.js').SERVE_USAGE : USAGE}\n`)
    return
  }
  const [command, args] = commandOf(positionals)
  for (const name of Object.keys(values)) {
    if (!command.options.includes(name)) throw new UsageError(misplaced(name, command))
  }
  if (args.length > 0 && !command.takesArguments)
    throw new UsageError(`${command.name} takes no arguments, got ${describe(args[0])}`)
  return command.run(values, args)
}

exitOnClosedPipe()

Promise.resolve()
  .then(() => main(process.argv.slice(2)))
  .catch((error) => {
    // Ours, and the library's refusals of a state directory or file or of what --id-from read,
    // say all there is: no stack.
    const plain =
      error instanceof UsageError || error instanceof CommandError || /^ERR_FLAKE_(STATE|ID_FROM)/.test(error.code)
    process.stderr.write(`flake-idgen: ${plain ? error.message : error.stack}\n`)
    process.exitCode = error instanceof UsageError ? 2 : 1
  })

'use strict'

// `flake-idgen serve --help`: serve's own usage. The general help names every command in a line or
// two; someone starting a member needs its flags, their defaults and a command that works.

const { SERVE_SOURCES, serveSynopsis } = require('../id-sources/index.js')
const { STORES } = require('../lease/stores.js')
const { wrap } = require('./store-flags.js')

const schemes = STORES.flatMap((store) => store.schemes.map((scheme) => `${scheme}//`))

// The flags of the node id's sources, one line each (wrapped in the help's columns), from their rows.
const sourceLines = SERVE_SOURCES.flatMap((row) =>
  row.serve.map(({ flag, value, help }) => `  ${`--${flag} ${value}`.padEnd(24)}  ${wrap(help({ schemes }), 28, 96)}`),
)

const synopsis = `flake-idgen serve --port P (${SERVE_SOURCES.map(serveSynopsis).join(' | ')}) --token-file F [options]`

const SERVE_USAGE = `Usage:
  ${wrap(synopsis, 20, 96)}

Runs a member: an HTTP server that serves batches of its ids to clients (FlakeId.client,
flake-idgen-rs/client) sending the token in file F as "Authorization: Bearer". Every member of
a fleet needs a node id of its own: --id N, the one its orchestrator gave (--id-from), or
--lease to have one from a store. It prints one line once it listens. SIGTERM or SIGINT drains
it: it stops accepting connections, answers the requests in flight, releases its lease and
exits 0.

Options:
  --port P                  the TCP port (0: any free one, printed)
  --host H                  the address to listen on (default 127.0.0.1)
${sourceLines.join('\n')}
  --token-file F            the file holding the bearer token on one line: printable ASCII,
                            no spaces (required; a warning if every user may read it)
  --max-count N             the most ids one request takes (default 100000)
  --max-queued N            the most batch requests served at once, each kind (small, big);
                            past it 503 with Retry-After (default 128)
  --allowed-future-ms N     how far ahead of the clock ids may be borrowed in a burst (default 0,
                            at most the layout's maxAllowedFutureMs, 1000 in the default layout)
  --layout L, --epoch T     the ids' layout and epoch, as for new ids (default flake-idgen, 0)
  --scope S, --state-dir D  host (default) or process, and the state directory, as for new ids
  -h, --help                show this help

Besides POST /?count=N (a batch), it answers without the token:
  GET /healthz              200 while it can issue ids, 503 and a coded JSON error while not
  GET /metrics              Prometheus text: batches, ids, refusals by code, requests in flight,
                            lease state

Example:
  flake-idgen serve --port 8080 --id 7 --token-file /run/secrets/ids-token

Bad arguments exit with status 2 and the reason on stderr; a token file or store that cannot be
used, with status 1.`

module.exports = { SERVE_USAGE }

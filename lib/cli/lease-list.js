'use strict'

// `flake-idgen lease list`: who holds each generator id of a namespace in a FlakeId.lease store.

const { describe } = require('../errors.js')
const { checkNamespace } = require('../lease/options.js')
const { UsageError, CommandError, withFlags } = require('./command-errors.js')
const { write, table, iso, cell } = require('./output.js')
const { STORES, findClient, connect, redact, reason } = require('./store-client.js')

/** `text`, the value of `--flag`, as a URL; a `UsageError` unless it has a scheme of the flag's store. */
function storeUrl(flag, text) {
  const { schemes } = STORES[flag]
  let url = null
  try {
    url = new URL(text)
  } catch {}
  if (url === null || !schemes.includes(url.protocol)) {
    const shown = redact(url ?? text)
    throw new UsageError(
      `--${flag} must be a ${schemes.map((scheme) => `${scheme}//`).join(' or ')} URL, got ${describe(shown)}`,
    )
  }
  return url
}

/** Prints the lease records of `--namespace` in the store at `--redis` or `--postgres`. */
async function leaseList(values) {
  if ((values.redis === undefined) === (values.postgres === undefined)) {
    throw new UsageError(
      values.redis === undefined
        ? 'lease list needs --redis URL or --postgres URL (see --help)'
        : 'lease list takes --redis or --postgres, not both',
    )
  }
  const flag = values.redis === undefined ? 'postgres' : 'redis'
  const { namespace } = values
  if (namespace === undefined) throw new UsageError('lease list needs --namespace N (see --help)')
  withFlags(() => checkNamespace(namespace))
  const url = storeUrl(flag, values[flag])

  const { clients } = STORES[flag]
  const name = findClient(clients)
  if (name === undefined) {
    const which =
      clients.length > 1
        ? `${clients.join(' or ')} installed in your project (npm install ${clients[0]}); neither was`
        : `${clients[0]} installed in your project (npm install ${clients[0]}); it was not`
    throw new CommandError(`lease list --${flag} needs ${which} found from ${process.cwd()}`)
  }
  const client = connect(name, values[flag])
  const where = `${redact(url)} (${name})`
  let listed
  try {
    try {
      await client.open()
    } catch (error) {
      throw new CommandError(`cannot connect to ${where}: ${reason(error)}`)
    }
    try {
      listed = await require('../lease/store.js').storeFor(client.client).list({ namespace })
    } catch (error) {
      throw new CommandError(`cannot list the leases at ${where}: ${reason(error)}`)
    }
  } finally {
    await client.close()
  }

  const { now, meta, floor, records } = listed
  const marker =
    meta === null ? 'no marker (never leased, or the store lost it)' : `meta ${cell(meta)}, floor ${iso(floor)}`
  const rows = [['id', 'holder', 'expires', 'ceiling']]
  for (const { id, owner, expires, ceiling } of records) {
    const expiry = owner === null ? 'free' : expires <= now ? 'expired' : iso(expires)
    rows.push([String(id), owner === null ? '-' : cell(owner), expiry, iso(ceiling)])
  }
  const head = `namespace ${JSON.stringify(namespace)} in ${where} at ${iso(now)} by its clock: ${marker}`
  await write(`${head}\n${rows.length > 1 ? table(rows) : '(no leases)'}\n`)
}

module.exports = leaseList

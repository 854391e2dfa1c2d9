'use strict'

// `flake-idgen lease list`: who holds each generator id of a namespace in a FlakeId.lease store.

const { describe } = require('../errors/errors.js')
const { checkNamespace } = require('../lease/options.js')
const { UsageError, CommandError, withFlags, urlOf } = require('./command-errors.js')
const { write, table, iso, cell } = require('./output.js')
const { findClient, connect, reason } = require('./store-client.js')
const { redact, secretsOf, scrub } = require('../errors/redact.js')
const { STORES } = require('../lease/stores.js')
const { storeFor } = require('../lease/store.js')

/** `text`, the value of `--<store.name>`, as a URL; a `UsageError` unless it has a scheme of the store's. */
function storeUrl(store, text) {
  const { name, schemes, address } = store
  // A row that reads its own form (ZooKeeper's hosts) says what it takes.
  if (address !== undefined) {
    if (address(text) === undefined)
      throw new UsageError(`--${name} must be ${store.form}, got ${describe(redact(text))}`)
    return text
  }
  let url = null
  try {
    url = new URL(text)
  } catch {}
  if (url === null || !schemes.includes(url.protocol)) {
    const shown = redact(url === null ? text : url)
    throw new UsageError(`--${name} must be ${urlOf(schemes)}, got ${describe(shown)}`)
  }
  return url
}

/** Prints the lease records of `--namespace` in the store at the URL of its flag (one store's name). */
async function leaseList(values) {
  const flags = STORES.map((store) => `--${store.name}`)
  const given = STORES.filter((store) => values[store.name] !== undefined)
  if (given.length !== 1) {
    throw new UsageError(
      given.length === 0
        ? `lease list needs ${STORES.map(({ name, value = 'URL' }) => `--${name} ${value}`).join(' or ')} (see --help)`
        : `lease list takes ${flags.join(' or ')}, not ${flags.length > 2 ? 'more than one' : 'both'}`,
    )
  }
  const [store] = given
  const flag = store.name
  const { namespace } = values
  if (namespace === undefined) throw new UsageError('lease list needs --namespace N (see --help)')
  withFlags(() => checkNamespace(namespace))
  const url = storeUrl(store, values[flag])

  const { clients } = store
  const found = findClient(clients)
  if (found === undefined) {
    const names = clients.map(({ name }) => name)
    const which =
      names.length > 1
        ? `${names.join(' or ')} installed in your project (npm install ${names[0]}); ${names.length > 2 ? 'none' : 'neither'} was`
        : `${names[0]} installed in your project (npm install ${names[0]}); it was not`
    throw new CommandError(`lease list --${flag} needs ${which} found from ${process.cwd()}`)
  }
  const client = connect(found, values[flag])
  const where = `${redact(url)} (${found.name})`
  // What a client says may quote what it was given.
  const secrets = secretsOf(values[flag])
  const said = (error) => scrub(reason(error), secrets)
  let listed
  try {
    try {
      await client.open()
    } catch (error) {
      throw new CommandError(`cannot connect to ${where}: ${said(error)}`)
    }
    try {
      listed = await storeFor(client.client).list({ namespace })
    } catch (error) {
      throw new CommandError(`cannot list the leases at ${where}: ${said(error)}`)
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

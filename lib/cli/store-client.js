'use strict'

// The user's own Redis or PostgreSQL client, for a command run once: loaded from the project of
// the current directory (none is a dependency of this package), connected with a timeout and no
// retries, and its URL shown without secrets.

// Each store's URL schemes, and the clients that may serve it, in order of preference.
const STORES = {
  redis: { schemes: ['redis:', 'rediss:'], clients: ['ioredis', 'redis'] },
  postgres: { schemes: ['postgres:', 'postgresql:'], clients: ['pg'] },
}

// Without it, an address that drops packets would hold the command for the client's default
// (ioredis: 10 s, pg: forever).
const CONNECT_TIMEOUT_MS = 5_000

/** The file of package `name` in the project of the current directory (or its parents), or null. */
function resolve(name) {
  try {
    return require.resolve(name, { paths: [process.cwd()] })
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND') return null
    throw error
  }
}

/** The first of `clients` (package names) the project of the current directory has, or undefined. */
const findClient = (clients) => clients.find((client) => resolve(client) !== null)

/**
 * A client of package `name` (ioredis, redis or pg, from the current directory's project) for
 * `url`, not yet connected, that gives up at the first failure: a command run once must not
 * retry for ever. `open()` rejects with the reason the client gave; `close()` never throws: the
 * command must end.
 */
function connect(name, url) {
  const lib = require(resolve(name))
  let client, close
  if (name === 'ioredis') {
    const Redis = lib.Redis ?? lib
    client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    })
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

// In text that does not parse as a URL (or parses without a host): everything between the
// scheme and the last `@` (a user and password, whatever they hold), and every query value.
const USER_PART = /^([a-z][a-z0-9+.-]*:(?:\/\/)?|\/\/)?[\s\S]*@/i
const QUERY_VALUES = /([?&][^=&#]*=)[^&#]*/g

const redactText = (text) => text.replace(USER_PART, '$1***@').replace(QUERY_VALUES, '$1***')

/**
 * `url` (a URL or its text) without its password, in its user part or in its query (pg and
 * ioredis read both). Text that does not parse loses its whole user part and every query value:
 * where a URL does not parse, nothing says which part is the password.
 */
function redact(url) {
  let copy
  try {
    copy = new URL(url)
  } catch {
    return redactText(String(url))
  }
  if (copy.host === '') return redactText(copy.href)
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

module.exports = { STORES, findClient, connect, redact, reason }

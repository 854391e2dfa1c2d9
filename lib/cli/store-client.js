'use strict'

// The user's own store client, for a command run once: loaded from the project of the current
// directory (none is a dependency of this package), connected with a timeout and no retries, as
// its store's row says (lib/lease/stores.js).

// Without it, an address that drops packets would hold the command for the client's default
// (10 s, or for ever).
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

/** The first of a store's `clients` whose package the project of the current directory has, or undefined. */
const findClient = (clients) => clients.find(({ name }) => resolve(name) !== null)

/**
 * A client of package `name` (from the current directory's project), made by the store's
 * `connect` for `url`, not yet connected, that gives up at the first failure. `open()` rejects
 * with the reason the client gave; `close()` never throws: the command must end.
 */
function connect({ name, connect: make }, url) {
  const { client, close, destroy } = make(require(resolve(name)), url, CONNECT_TIMEOUT_MS)
  // A client's 'error' event with no listener throws. It says why the connection failed, where
  // some clients' connect() only says "Connection is closed."
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
        destroy?.()
      }
    },
  }
}

/** An error's message on one line (Node's connect errors to several addresses have none of their own). */
function reason(error) {
  const text = error?.message || error?.errors?.map((e) => e.message).join('; ') || error?.code || String(error)
  return text.replace(/\s*\n\s*/g, ' ')
}

module.exports = { findClient, connect, reason }

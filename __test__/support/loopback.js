'use strict'
// Servers on loopback for the member and client tests: one listening on a free port, and a URL
// where nothing listens (a member killed -9).

const http = require('node:http')

/** `server` listening on a free loopback port: its URL, and close(), which ends its connections too. */
async function listening(server, scheme = 'http') {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = () => {
    server.close()
    server.closeAllConnections()
  }
  return { url: `${scheme}://127.0.0.1:${server.address().port}/`, close }
}

/** A free loopback port: one a server had, and gave back. */
async function freePort() {
  const server = http.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A loopback URL where nothing listens. */
const deadUrl = async () => `http://127.0.0.1:${await freePort()}/`

module.exports = { listening, freePort, deadUrl }

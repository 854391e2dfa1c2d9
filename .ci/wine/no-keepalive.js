'use strict'
// Preloaded (NODE_OPTIONS=--require) into every Node that .ci runs under Wine; the harness's, never
// shipped. Wine 8 fails a socket's keep-alive (libuv sets SO_KEEPALIVE with its interval) before
// the connection is made, and the connect then fails with "connect UNKNOWN": undici's fetch and
// npm's agent both ask for keep-alive, http.get does not. Real Windows has it; without it under
// Wine a connection simply has no keep-alive probes, which no test here depends on.
require('node:net').Socket.prototype.setKeepAlive = function setKeepAlive() {
  return this
}

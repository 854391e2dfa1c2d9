'use strict'

// `flake-idgen-rs/client`: the client of members alone (FlakeId.client), pure JS: node:http in
// Node, fetch elsewhere. It requires nothing that loads the native binary, so it runs in Node,
// Deno, Bun and edge runtimes.
module.exports = require('./lib/client/index.js')

'use strict'

// The package's one entry point (CommonJS and ESM alike): every part lives under lib/.
const FlakeId = require('./lib/flake-id.js')
const lazy = require('./lib/lazy.js')

module.exports = FlakeId
module.exports.FlakeId = FlakeId
module.exports.default = FlakeId
// Loaded when first read, as Node's own lib loads its parts: a process that never makes a
// UUIDv7 or a Flake128 does not pay for their code at its start.
lazy(module.exports, 'uuidv7', () => require('./lib/uuid.js'))
lazy(module.exports, 'Flake128', () => require('./lib/flake128.js'))
require('./lib/earlier-copies.js')(module, require.cache)
// ESM's named imports are the names Node finds by reading this file (cjs-module-lexer), not by
// running it; the getters above hide these two, so they are spelled out here, where they never
// run: the annotation esbuild writes for the same reason.
// biome-ignore lint/suspicious/noAssignInExpressions: read by Node's lexer, never run
0 && (module.exports = { uuidv7, Flake128 })

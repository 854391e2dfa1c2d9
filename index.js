'use strict'

// The package's one entry point (CommonJS and ESM alike): every part lives under lib/.
const FlakeId = require('./lib/flake-id.js')

module.exports = FlakeId
module.exports.FlakeId = FlakeId
module.exports.default = FlakeId

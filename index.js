'use strict'

// The package's one entry point (CommonJS and ESM alike): every part lives under lib/.
const FlakeId = require('./lib/flake-id.js')
const uuidv7 = require('./lib/uuid.js')
const Flake128 = require('./lib/flake128.js')

module.exports = FlakeId
module.exports.FlakeId = FlakeId
module.exports.default = FlakeId
module.exports.uuidv7 = uuidv7
module.exports.Flake128 = Flake128

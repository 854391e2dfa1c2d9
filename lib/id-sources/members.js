'use strict'
// No node id of its own: ids from batches that members (generator.batchHandler, `flake-idgen
// serve`) issue on theirs. Checked by lib/client/options.js, which loads no binary: this row
// requires nothing.

module.exports = {
  name: 'members',
  takenBy: 'FlakeId.client()',
  options: ['members', 'token', 'prefetchCount', 'prefetchValidityMs', 'timeoutMs'],
  generatorOptions: false,
  serve: [],
}

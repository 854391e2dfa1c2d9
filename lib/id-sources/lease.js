'use strict'
// A node id leased from a store the user's client reaches: unique among the live holders of a
// namespace. Checked by lib/lease/options.js; the stores are lib/lease/stores.js's rows.

module.exports = {
  name: 'lease',
  takenBy: 'FlakeId.lease()',
  options: [
    'store',
    'namespace',
    'ids',
    'ttl',
    'maxClockSkewMs',
    'acquireTimeout',
    'replicas',
    'signal',
    'onLost',
    'onWait',
  ],
  generatorOptions: true,
  serve: [
    {
      flag: 'lease',
      value: 'URL',
      help: ({ schemes }) =>
        `lease the node id from the store at URL (${schemes.join(', ')}), with the store's client from the current directory's project`,
    },
    { flag: 'namespace', value: 'N', help: () => 'with --lease: the namespace, as FlakeId.lease takes it' },
  ],
}

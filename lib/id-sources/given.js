'use strict'
// The node id given: `id`, or the parts of it the layout names (flake-idgen's options). None
// given is node id 0, as in flake-idgen. Checked by the native side (src/options/mod.rs, node()).

module.exports = {
  name: 'given',
  takenBy: 'new FlakeId()',
  options: ['id', 'datacenter', 'worker', 'process'],
  generatorOptions: true,
  serve: [{ flag: 'id', value: 'N', help: () => 'the node id, 0 to 2^nodeBits-1 (0-1023 in the default layout)' }],
}

'use strict'
// The node id a fleet's orchestrator numbered the process with, read from the environment as the
// generator is made (`idFrom`), plus `idOffset`: a StatefulSet pod's ordinal, an Indexed Job's
// index, PM2's instance, or any variable. Read and checked by the native side
// (src/options/id_from.rs), whose refusals name the variable and its value.

module.exports = {
  name: 'orchestrator',
  takenBy: 'new FlakeId()',
  options: ['idFrom', 'idOffset'],
  generatorOptions: true,
  serve: [
    {
      flag: 'id-from',
      value: 'SOURCE',
      help: () =>
        "the node id the orchestrator gave: statefulset (the ordinal ending $HOSTNAME, else the host's name), job-index ($JOB_COMPLETION_INDEX), pm2 ($NODE_APP_INSTANCE) or env:NAME ($NAME)",
    },
    { flag: 'id-offset', value: 'N', optional: true, help: () => 'with --id-from: added to its number (default 0)' },
  ],
}

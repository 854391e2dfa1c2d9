'use strict'

// `flake-idgen [options]`: new ids, one per line or as one JSON array.

const FlakeId = require('../generator/flake-id.js')
const { readCount, readStateDir, readEpoch, readLayout } = require('./args.js')
const { describe } = require('../errors/errors.js')
const { UsageError, withFlags } = require('./command-errors.js')
const { IDS_PER_WRITE, write } = require('./output.js')
const { FORMATS, formatNamed } = require('../formats/formats.js')

// Each --format: the id at `offset` of a batch as its line (or JSON array element). One per
// text format that has a flag (lib/formats/formats.js), and json: the default one's text, as
// one JSON array.
const DEFAULT = formatNamed('decimal')
const LINES = Object.fromEntries(
  FORMATS.filter((row) => row.flag !== undefined).map((row) => [row.flag, row.fromBytes]),
)
LINES.json = (ids, offset) => `"${DEFAULT.fromBytes(ids, offset)}"`
const FLAGS = Object.keys(LINES)
// The default's name before the rows named it, still taken: a script that passes it gets the same lines.
const EARLIER = { dec: DEFAULT.flag }

// The flags of the node id's parts; a layout takes those it names (`FlakeId.layout().parts`).
const PARTS = ['datacenter', 'worker', 'process']

/**
 * Refuses a part flag that `layout` (as the library takes it) does not have: the library ignores
 * `process` with flake-idgen's layout, as flake-idgen ignores options it does not know, but a
 * flag typed and ignored would be a silent mask.
 */
function checkParts(values, layout) {
  const { name, parts } = withFlags(() => FlakeId.layout(layout))
  for (const part of PARTS) {
    if (values[part] === undefined || parts.includes(part)) continue
    const flags = ['id', ...parts].map((flag) => `--${flag}`).join(', ')
    throw new UsageError(
      `--${part} must be unset with layout ${name} (its node id is given as ${flags}), got ${describe(values[part])}`,
    )
  }
}

/** Prints `--count` new ids of the generator the options describe, in `--format`. */
async function printIds(values) {
  const epoch = readEpoch(values.epoch)
  const layout = readLayout(values.layout)
  checkParts(values, layout)
  const count = readCount(values.count)
  const given = values.format ?? DEFAULT.flag
  const format = Object.hasOwn(EARLIER, given) ? EARLIER[given] : given
  if (!Object.hasOwn(LINES, format))
    throw new UsageError(
      `--format must be ${FLAGS.slice(0, -1).join(', ')} or ${FLAGS.at(-1)}, got ${describe(format)}`,
    )
  const stateDir = readStateDir(values['state-dir'])
  // The library checks every option (as text, as the user typed it); a bad one names its flag.
  const generator = withFlags(
    () =>
      new FlakeId({
        layout,
        id: values.id,
        idFrom: values['id-from'],
        idOffset: values['id-offset'],
        datacenter: values.datacenter,
        worker: values.worker,
        process: values.process,
        epoch,
        scope: values.scope,
        stateDir,
      }),
  )
  const line = LINES[format]
  const json = format === 'json'
  let out = json ? '[' : ''
  for (let left = count; left > 0; ) {
    const size = Math.min(left, IDS_PER_WRITE)
    const ids = generator.nextBatch(size)
    left -= size
    const lines = []
    for (let offset = 0; offset < ids.length; offset += 8) lines.push(line(ids, offset))
    out += json ? lines.join(',') + (left > 0 ? ',' : ']\n') : `${lines.join('\n')}\n`
    await write(out)
    out = ''
  }
}

module.exports = printIds
module.exports.FLAGS = FLAGS

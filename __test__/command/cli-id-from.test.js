'use strict'
// Issue 53, part 1: `--id-from SOURCE [--id-offset N]`, the orchestrator row's flags, on the
// command that prints ids and on `flake-idgen serve`: the node id from the variable each
// orchestrator sets, as the library's `idFrom` reads it.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const FlakeId = require('../..')
const { assertUsageErrors, spawnCommand } = require('../support/helpers.js')
const { tokenDir, startServe } = require('./serve-process.js')

const BIN = path.join(__dirname, '..', '..', 'bin', 'flake-idgen.js')
const ORCHESTRATED = ['HOSTNAME', 'JOB_COMPLETION_INDEX', 'NODE_APP_INSTANCE']

/** The runner's environment without the orchestrators' variables, and with `vars`. */
function environment(vars) {
  const env = { ...process.env }
  for (const name of ORCHESTRATED) delete env[name]
  return { ...env, ...vars }
}

const run = (args, vars = {}) =>
  spawnCommand(process.execPath, [BIN, ...args], { env: environment(vars), encoding: 'utf8' })

test('flake-idgen --id-from: ids on the node id each orchestrator set, plus --id-offset', () => {
  for (const [args, vars, node] of [
    [['--id-from', 'statefulset'], { HOSTNAME: 'orders-7' }, 7],
    [['--id-from', 'job-index'], { JOB_COMPLETION_INDEX: '3' }, 3],
    [['--id-from', 'pm2', '--id-offset', '100'], { NODE_APP_INSTANCE: '2' }, 102],
    [['--id-from=env:SHARD', '--layout', 'sonyflake', '--id-offset', '65000'], { SHARD: '12' }, 65_012],
  ]) {
    const { status, stdout, stderr } = run(['-n', '3', ...args], vars)
    assert.equal(status, 0, stderr)
    const layout = args.includes('sonyflake') ? 'sonyflake' : undefined
    const ids = stdout.trim().split('\n')
    assert.equal(ids.length, 3)
    for (const id of ids) {
      const parts = FlakeId.decompose(id, { layout })
      assert.equal(parts.id ?? parts.machineId, node, `${args.join(' ')}: ${id}`)
    }
  }
})

test('what --id-from reads is refused with status 1 and one line; bad flags with status 2', () => {
  for (const [args, vars, line] of [
    [
      ['--id-from', 'job-index'],
      {},
      "idFrom 'job-index': JOB_COMPLETION_INDEX is not set (an Indexed Job sets it in each pod)",
    ],
    [
      ['--id-from', 'statefulset'],
      { HOSTNAME: 'orders' },
      `idFrom 'statefulset': HOSTNAME is "orders", which has no ordinal at its end (a StatefulSet names its pods <name>-<ordinal>, such as orders-7)`,
    ],
    [
      ['--id-from', 'env:SHARD', '--id-offset', '1000'],
      { SHARD: '24' },
      `idFrom 'env:SHARD': SHARD is "24", whose number plus idOffset 1000 is past the layout's last node id, 1023`,
    ],
  ]) {
    const { status, stdout, stderr } = run(args, vars)
    assert.equal(status, 1, stderr)
    assert.equal(stdout, '')
    assert.equal(stderr, `flake-idgen: ${line}\n`)
  }
  assertUsageErrors(
    (args) => run(args, { NODE_APP_INSTANCE: '2' }),
    [
      [
        ['--id-from', 'jobindex'],
        '--id-from must be statefulset, job-index, pm2 or env:NAME (did you mean job-index?), got "jobindex"',
      ],
      [['--id-from', 'pm2', '--id', '3'], '--id must be left out: --id-from sets the node id, got "3"'],
      [['--id-from', 'pm2', '--worker', '3'], '--worker must be left out: --id-from sets the node id, got "3"'],
      [['--id-from', 'pm2', '--id-offset', '-1'], '--id-offset must be an integer from 0 to 1023, got "-1"'],
      [
        ['--id-offset', '3'],
        '--id-offset must be unset without --id-from (it is added to the number --id-from reads), got "3"',
      ],
      [['decompose', '--id-from', 'pm2'], '--id-from does not apply to decompose'],
    ],
  )
})

test('flake-idgen serve --id-from: a member on the node id its orchestrator set', async () => {
  const { tokenFile, cleanup } = tokenDir()
  try {
    const token = ['--token-file', tokenFile, '--scope', 'process']
    for (const [args, vars, node] of [
      [['--id-from', 'statefulset'], { HOSTNAME: 'ids-5' }, 5],
      [['--id-from', 'env:SHARD', '--id-offset', '100'], { SHARD: '12' }, 112],
    ]) {
      const member = await startServe([...args, ...token], { env: environment(vars) })
      try {
        assert.equal(member.node, node)
      } finally {
        member.kill()
        await member.exited
      }
    }
    const refused = run(['serve', '--port', '0', '--id-from', 'pm2', ...token])
    assert.equal(refused.status, 1, refused.stderr)
    assert.match(refused.stderr, /^flake-idgen: idFrom 'pm2': NODE_APP_INSTANCE is not set \([^\n]*\)\n$/)
  } finally {
    cleanup()
  }
})

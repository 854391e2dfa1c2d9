'use strict'
// Issue 53, part 1: `idFrom`, the node id from the variable the orchestrator sets in each process
// (a StatefulSet pod's HOSTNAME, an Indexed Job's JOB_COMPLETION_INDEX, PM2's NODE_APP_INSTANCE,
// any other), plus `idOffset`. Each case runs in a child given the environment the orchestrator
// gives its processes: the variables are read as the process starts with them (the WebAssembly
// build's WASI environment is a copy made as the package loads).

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn, spawnSync } = require('node:child_process')
const { once } = require('node:events')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const FlakeId = require('../..')
const { SOURCES } = require('../../lib/id-sources/index.js')
const { stateDir } = require('../support/state-files.js')
const { NO_HOST_SCOPE_IN_WASM, wasmBuild } = require('../support/helpers.js')

const ROOT = path.join(__dirname, '..', '..')
const ORCHESTRATED = ['HOSTNAME', 'JOB_COMPLETION_INDEX', 'NODE_APP_INSTANCE']

/** The runner's environment without the orchestrators' variables, and with `vars`. */
function environment(vars) {
  const env = { ...process.env }
  for (const name of ORCHESTRATED) delete env[name]
  return { ...env, ...vars }
}

// Each case's generator (in process scope: these cases share no state), or its error; the node
// id read back from the bits of its first id, by its layout.
const CHILD = `
const FlakeId = require(${JSON.stringify(ROOT)})
const results = JSON.parse(process.argv[1]).map((options) => {
  try {
    const generator = new FlakeId({ scope: 'process', ...options })
    const { nodeBits, sequenceBits, order } = generator.layout
    const shift = BigInt(order === 'node-sequence' ? sequenceBits : 0)
    const node = (generator.nextBigInt() >> shift) & ((1n << BigInt(nodeBits)) - 1n)
    return { id: generator.id, node: Number(node), parts: [generator.datacenter, generator.worker] }
  } catch (error) {
    return { error: { name: error.name, code: error.code, message: error.message } }
  }
})
process.stdout.write(JSON.stringify(results))
`

/** `new FlakeId(options)` for each of `cases`, in one child whose environment has `vars`. */
function construct(vars, cases) {
  const child = spawnSync(process.execPath, ['-e', CHILD, JSON.stringify(cases)], {
    env: environment(vars),
    encoding: 'utf8',
  })
  assert.equal(child.status, 0, child.stderr)
  return JSON.parse(child.stdout)
}

/** Asserts each of `cases`, `[options, expected]`: a node id (a number) or an error's `[class, code, message]`. */
function expect(vars, cases) {
  const results = construct(
    vars,
    cases.map(([options]) => options),
  )
  cases.forEach(([options, expected], i) => {
    const result = results[i]
    const what = `${JSON.stringify(vars)} ${JSON.stringify(options)}`
    if (typeof expected === 'number') {
      assert.equal(result.error, undefined, `${what}: ${result.error?.message}`)
      assert.deepEqual(result, { id: expected, node: expected, parts: [null, null] }, what)
    } else {
      const [name, code, message] = expected
      assert.equal(result.id, undefined, `${what} gave node id ${result.id}`)
      assert.equal(result.error.name, name, what)
      assert.equal(result.error.code, code, what)
      if (typeof message === 'string') assert.equal(result.error.message, message, what)
      else assert.match(result.error.message, message, what)
    }
  })
}

const FROM = 'ERR_FLAKE_ID_FROM'
const INVALID = 'ERR_FLAKE_INVALID_OPTION'
const NO_ORDINAL = 'which has no ordinal at its end (a StatefulSet names its pods <name>-<ordinal>, such as orders-7)'

test('each orchestrator: the node id it set, in the node bits of every layout; idOffset added', () => {
  const vars = { HOSTNAME: 'orders-7', JOB_COMPLETION_INDEX: '3', NODE_APP_INSTANCE: '2', SHARD: '12' }
  expect(vars, [
    [{ idFrom: 'statefulset' }, 7],
    [{ idFrom: 'job-index' }, 3],
    [{ idFrom: 'pm2' }, 2],
    [{ idFrom: 'env:SHARD' }, 12],
    [{ idFrom: 'env:SHARD', idOffset: 100 }, 112],
    // As the command passes it: a numeric string.
    [{ idFrom: 'pm2', idOffset: '500' }, 502],
    [{ idFrom: 'statefulset', idOffset: 1016 }, 1023],
    [{ idFrom: 'statefulset', layout: 'twitter' }, 7],
    [{ idFrom: 'env:SHARD', layout: 'discord', idOffset: 1000 }, 1012],
    [{ idFrom: 'statefulset', layout: 'sonyflake', idOffset: 65_528 }, 65_535],
    [{ idFrom: 'job-index', layout: 'instagram', idOffset: 8188 }, 8191],
    [{ idFrom: 'job-index', layout: { timeBits: 47, timeUnitMs: 4, nodeBits: 3, sequenceBits: 13 }, idOffset: 4 }, 7],
  ])
})

test("a number past the layout's node ids, with idOffset or without, is refused naming the variable and its value", () => {
  const past = (read, value, offset, max) =>
    `idFrom '${read[0]}': ${read[1]} is "${value}", whose number${offset ? ` plus idOffset ${offset}` : ''} is past the layout's last node id, ${max}`
  expect({ HOSTNAME: 'orders-1024', JOB_COMPLETION_INDEX: '5', SHARD: '99999999999999999999999' }, [
    [{ idFrom: 'statefulset' }, ['RangeError', FROM, past(['statefulset', 'HOSTNAME'], 'orders-1024', 0, 1023)]],
    [{ idFrom: 'statefulset', layout: 'sonyflake' }, 1024],
    [
      { idFrom: 'job-index', idOffset: 1019 },
      ['RangeError', FROM, past(['job-index', 'JOB_COMPLETION_INDEX'], '5', 1019, 1023)],
    ],
    [
      { idFrom: 'job-index', layout: 'instagram', idOffset: 8187 },
      ['RangeError', FROM, past(['job-index', 'JOB_COMPLETION_INDEX'], '5', 8187, 8191)],
    ],
    [
      { idFrom: 'env:SHARD', layout: 'sonyflake' },
      ['RangeError', FROM, past(['env:SHARD', 'SHARD'], '99999999999999999999999', 0, 65535)],
    ],
    // idOffset alone past them is a bad option.
    [
      { idFrom: 'job-index', idOffset: 1024 },
      ['RangeError', INVALID, 'option `idOffset` must be an integer from 0 to 1023, got 1024'],
    ],
    [
      { idFrom: 'job-index', idOffset: -1 },
      ['RangeError', INVALID, 'option `idOffset` must be an integer from 0 to 1023, got -1'],
    ],
    [
      { idFrom: 'job-index', idOffset: true },
      ['TypeError', INVALID, 'option `idOffset` must be an integer from 0 to 1023, got true'],
    ],
  ])
})

test('a variable not set or empty is refused, never node id 0', () => {
  expect({ JOB_COMPLETION_INDEX: '' }, [
    [
      { idFrom: 'job-index' },
      ['Error', FROM, "idFrom 'job-index': JOB_COMPLETION_INDEX is empty (an Indexed Job sets it in each pod)"],
    ],
    [
      { idFrom: 'pm2' },
      [
        'Error',
        FROM,
        "idFrom 'pm2': NODE_APP_INSTANCE is not set (PM2 sets it in each instance of an app, unless its instance_var names another)",
      ],
    ],
    [{ idFrom: 'env:SHARD', idOffset: 3 }, ['Error', FROM, "idFrom 'env:SHARD': SHARD is not set"]],
  ])
})

test("a StatefulSet pod's name with no ordinal is refused; without HOSTNAME, the host's name is read", () => {
  for (const name of ['orders', 'orders-', 'orders-x', 'orders-7a', '-7']) {
    expect({ HOSTNAME: name }, [
      [{ idFrom: 'statefulset' }, ['TypeError', FROM, `idFrom 'statefulset': HOSTNAME is "${name}", ${NO_ORDINAL}`]],
    ])
  }
  // A name with dashes of its own; a number is its decimal digits, leading zeros its own.
  expect({ HOSTNAME: 'orders-api-0012' }, [[{ idFrom: 'statefulset' }, 12]])
  // The host's name, as os.hostname() gives it: a pod's, or this runner's.
  const host = os.hostname()
  const ordinal = /^.+-([0-9]+)$/.exec(host)?.[1]
  let expected
  if (wasmBuild) {
    expected = [
      'Error',
      FROM,
      "idFrom 'statefulset': HOSTNAME is not set, and the host's name cannot be read: WASI gives the WebAssembly build none",
    ]
  } else if (ordinal !== undefined && Number(ordinal) <= 1023) expected = Number(ordinal)
  else if (ordinal !== undefined)
    expected = ['RangeError', FROM, /^idFrom 'statefulset': the host's name \(HOSTNAME is not set\)/]
  else
    expected = [
      'TypeError',
      FROM,
      `idFrom 'statefulset': the host's name (HOSTNAME is not set) is ${JSON.stringify(host)}, ${NO_ORDINAL}`,
    ]
  expect({}, [[{ idFrom: 'statefulset' }, expected]])
})

test('a variable holding anything but decimal digits is refused', () => {
  const values = { A: ' 3', B: '3\n', C: '+3', D: '-3', E: '3.0', F: '1e3', G: '0x1F', H: '٣', I: '007' }
  expect(
    values,
    Object.entries(values).map(([name, value]) => [
      { idFrom: `env:${name}` },
      value === '007'
        ? 7
        : [
            'TypeError',
            FROM,
            `idFrom 'env:${name}': ${name} is ${JSON.stringify(value)}, not a whole number (decimal digits only)`,
          ],
    ]),
  )
})

test('idFrom with the given node id or its parts, idOffset alone, and an unknown source are refused', () => {
  const leftOut = (option, got) => [
    'TypeError',
    INVALID,
    `option \`${option}\` must be left out: \`idFrom\` sets the node id, got ${got}`,
  ]
  const listed = "'statefulset', 'job-index', 'pm2' or 'env:NAME'"
  const unknown = (hint, got) => ['TypeError', INVALID, `option \`idFrom\` must be ${listed}${hint}, got ${got}`]
  expect({ NODE_APP_INSTANCE: '2' }, [
    [{ idFrom: 'pm2', id: 2 }, leftOut('id', 2)],
    [{ idFrom: 'pm2', id: null }, leftOut('id', 'null')],
    [{ idFrom: 'pm2', datacenter: 0 }, leftOut('datacenter', 0)],
    [{ idFrom: 'pm2', worker: '1' }, leftOut('worker', '"1"')],
    [{ idFrom: 'pm2', layout: 'discord', process: 1 }, leftOut('process', 1)],
    [
      { id: 2, idOffset: 5 },
      [
        'TypeError',
        INVALID,
        'option `idOffset` must be unset without `idFrom` (it is added to the number `idFrom` reads), got 5',
      ],
    ],
    [{ idFrom: 'PM2' }, unknown(" (did you mean 'pm2'?)", '"PM2"')],
    [{ idFrom: 'statefulSet' }, unknown(" (did you mean 'statefulset'?)", '"statefulSet"')],
    [{ idFrom: 'job_index' }, unknown(" (did you mean 'job-index'?)", '"job_index"')],
    [{ idFrom: 'ENV:SHARD' }, unknown(" (did you mean 'env:SHARD'?)", '"ENV:SHARD"')],
    [{ idFrom: 'kubernetes' }, unknown('', '"kubernetes"')],
    [{ idFrom: 2 }, unknown('', '2')],
    [{ idFrom: 'env:1X' }, unknown(', NAME of letters, digits and _, not starting with a digit', '"env:1X"')],
    [{ idFrom: 'env:' }, unknown(', NAME of letters, digits and _, not starting with a digit', '"env:"')],
  ])
})

test("the sources idFrom takes are the native side's, the TypeScript type's and the help's", () => {
  const error = captured(() => new FlakeId({ idFrom: 2 }))
  assert.equal(error.code, INVALID)
  const listed = /must be (.*), got 2$/
    .exec(error.message)[1]
    .split(/, | or /)
    .map((name) => name.slice(1, -1))
  assert.deepEqual(listed, ['statefulset', 'job-index', 'pm2', 'env:NAME'])
  // `env:${string}` is the TypeScript type of 'env:NAME'.
  const declared = /^\s*idFrom\?: (.*)$/m.exec(fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8'))[1].split(' | ')
  assert.equal(declared.pop(), 'null')
  assert.deepEqual(
    declared.map((type) => type.replace(/^`env:\$\{string\}`$/, "'env:NAME'")),
    listed.map((name) => `'${name}'`),
  )
  const help = SOURCES.find((row) => row.name === 'orchestrator').serve[0].help()
  for (const name of listed) assert.ok(help.includes(name), `${name} in: ${help}`)
})

/** The error `fn` throws. */
function captured(fn) {
  try {
    fn()
  } catch (error) {
    return error
  }
  assert.fail('nothing thrown')
}

const HOST_CHILD = path.join(__dirname, '..', 'support', 'host-child.js')

/** Children issuing `count` ids each at one moment, each with its `[vars, options]`: their ids. */
async function race(name, children, count, scope) {
  const dir = stateDir(name)
  const startAt = Date.now() + 1500
  const outs = children.map((_, i) => path.join(dir, `ids-${i}`))
  await Promise.all(
    children.map(async ([vars, options], i) => {
      const args = [HOST_CHILD, 'take', JSON.stringify({ ...options, scope }), String(count), String(startAt), outs[i]]
      const child = spawn(process.execPath, args, {
        env: { ...environment(vars), FLAKE_IDGEN_STATE_DIR: dir },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      child.stderr.on('data', (chunk) => (stderr += chunk))
      const [status] = await once(child, 'close')
      assert.equal(status, 0, stderr)
    }),
  )
  return outs.map((out) => {
    const bytes = fs.readFileSync(out)
    return Array.from({ length: bytes.length / 8 }, (_, i) => bytes.readBigUInt64BE(i * 8))
  })
}

const duplicates = (lists) => {
  const all = BigUint64Array.from(lists.flat()).sort()
  return all.filter((id, i) => i > 0 && id === all[i - 1]).length
}

// Two pods given one ordinal (a StatefulSet's pod force-deleted and started again while the old
// one runs on) on one host, and a process whose variable names the same node id.
const SAME_ID = [
  [{ HOSTNAME: 'orders-7' }, { idFrom: 'statefulset' }],
  [{ HOSTNAME: 'orders-7' }, { idFrom: 'statefulset' }],
  [{ SHARD: '4' }, { idFrom: 'env:SHARD', idOffset: 3 }],
]

test('host scope: processes on one host whose idFrom gives one node id share its state: no duplicates', {
  skip: NO_HOST_SCOPE_IN_WASM,
}, async () => {
  const lists = await race('id-from-host', SAME_ID, 20_000)
  for (const ids of lists) {
    assert.equal(ids.length, 20_000)
    assert.ok(ids.every((id, i) => i === 0 || ids[i - 1] < id))
    for (const id of [ids[0], ids.at(-1)]) assert.equal(FlakeId.decompose(id).id, 7)
  }
  assert.equal(duplicates(lists), 0)
})

test("the same with scope: 'process' repeats ids (so the test above can fail)", {
  skip: NO_HOST_SCOPE_IN_WASM,
}, async () => {
  const lists = await race('id-from-process', SAME_ID, 20_000, 'process')
  assert.ok(duplicates(lists) > 0, 'no duplicates: the processes did not overlap')
})

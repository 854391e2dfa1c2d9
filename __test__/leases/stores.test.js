'use strict'
// The list of lease stores (lib/lease/stores.js) is the only place FlakeId.lease's storeFor and
// `flake-idgen lease list` learn of a store: a row added to it is recognised, made, named in
// refusals, and listed by its flag, with nothing else changed. No server: the added store is a fake.

const { describe, it } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { STORES } = require('../../lib/lease/stores.js')
const { storeFor } = require('../../lib/lease/store.js')
const leaseList = require('../../lib/cli/lease-list.js')

const NOW = Date.parse('2030-01-01T00:00:00.000Z')

/** A store of fake clients (`{ fake: true }`), whose `make` records what it was given. */
function fakeStore(overrides = {}) {
  const made = []
  return {
    made,
    name: 'fake',
    describes: 'a fake client',
    recognise: (client) => client.fake === true,
    make(client, options) {
      made.push({ client, options })
      return { kind: 'fake', list: async () => ({ now: NOW, meta: null, floor: null, records: [] }) }
    },
    schemes: ['fake:'],
    // A package every project resolves: the command requires it and hands it to connect.
    clients: [
      {
        name: 'node:events',
        connect(lib, url, timeoutMs) {
          const client = Object.assign(new lib.EventEmitter(), { fake: true, url, timeoutMs, connect: async () => {} })
          return { client, close: async () => made.push({ closed: client }) }
        },
      },
    ],
    ...overrides,
  }
}

/** Runs `fn` with `row` last in STORES, as a new store's file would add it. */
async function withRow(row, fn) {
  STORES.push(row)
  try {
    return await fn()
  } finally {
    STORES.splice(STORES.indexOf(row), 1)
  }
}

/** What `fn` writes to stdout. */
async function stdoutOf(fn) {
  const write = process.stdout.write
  let text = ''
  process.stdout.write = (chunk) => {
    text += chunk
    return true
  }
  try {
    await fn()
  } finally {
    process.stdout.write = write
  }
  return text
}

describe('lease stores', () => {
  it('each row has what both paths read, under a name of its own', () => {
    assert.deepEqual(
      STORES.map((store) => store.name),
      ['redis', 'mysql', 'postgres', 'etcd', 'zookeeper'],
    )
    for (const store of STORES) {
      assert.match(store.name, /^[a-z][a-z0-9-]*$/, 'a flag of the command')
      assert.equal(typeof store.describes, 'string', store.name)
      assert.equal(typeof store.recognise, 'function', store.name)
      assert.equal(typeof store.make, 'function', store.name)
      assert.ok(store.schemes.length > 0 && store.schemes.every((scheme) => /^[a-z][a-z0-9+.-]*:$/.test(scheme)))
      assert.ok(store.clients.length > 0, store.name)
      for (const client of store.clients) {
        assert.equal(typeof client.name, 'string', store.name)
        assert.equal(typeof client.connect, 'function', `${store.name}: ${client.name}`)
      }
    }
    const flags = STORES.map((store) => store.name)
    assert.equal(new Set(flags).size, flags.length)
    const schemes = STORES.flatMap((store) => store.schemes)
    assert.equal(new Set(schemes).size, schemes.length, 'a URL names one store')
  })

  it("storeFor: a row's client is made by its row, and the refusal lists every row's clients", async () => {
    assert.throws(() => storeFor({}), {
      message:
        'option `store` must be an ioredis client, a node-redis (v4/v5) client, a mysql2 Pool, a pg Pool or Client, an etcd3 Etcd3 client, or a node-zookeeper-client Client, got an object',
    })
    const fake = fakeStore()
    await withRow(fake, () => {
      const client = { fake: true }
      assert.equal(storeFor(client).kind, 'fake')
      assert.deepEqual(fake.made, [{ client, options: { replicas: 0, waitMs: 1000 } }])
      assert.throws(() => storeFor({}), {
        name: 'TypeError',
        code: 'ERR_FLAKE_INVALID_OPTION',
        message:
          'option `store` must be an ioredis client, a node-redis (v4/v5) client, a mysql2 Pool, a pg Pool or Client, an etcd3 Etcd3 client, a node-zookeeper-client Client, or a fake client, got an object',
      })
      // The option is checked before any row sees the client.
      assert.throws(() => storeFor({ fake: true }, { replicas: -1 }), { code: 'ERR_FLAKE_INVALID_OPTION' })
      assert.equal(fake.made.length, 1)
    })
  })

  it("storeFor reads a client's shape once: make serves what recognise saw", () => {
    // An ioredis-shaped client whose shape answers otherwise when asked again.
    let reads = 0
    const shifting = {
      get defineCommand() {
        reads++
        return reads === 1 ? () => {} : undefined
      },
      call: async () => null,
    }
    assert.equal(storeFor(shifting).kind, 'ioredis')
    assert.equal(reads, 1)
  })

  it("lease list: a row's flag, schemes and client, and storeFor over the client", async () => {
    const fake = fakeStore()
    await withRow(fake, async () => {
      const printed = await stdoutOf(() => leaseList({ fake: 'fake://u:s3cret@h/x', namespace: 'orders' }))
      assert.equal(
        printed,
        `namespace "orders" in fake://u:***@h/x (node:events) at 2030-01-01T00:00:00.000Z by its clock: no marker (never leased, or the store lost it)\n(no leases)\n`,
      )
      const [{ client, options }, { closed }] = fake.made
      assert.equal(closed, client, 'closed once listed')
      assert.deepEqual(
        [client.url, client.timeoutMs, options],
        ['fake://u:s3cret@h/x', 5000, { replicas: 0, waitMs: 1000 }],
      )

      const usage = (values, message) => assert.rejects(leaseList(values), { name: 'UsageError', message })
      await usage(
        { namespace: 'n' },
        'lease list needs --redis URL or --mysql URL or --postgres URL or --etcd URL or --zookeeper HOSTS or --fake URL (see --help)',
      )
      await usage(
        { redis: 'redis://h', fake: 'fake://h', namespace: 'n' },
        'lease list takes --redis or --mysql or --postgres or --etcd or --zookeeper or --fake, not more than one',
      )
      await usage({ fake: 'redis://h', namespace: 'n' }, '--fake must be a fake:// URL, got "redis://h"')
    })
  })

  it("lease list: a row that reads its own form (ZooKeeper's hosts): its value's name, its words, and the text as given", async () => {
    const fake = fakeStore({
      value: 'HOSTS',
      form: 'h:p[,h:p…]',
      address: (text) => (/^[a-z]+:\d+(,[a-z]+:\d+)*$/.test(text) ? { hosts: text } : undefined),
    })
    await withRow(fake, async () => {
      const printed = await stdoutOf(() => leaseList({ fake: 'a:1,b:2', namespace: 'orders' }))
      assert.match(printed, /^namespace "orders" in a:1,b:2 \(node:events\) at /)
      assert.equal(fake.made[0].client.url, 'a:1,b:2', 'connect is given the text as it was')
      const usage = (values, message) => assert.rejects(leaseList(values), { name: 'UsageError', message })
      await usage({ fake: 'u:s3cret@a b', namespace: 'n' }, '--fake must be h:p[,h:p…], got "u:***@a b"')
      await usage({ namespace: 'n' }, /--zookeeper HOSTS or --fake HOSTS \(see --help\)$/)
    })
  })

  it("lease list: a row's clients that the project lacks are named, each in its row's order", async () => {
    const missing = (name) => ({ name, connect: () => assert.fail('connected') })
    const one = fakeStore({ clients: [missing('flake-idgen-no-such-client')] })
    await withRow(one, () =>
      assert.rejects(leaseList({ fake: 'fake://h', namespace: 'n' }), {
        name: 'CommandError',
        message: `lease list --fake needs flake-idgen-no-such-client installed in your project (npm install flake-idgen-no-such-client); it was not found from ${process.cwd()}`,
      }),
    )
    const two = fakeStore({ clients: [missing('flake-idgen-no-a'), missing('flake-idgen-no-b')] })
    await withRow(two, () =>
      assert.rejects(leaseList({ fake: 'fake://h', namespace: 'n' }), {
        name: 'CommandError',
        message: `lease list --fake needs flake-idgen-no-a or flake-idgen-no-b installed in your project (npm install flake-idgen-no-a); neither was found from ${process.cwd()}`,
      }),
    )
  })

  it('the command: a row added to STORES before it loads is a flag, in its usage and its parsing, with no line of bin/', (t) => {
    const root = path.join(__dirname, '..', '..')
    const bin = path.join(root, 'bin', 'flake-idgen.js')
    // A preload adds the row, as a new store's file in lib/lease/ would.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-store-row-'))
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
    const preload = path.join(dir, 'fake-store.js')
    fs.writeFileSync(
      preload,
      `const { STORES } = require(${JSON.stringify(path.join(root, 'lib', 'lease', 'stores.js'))})
STORES.push({
  name: 'fake',
  describes: 'a fake client',
  recognise: (client) => client.fake === true,
  make: () => ({ kind: 'fake', list: async () => ({ now: ${NOW}, meta: null, floor: null, records: [] }) }),
  schemes: ['fake:', 'fakes:'],
  clients: [
    { name: 'node:events', connect: (lib) => ({ client: Object.assign(new lib.EventEmitter(), { fake: true, connect: async () => {} }), close: async () => {} }) },
    { name: 'node:stream', connect: () => { throw new Error('not this one') } },
  ],
})
`,
    )
    const run = (args) => spawnSync(process.execPath, ['--require', preload, bin, ...args], { encoding: 'utf8' })

    const help = run(['--help'])
    assert.equal(help.status, 0, help.stderr)
    // Wrapped as the other lines are.
    const words = help.stdout.replace(/\s+/g, ' ')
    const synopsis =
      'flake-idgen lease list (--redis URL | --mysql URL | --postgres URL | --etcd URL | --zookeeper HOSTS | --fake URL) --namespace N'
    assert.ok(words.includes(synopsis), help.stdout)
    assert.ok(
      words.includes(
        'with ioredis (else redis), mysql2, pg, etcd3, node-zookeeper-client or node:events (else node:stream) from',
      ),
      help.stdout,
    )
    assert.ok(help.stdout.includes('\n  --fake URL           lease list: a fake:// or fakes:// URL\n'), help.stdout)
    for (const line of help.stdout.split('\n')) assert.ok(line.length <= 95, line)

    const listed = run(['lease', 'list', '--fake', 'fake://h/x', '--namespace', 'orders'])
    assert.equal(listed.stderr, '')
    assert.equal(
      listed.stdout,
      'namespace "orders" in fake://h/x (node:events) at 2030-01-01T00:00:00.000Z by its clock: no marker (never leased, or the store lost it)\n(no leases)\n',
    )
    const misplaced = run(['uuid', '--fake', 'fake://h'])
    assert.equal(misplaced.status, 2)
    assert.equal(misplaced.stderr, 'flake-idgen: --fake applies to lease list only\n')

    // And bin/ names no store: its flags come from the rows. Read from the folder, not through
    // git: the tests also run where no git is (Windows, under Wine).
    const source = fs
      .readdirSync(path.join(root, 'bin'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => fs.readFileSync(path.join(entry.parentPath ?? entry.path, entry.name), 'utf8'))
      .join('\n')
    for (const { name, schemes, clients } of STORES) {
      for (const word of [name, ...schemes, ...clients.map((client) => client.name)])
        assert.doesNotMatch(source, new RegExp(`\\b${word.replace(/[.:]/g, '\\$&')}`, 'i'), word)
    }
  })
})

'use strict'
// `flake-idgen lease list` against real servers (servers.js), as a child process: in the
// repository, whose node_modules has the clients as devDependencies, or in a directory of a
// project without them.

const { describe, it, before, after } = require('node:test')
const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const { setTimeout: sleep } = require('node:timers/promises')
const Redis = require('ioredis')
const pg = require('pg')
const mysql = require('mysql2')
const { noServers, startRedis, startPostgres, startMariadb } = require('../support/servers.js')
const { storeFor } = require('../../lib/lease/store.js')
const zookeeper = require('node-zookeeper-client')
const { startZookeeper } = require('../support/servers.js')

const ROOT = path.join(__dirname, '..', '..')
const BIN = path.join(ROOT, 'bin', 'flake-idgen.js')
const META = '{"layout":"test","epoch":0}'
const CEILING = Date.parse('2030-01-01T00:00:00.000Z')
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

function run(args, cwd = ROOT) {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 15_000,
  })
  return { status, stdout, stderr, lines: stdout.split('\n').filter(Boolean) }
}

let redisServer, pgServer, mariadbServer, ioredis, pgClient, mysqlPool
// A project with no Redis or PostgreSQL client: the temp dir's parents have no node_modules.
const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-lease-cli-'))

before(async () => {
  if (noServers) return
  ;[redisServer, pgServer, mariadbServer] = await Promise.all([startRedis(), startPostgres(), startMariadb()])
  ioredis = new Redis(redisServer.url)
  mysqlPool = mysql.createPool({ uri: mariadbServer.url, connectionLimit: 2 })
  pgClient = new pg.Client({ connectionString: pgServer.url })
  await pgClient.connect()
})

let zookeeperServer

before(async () => {
  if (noServers) return
  zookeeperServer = await startZookeeper()
})

after(() => zookeeperServer?.stop())

after(async () => {
  ioredis?.disconnect()
  await pgClient?.end()
  await new Promise((resolve) => (mysqlPool ? mysqlPool.end(resolve) : resolve()))
  await Promise.all([redisServer, pgServer, mariadbServer].filter(Boolean).map((server) => server.stop()))
  fs.rmSync(empty, { recursive: true, force: true })
})

// The ceilings the last seed() got: the store's time + ahead.
let seeded

/** Three leases on ids 0-2: held, released, and expired. */
async function seed(store, namespace) {
  const base = { namespace, first: 0, last: 2, ttl: 60_000, meta: META, unknownMs: 1_000 }
  const held = await store.acquire({ ...base, owner: 'host-a:11:aaaa', ahead: CEILING - Date.now() })
  const released = await store.acquire({ ...base, owner: 'host-b:22:bbbb', ahead: CEILING - Date.now() })
  const expired = await store.acquire({ ...base, owner: 'host-c:33:cccc', ttl: 1, ahead: CEILING - Date.now() })
  assert.deepEqual([held.id, released.id, expired.id], [0, 1, 2])
  seeded = { held, expired }
  assert.equal(
    (await store.release({ namespace, id: 1, owner: 'host-b:22:bbbb', last: CEILING + 10 })).status,
    'released',
  )
  await sleep(20)
}

function assertListed({ status, stdout, stderr, lines }, { namespace, url, client }) {
  assert.equal(status, 0, stderr)
  assert.equal(stderr, '')
  const head = new RegExp(
    `^namespace "${namespace}" in ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(${client}\\) at (\\S+) by its clock: meta (.*), floor (\\S+)$`,
  )
  const [, now, meta, floor] = head.exec(lines[0]) ?? assert.fail(`first line: ${lines[0]}`)
  assert.match(now, ISO)
  assert.equal(meta, META)
  assert.match(floor, ISO)
  const rows = lines.slice(1).map((line) => line.split(/ {2,}/))
  assert.equal(rows.length, 4, stdout)
  assert.deepEqual(rows[0], ['id', 'holder', 'expires', 'ceiling'])
  assert.deepEqual(rows[1].slice(0, 2), ['0', 'host-a:11:aaaa'])
  const expires = Date.parse(rows[1][2])
  assert.ok(expires > Date.parse(now) && expires <= Date.parse(now) + 60_000, rows[1][2])
  assert.equal(rows[1][3], new Date(seeded.held.ceiling).toISOString())
  assert.deepEqual(rows[2], ['1', '-', 'free', new Date(CEILING + 10).toISOString()])
  assert.deepEqual(rows[3], ['2', 'host-c:33:cccc', 'expired', new Date(seeded.expired.ceiling).toISOString()])
  // Aligned: every column starts where its header does.
  for (const line of lines.slice(2))
    assert.equal(line.indexOf(line.split(/ {2,}/)[1]), lines[1].indexOf('holder'), line)
}

function assertEmpty({ status, stderr, lines }, namespace) {
  assert.equal(status, 0, stderr)
  assert.match(
    lines[0],
    new RegExp(`^namespace "${namespace}" in .* by its clock: no marker \\(never leased, or the store lost it\\)$`),
  )
  assert.deepEqual(lines.slice(1), ['(no leases)'])
}

describe('lease list', { skip: noServers }, () => {
  it("--redis: each id's holder, expiry and ceiling, with ioredis from the project", async () => {
    await seed(storeFor(ioredis), 'orders')
    assertListed(run(['lease', 'list', '--redis', redisServer.url, '--namespace', 'orders']), {
      namespace: 'orders',
      url: redisServer.url,
      client: 'ioredis',
    })
    assertEmpty(run(['lease', 'list', '--namespace', 'none', '--redis', redisServer.url]), 'none')
    // An owner token that could break the table is quoted.
    await storeFor(ioredis).acquire({
      namespace: 'odd',
      first: 5,
      last: 5,
      owner: 'a b\nc',
      ttl: 60_000,
      ahead: 60_000,
      meta: META,
      unknownMs: 1_000,
    })
    const odd = run(['lease', 'list', '--redis', redisServer.url, '--namespace', 'odd'])
    assert.deepEqual(
      odd.lines.slice(2).map((line) => line.split(/ {2,}/).slice(0, 2)),
      [['5', '"a b\\nc"']],
    )
  })

  it("a lease of another layout: the namespace's settings show its layout's key, the ids are its node ids", async () => {
    const FlakeId = require('../..')
    for (const [flag, store, url] of [
      ['--redis', ioredis, redisServer.url],
      ['--mysql', mysqlPool, mariadbServer.url],
      ['--postgres', pgClient, pgServer.url],
    ]) {
      const namespace = `hazelcast${flag}`
      const options = { store, namespace, layout: 'hazelcast', ids: [65534, 65535], ttl: 1000, maxClockSkewMs: 200 }
      const holder = await FlakeId.lease(options)
      try {
        const { status, stderr, lines } = run(['lease', 'list', flag, url, '--namespace', namespace])
        assert.equal(status, 0, stderr)
        const meta = JSON.parse(/ by its clock: meta (.*), floor \S+$/.exec(lines[0])?.[1] ?? assert.fail(lines[0]))
        assert.deepEqual(meta, { layout: '41/seq6/node16', epoch: 1514764800000, ttl: 1000, maxClockSkewMs: 200 })
        assert.deepEqual(
          lines.slice(2).map((line) => line.split(/ {2,}/)[0]),
          [String(holder.id)],
        )
      } finally {
        await holder.close()
      }
    }
  })

  it('--redis: node-redis when the project has redis and not ioredis', async () => {
    const project = fs.mkdtempSync(path.join(empty, 'redis-only-'))
    fs.mkdirSync(path.join(project, 'node_modules'))
    fs.symlinkSync(path.join(ROOT, 'node_modules', 'redis'), path.join(project, 'node_modules', 'redis'), 'dir')
    await seed(storeFor(ioredis), 'node-redis')
    // From a subdirectory: the project is found in the parents, as require finds it.
    const sub = path.join(project, 'src')
    fs.mkdirSync(sub)
    assertListed(run(['lease', 'list', '--redis', redisServer.url, '--namespace', 'node-redis'], sub), {
      namespace: 'node-redis',
      url: redisServer.url,
      client: 'redis',
    })
  })

  it("--postgres: each id's holder, expiry and ceiling, with pg from the project", async () => {
    await seed(storeFor(pgClient), 'orders')
    assertListed(run(['lease', 'list', '--postgres', pgServer.url, '--namespace', 'orders']), {
      namespace: 'orders',
      url: pgServer.url,
      client: 'pg',
    })
    assertEmpty(run(['lease', 'list', '--postgres', pgServer.url, '--namespace', 'none']), 'none')
  })

  it("--mysql: each id's holder, expiry and ceiling, with mysql2 from the project", async () => {
    await seed(storeFor(mysqlPool), 'orders')
    assertListed(run(['lease', 'list', '--mysql', mariadbServer.url, '--namespace', 'orders']), {
      namespace: 'orders',
      url: mariadbServer.url,
      client: 'mysql2',
    })
    assertEmpty(run(['lease', 'list', '--mysql', mariadbServer.url, '--namespace', 'none']), 'none')
    // A database the lease never used: no table, nothing listed, no table made.
    const url = mariadbServer.url.replace(/\/flake$/, '/mysql')
    assertEmpty(run(['lease', 'list', '--mysql', url.replace('mysql://', 'mariadb://'), '--namespace', 'x']), 'x')
    assert.doesNotMatch(String(mariadbServer.sql('SHOW TABLES FROM mysql')), /flake_idgen/)
  })

  it("--zookeeper: each id's holder, expiry and ceiling, with node-zookeeper-client from the project", async (t) => {
    const client = zookeeper.createClient(zookeeperServer.hosts, { retries: 0 })
    const connected = new Promise((resolve) => client.once('connected', resolve))
    client.connect()
    await connected
    // Its holders' znodes are its session's: open while listed.
    t.after(() => client.close())
    await seed(storeFor(client), 'orders')
    const { hosts, port } = zookeeperServer
    assertListed(run(['lease', 'list', '--zookeeper', hosts, '--namespace', 'orders']), {
      namespace: 'orders',
      url: hosts,
      client: 'node-zookeeper-client',
    })
    // Its URL form, several hosts (one down: the client tries the next) and a user's digest
    // credentials, never printed.
    const twice = `zookeeper://u:hunter2@127.0.0.1:1,${hosts}`
    assertListed(run(['lease', 'list', '--zookeeper', twice, '--namespace', 'orders']), {
      namespace: 'orders',
      url: `zookeeper://***@127.0.0.1:1,${hosts}`,
      client: 'node-zookeeper-client',
    })
    // A chroot the lease never used: nothing listed; one that is not there, said so.
    await new Promise((resolve, reject) => client.create('/elsewhere', (error) => (error ? reject(error) : resolve())))
    assertEmpty(run(['lease', 'list', '--zookeeper', `${hosts}/elsewhere`, '--namespace', 'orders']), 'orders')
    const nowhere = run(['lease', 'list', '--zookeeper', `${hosts}/nowhere`, '--namespace', 'orders'])
    assert.equal(nowhere.status, 1)
    assert.equal(
      nowhere.stderr,
      `flake-idgen: cannot list the leases at ${hosts}/nowhere (node-zookeeper-client): the lease store (node-zookeeper-client) found no znode at its client's chroot to make /flake-idgen in: ZooKeeper makes none, make it first\n`,
    )
    // node-zookeeper-client says nothing of a refused connection, and tries again for ever: the
    // command gives up at its connect timeout.
    const refused = run(['lease', 'list', '--zookeeper', 'u:hunter2@127.0.0.1:1', '--namespace', 'orders'])
    assert.equal(refused.status, 1)
    assert.equal(
      refused.stderr,
      'flake-idgen: cannot connect to u:***@127.0.0.1:1 (node-zookeeper-client): no server of 127.0.0.1:1 made a session within 5000 ms\n',
    )
    const bad = run(['lease', 'list', '--zookeeper', `redis://u:hunter2@127.0.0.1:${port}`, '--namespace', 'orders'])
    assert.equal(bad.status, 2)
    assert.equal(
      bad.stderr,
      `flake-idgen: --zookeeper must be host:port[,host:port…][/chroot], or a zookeeper:// URL, got "redis://u:***@127.0.0.1:${port}"\n`,
    )
  })

  it('no client in the project: status 1, one line saying what to install', () => {
    const redis = run(['lease', 'list', '--redis', redisServer.url, '--namespace', 'orders'], empty)
    assert.equal(redis.status, 1)
    assert.equal(redis.stdout, '')
    assert.equal(
      redis.stderr,
      `flake-idgen: lease list --redis needs ioredis or redis installed in your project (npm install ioredis); neither was found from ${fs.realpathSync(empty)}\n`,
    )
    const mysqlRun = run(['lease', 'list', '--mysql', mariadbServer.url, '--namespace', 'orders'], empty)
    assert.equal(mysqlRun.status, 1)
    assert.equal(
      mysqlRun.stderr,
      `flake-idgen: lease list --mysql needs mysql2 installed in your project (npm install mysql2); it was not found from ${fs.realpathSync(empty)}\n`,
    )
    const postgres = run(['lease', 'list', '--postgres', pgServer.url, '--namespace', 'orders'], empty)
    assert.equal(postgres.status, 1)
    assert.equal(
      postgres.stderr,
      `flake-idgen: lease list --postgres needs pg installed in your project (npm install pg); it was not found from ${fs.realpathSync(empty)}\n`,
    )
  })

  it("--mysql with NO_BACKSLASH_ESCAPES: a namespace of SQL (' OR 1=1 -- ) lists only its own records", async () => {
    mariadbServer.sql("SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES')")
    try {
      // The command's session has the mode: a quote escaped with a backslash would end the string.
      await seed(storeFor(mysqlPool), 'sql-mode-others')
      for (const namespace of ["' OR 1=1 -- ", 'it\'s \\ "x" \' OR 1=1 -- ']) {
        const { status, stderr, lines } = run(['lease', 'list', '--mysql', mariadbServer.url, '--namespace', namespace])
        assert.equal(status, 0, stderr)
        assert.ok(lines[0].startsWith(`namespace ${JSON.stringify(namespace)} in `), lines[0])
        assert.match(lines[0], /by its clock: no marker/)
        assert.deepEqual(lines.slice(1), ['(no leases)'])
      }
    } finally {
      mariadbServer.sql("SET GLOBAL sql_mode = REPLACE(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES', '')")
    }
  })

  it("--mysql never prints the secrets of mysql2's `?ssl={...}` JSON (passphrase, key, pfx)", () => {
    const ssl = JSON.stringify({
      passphrase: 'hunter2',
      key: 'hunter2-key',
      pfx: 'hunter2-pfx',
      rejectUnauthorized: false,
    })
    for (const url of [`${mariadbServer.url}?ssl=${encodeURIComponent(ssl)}`, `${mariadbServer.url}?ssl=${ssl}`]) {
      const { status, stdout, stderr } = run(['lease', 'list', '--mysql', url, '--namespace', 'n'])
      assert.ok(status === 0 || status === 1, stderr)
      assert.doesNotMatch(stdout + stderr, /hunter2/, url)
      assert.match(stdout + stderr, /ssl=.*passphrase%22%3A%22\*\*\*%22/, url)
    }
  })

  it('a refused connection: status 1, one line naming the URL without its password', async () => {
    const port = await new Promise((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address()
        server.close(() => resolve(port))
      })
    })
    const cases = [
      ['--redis', `redis://user:s3cret@127.0.0.1:${port}`, `redis://user:***@127.0.0.1:${port} (ioredis)`],
      [
        '--postgres',
        `postgres://user:s3cret@127.0.0.1:${port}/db?password=s3cret`,
        `postgres://user:***@127.0.0.1:${port}/db?password=*** (pg)`,
      ],
      [
        '--mysql',
        `mysql://user:s3cret@127.0.0.1:${port}/db?password=s3cret`,
        `mysql://user:***@127.0.0.1:${port}/db?password=*** (mysql2)`,
      ],
    ]
    for (const [flag, url, shown] of cases) {
      const { status, stdout, stderr } = run(['lease', 'list', flag, url, '--namespace', 'orders'])
      assert.equal(status, 1, stderr)
      assert.equal(stdout, '')
      assert.equal(stderr, `flake-idgen: cannot connect to ${shown}: connect ECONNREFUSED 127.0.0.1:${port}\n`)
    }
  })

  it('bad arguments: status 2, one line on stderr, before any client is looked for', () => {
    const url = ['--redis', 'redis://127.0.0.1:1']
    const cases = [
      [['lease'], 'lease needs a command: list (see --help)'],
      [['lease', 'show'], 'unknown lease command "show" (see --help)'],
      [['lease', 'list', 'extra', ...url, '--namespace', 'n'], 'lease list takes no arguments, got "extra"'],
      [
        ['lease', 'list', '--namespace', 'n'],
        'lease list needs --redis URL or --mysql URL or --postgres URL or --etcd URL or --zookeeper HOSTS (see --help)',
      ],
      [
        ['lease', 'list', ...url, '--postgres', 'postgres://h/db', '--namespace', 'n'],
        'lease list takes --redis or --mysql or --postgres or --etcd or --zookeeper, not more than one',
      ],
      [
        ['lease', 'list', '--mysql', 'postgres://h/db', '--namespace', 'n'],
        '--mysql must be a mysql:// or mariadb:// URL, got "postgres://h/db"',
      ],
      [['lease', 'list', ...url], 'lease list needs --namespace N (see --help)'],
      // FlakeId.lease's own check, in its words.
      [['lease', 'list', ...url, '--namespace', ''], '--namespace must be a string of 1 to 200 characters, got ""'],
      [
        ['lease', 'list', ...url, '--namespace', 'x'.repeat(201)],
        `--namespace must be a string of 1 to 200 characters, got "${'x'.repeat(40)}…"`,
      ],
      [['lease', 'list', '--namespace', 'n', '--namespace', 'm'], '--namespace is given more than once'],
      [['lease', 'list', '--namespace', 'n', '--redis'], '--redis needs a value (see --help)'],
      [
        ['lease', 'list', '--redis', 'localhost:6379', '--namespace', 'n'],
        '--redis must be a redis:// or rediss:// URL, got "localhost:6379"',
      ],
      [
        ['lease', 'list', '--redis', 'http://u:s3cret@h', '--namespace', 'n'],
        '--redis must be a redis:// or rediss:// URL, got "http://u:***@h/"',
      ],
      [
        ['lease', 'list', '--postgres', 'redis://h', '--namespace', 'n'],
        '--postgres must be a postgres:// or postgresql:// URL, got "redis://h"',
      ],
      [['lease', 'list', ...url, '--namespace', 'n', '-n', '3'], '--count does not apply to lease list'],
      [['lease', 'list', '--epoch', '2020-01-01', ...url, '--namespace', 'n'], '--epoch does not apply to lease list'],
      [
        ['lease', 'list', ...url, '--namespace', 'n', '--state-dir', '/tmp'],
        '--state-dir does not apply to lease list',
      ],
      [['--namespace', 'n'], '--namespace applies to serve and lease list only'],
      [['state', ...url], '--redis applies to lease list only'],
      [['decompose', '--postgres', 'postgres://h/db', '1'], '--postgres applies to lease list only'],
    ]
    for (const [args, reason] of cases) {
      const { status, stdout, stderr } = run(args, empty)
      assert.equal(status, 2, `${args.join(' ')}: ${stderr}`)
      assert.equal(stdout, '', args.join(' '))
      assert.equal(stderr, `flake-idgen: ${reason}\n`, args.join(' '))
    }
  })

  it('never prints a password, from a URL that parses or not, or libpq keywords', () => {
    const urls = [
      ['--postgres', 'host=127.0.0.1 password=hunter2'],
      ['--postgres', "host=127.0.0.1 user=u password='hunter2 x' dbname=d"],
      ['--postgres', 'host=127.0.0.1 sslpassword=hunter2'],
      ['--redis', 'redis://:hunter2@[::1'],
      ['--redis', 'redis://user:hunter2@host:99999'],
      ['--postgres', 'postgres://u:hunter2@exa mple.com/db'],
      ['--redis', 'redis://:hunter2@h:port?password=hunter2'],
      ['--redis', 'redis:hunter2@h'],
      ['--postgres', 'http://u:hunter2@h/db?password=hunter2'],
      ['--mysql', 'mysql://u:hunter2@h:port/db'],
      ['--mysql', 'mysql://u:hunter2@127.0.0.1:1/db?password=hunter2'],
    ]
    for (const [flag, url] of urls) {
      const { status, stdout, stderr } = run(['lease', 'list', flag, url, '--namespace', 'n'], empty)
      assert.ok(status === 1 || status === 2, `${url}: ${stderr}`)
      assert.doesNotMatch(stdout + stderr, /hunter2/, url)
      if (status === 2) assert.match(stderr, /\*\*\*/, url)
    }
  })

  it('--help shows it', () => {
    const { status, stdout } = run(['--help'], empty)
    assert.equal(status, 0)
    assert.match(
      stdout.replace(/\s+/g, ' '),
      /flake-idgen lease list \(--redis URL \| --mysql URL \| --postgres URL \| --etcd URL \| --zookeeper HOSTS\) --namespace N/,
    )
    assert.match(stdout, /--namespace N/)
  })
})

'use strict'
// Real Redis, PostgreSQL and MariaDB servers for the lease tests: each on a free loopback port, in a temp
// directory of its own, gone when the test process exits. No mocked store stands in for a server.

const { spawn, execFileSync } = require('node:child_process')
const fs = require('node:fs')
const net = require('node:net')
const os = require('node:os')
const path = require('node:path')
const { UNIT } = require('./unit.js')

// `npm run test:unit` starts no server: a test that needs one is skipped there, and one that
// starts a server without saying so fails.
// The servers are this Linux host's (Debian's redis-server, postgres, mariadbd), run in process
// groups stopped by signals: a Windows Node (CI's, under Wine) cannot start them. What they test,
// the lease code, is platform-neutral JS, which the Linux runs test against them. A reason to
// skip, for `{ skip: noServers }`, or false. Every test that starts a server says it.
const noServers =
  (UNIT && 'needs a Redis, PostgreSQL or MariaDB server: `npm run test:unit` starts none, `npm test` runs it') ||
  (process.platform === 'win32' &&
    'starts the Linux servers (redis-server, postgres, mariadbd) it runs against; the lease code is platform-neutral JS, tested on Linux')

/** Throws, under `npm run test:unit`, for a test that starts a server without `{ skip: noServers }`. */
function refuseInUnit(what) {
  if (UNIT)
    throw new Error(
      `${what}: \`npm run test:unit\` starts no server (FLAKE_IDGEN_UNIT=1); give the test that needs it \`{ skip: noServers }\` (__test__/support/servers.js), and \`npm test\` runs it`,
    )
}

const START_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 10_000

// Every running server process, to kill when the test process goes down whatever the way.
const live = new Set()
let hooked = false

function killAll() {
  for (const server of live) {
    // The whole group: PostgreSQL's backends too, so nothing writes to the directory we remove.
    try {
      process.kill(-server.child.pid, 'SIGKILL')
    } catch {}
    fs.rmSync(server.dir, { recursive: true, force: true })
  }
  live.clear()
}

// A tmpfs, where etcd's fsyncs cost nothing (as Redis runs without persistence, PostgreSQL
// with fsync off): its data is gone with the machine, as a test's should be.
const SHM = fs.existsSync('/dev/shm') ? '/dev/shm' : null

// Directories of servers whose test process was killed (their servers died with it).
function sweep() {
  for (const parent of [os.tmpdir(), SHM].filter(Boolean)) {
    for (const name of fs.readdirSync(parent)) {
      const match = /^flake-(?:redis|pg|mariadb|etcd|zookeeper)-(\d+)-/.exec(name)
      if (!match || Number(match[1]) === process.pid) continue
      try {
        process.kill(Number(match[1]), 0)
      } catch (error) {
        if (error.code === 'ESRCH') fs.rmSync(path.join(parent, name), { recursive: true, force: true })
      }
    }
  }
}

function hook() {
  if (hooked) return
  hooked = true
  sweep()
  process.on('exit', killAll)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      killAll()
      process.kill(process.pid, signal)
    })
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const file = path.join(dir, name)
    try {
      fs.accessSync(file, fs.constants.X_OK)
      return file
    } catch {}
  }
  return null
}

// A test process killed with SIGKILL runs no exit handler: setpriv (util-linux) has the kernel
// kill its servers with it.
const SETPRIV = onPath('setpriv')

function spawnServer(binary, args, options) {
  const child = SETPRIV
    ? spawn(SETPRIV, ['--pdeathsig', 'KILL', binary, ...args], options)
    : spawn(binary, args, options)
  child.on('error', () => {})
  return child
}

function missing(binary, pkg) {
  return new Error(
    `${binary} not found: the lease tests need a real server, install it with \`apt-get install ${pkg}\``,
  )
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Sends one command over RESP and resolves with the raw reply (enough for PING and INFO). */
function redisCommand(port, args, timeoutMs = 1000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let reply = ''
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('timeout')))
    socket.on('connect', () => {
      socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`)
    })
    socket.on('data', (chunk) => {
      reply += chunk
      // A simple string, an error, an integer, or a complete bulk string.
      const bulk = /^\$(\d+)\r\n/.exec(reply)
      if (bulk ? reply.length >= bulk[0].length + Number(bulk[1]) + 2 : reply.endsWith('\r\n')) {
        socket.end()
        resolve(reply)
      }
    })
    socket.on('error', reject)
  })
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null
}

function waitExit(child, ms) {
  if (exited(child)) return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

async function until(what, server, logFile, check) {
  const deadline = Date.now() + START_TIMEOUT_MS
  let last
  for (;;) {
    if (exited(server.child)) break
    try {
      if (await check()) return
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) break
    await sleep(50)
  }
  let log = ''
  try {
    log = fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n')
  } catch {}
  const state = exited(server.child)
    ? `it exited (${server.child.exitCode ?? server.child.signalCode})`
    : `not within ${START_TIMEOUT_MS} ms`
  throw new Error(`${what} did not start: ${state}${last ? `, last error: ${last.message}` : ''}\n${log}`)
}

async function kill(server) {
  if (!server.child || exited(server.child)) return
  try {
    process.kill(-server.child.pid, 'SIGKILL')
  } catch {}
  await waitExit(server.child, STOP_TIMEOUT_MS)
}

/**
 * Starts Debian's redis-server without persistence on a free loopback port.
 * `replicaOf: { port }` makes it a replica of that server, and waits until its link is up.
 * `cluster: true` makes it a Redis Cluster node that serves every slot, `cluster: { slots:
 * [from, to], meet }` one that serves those slots and joins node `meet`; with `replicaOf` (a
 * cluster node) it serves none and is that node's replica. `clusterReady()` waits until the
 * cluster serves every slot.
 * restart() brings it back on the same port with an empty dataset, as Redis without persistence
 * comes back after a crash; kill() leaves it down.
 */
async function startRedis({ replicaOf, cluster = false } = {}) {
  refuseInUnit('redis-server')
  const binary = onPath('redis-server') || (fs.existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : null)
  if (!binary) throw missing('redis-server', 'redis-server')
  hook()
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `flake-redis-${process.pid}-`))
  const logFile = path.join(dir, 'redis.log')
  const server = { dir, child: null }
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--logfile',
    logFile,
    '--repl-diskless-sync-delay',
    '0',
  ]
  if (cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, 'nodes.conf'))
  else if (replicaOf) args.push('--replicaof', '127.0.0.1', String(replicaOf.port))
  const ask = async (...command) => {
    const reply = await redisCommand(port, command)
    if (reply.startsWith('-')) throw new Error(`${command.join(' ')}: ${reply.trim()}`)
    return reply
  }

  async function start() {
    server.child = spawnServer(binary, args, { stdio: 'ignore', detached: true })
    live.add(server)
    await until(`redis-server on port ${port}`, server, logFile, async () =>
      (await redisCommand(port, ['PING'])).startsWith('+PONG'),
    )
    if (cluster && replicaOf) {
      const master = (await redisCommand(replicaOf.port, ['CLUSTER', 'MYID'])).split('\r\n')[1]
      await ask('CLUSTER', 'MEET', '127.0.0.1', String(replicaOf.port))
      await until(`redis cluster node on port ${port}`, server, logFile, async () =>
        (await ask('CLUSTER', 'NODES')).includes(master),
      )
      await until(`redis cluster replica on port ${port}`, server, logFile, async () =>
        (await ask('CLUSTER', 'REPLICATE', master)).startsWith('+OK'),
      )
    } else if (cluster) {
      const [from, to] = cluster === true ? [0, 16383] : cluster.slots
      if (/cluster_slots_assigned:0\r/.test(await ask('CLUSTER', 'INFO')))
        await ask('CLUSTER', 'ADDSLOTSRANGE', String(from), String(to))
      if (cluster.meet) await ask('CLUSTER', 'MEET', '127.0.0.1', String(cluster.meet.port))
      if (cluster === true) await clusterReady()
    }
    if (replicaOf) {
      await until(`redis replica on port ${port}`, server, logFile, async () =>
        /master_link_status:up/.test(await redisCommand(port, ['INFO', 'replication'])),
      )
    }
  }

  async function clusterReady() {
    await until(`redis cluster on port ${port}`, server, logFile, async () =>
      /cluster_state:ok/.test(await ask('CLUSTER', 'INFO')),
    )
  }

  await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    /** The server's process id (setpriv execs it), to pause it with SIGSTOP. */
    get pid() {
      return server.child.pid
    },
    clusterReady,
    async kill() {
      await kill(server)
    },
    async restart() {
      await kill(server)
      await start()
    },
    async stop() {
      await kill(server)
      live.delete(server)
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

function postgresBinaries() {
  const find = (name) => {
    const found = onPath(name)
    if (found) return found
    let versions = []
    try {
      versions = fs.readdirSync('/usr/lib/postgresql').filter((v) => /^\d+(\.\d+)?$/.test(v))
    } catch {}
    versions.sort((a, b) => Number(b) - Number(a))
    for (const version of versions) {
      const file = path.join('/usr/lib/postgresql', version, 'bin', name)
      if (fs.existsSync(file)) return file
    }
    throw missing(name, 'postgresql')
  }
  return { initdb: find('initdb'), postgres: find('postgres') }
}

/**
 * Starts a throwaway PostgreSQL (initdb, trust auth, fsync off) on a free loopback port.
 * PostgreSQL refuses to run as root: as root, the directory and the processes are the
 * `postgres` user's.
 */
async function startPostgres() {
  refuseInUnit('PostgreSQL')
  const bin = postgresBinaries()
  hook()
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `flake-pg-${process.pid}-`))
  const data = path.join(dir, 'data')
  const logFile = path.join(dir, 'postgres.log')
  const server = { dir, child: null }
  live.add(server)

  let user = {}
  if (process.getuid && process.getuid() === 0) {
    let uid, gid
    try {
      uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }))
      gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }))
    } catch {
      throw new Error(
        'running as root, PostgreSQL needs the `postgres` user to run as: install it with `apt-get install postgresql`',
      )
    }
    fs.chownSync(dir, uid, gid)
    // Node sets the ids itself (and drops root's groups): the pid we hold is postgres's own.
    user = { uid, gid, env: { ...process.env, HOME: dir } }
  }
  fs.writeFileSync(logFile, '')
  if (user.uid !== undefined) fs.chownSync(logFile, user.uid, user.gid)

  try {
    execFileSync(bin.initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], {
      stdio: 'pipe',
      cwd: dir,
      ...user,
    })
  } catch (error) {
    throw new Error(`initdb failed: ${error.stderr ? error.stderr.toString().trim() : error.message}`)
  }
  const log = fs.openSync(logFile, 'a')
  server.child = spawnServer(
    bin.postgres,
    [
      '-D',
      data,
      '-k',
      dir,
      '-p',
      String(port),
      '-h',
      '127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    { stdio: ['ignore', log, log], detached: true, cwd: dir, ...user },
  )
  fs.closeSync(log)
  // postmaster.pid's eighth line turns to "ready" once it accepts connections.
  await until(`postgres on port ${port}`, server, logFile, async () => {
    const lines = fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')
    if (lines[7] === undefined || lines[7].trim() !== 'ready') return false
    await new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(resolve))
      socket.on('error', reject)
    })
    return true
  })

  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** The postmaster's pid, and its process group's: the backends' too (a test may SIGSTOP them all). */
    get pid() {
      return server.child.pid
    },
    async stop() {
      // Smart shutdown first: it lets clients that are closing (pg's Pool.end() resolves before
      // its sockets close) say goodbye, where a fast one would hand them an 'error' event. Then
      // fast, then SIGKILL.
      for (const [signal, ms] of [
        ['SIGTERM', 3000],
        ['SIGINT', STOP_TIMEOUT_MS],
      ]) {
        if (!server.child || exited(server.child)) break
        try {
          process.kill(server.child.pid, signal)
        } catch {}
        await waitExit(server.child, ms)
      }
      await kill(server)
      live.delete(server)
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

function mariadbBinaries() {
  const find = (name) =>
    onPath(name) || ['/usr/sbin', '/usr/bin'].map((dir) => path.join(dir, name)).find(fs.existsSync)
  const server = find('mariadbd')
  const install = find('mariadb-install-db')
  const client = find('mariadb')
  if (!server || !install || !client) throw missing('mariadbd', 'mariadb-server')
  return { server, install, client }
}

/**
 * Starts Debian's MariaDB (mariadb-install-db, root without a password, InnoDB) on a free
 * loopback port, with an empty database `flake`. Commits reach the OS, not the disk
 * (innodb_flush_log_at_trx_commit 2): a killed server loses nothing, a crashed machine might.
 * As root, it runs as root (mariadbd's --user=root). restart() kills it with SIGKILL and starts
 * it again on its data (InnoDB's crash recovery), as a crashed server comes back.
 */
async function startMariadb() {
  refuseInUnit('MariaDB')
  const bin = mariadbBinaries()
  hook()
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `flake-mariadb-${process.pid}-`))
  const data = path.join(dir, 'data')
  const socket = path.join(dir, 'mariadb.sock')
  const logFile = path.join(dir, 'error.log')
  const server = { dir, child: null }
  live.add(server)
  const root = process.getuid && process.getuid() === 0 ? ['--user=root'] : []
  try {
    execFileSync(
      bin.install,
      [
        '--no-defaults',
        `--datadir=${data}`,
        // Its temporary tables in its own directory, not the /tmp of every server and test beside
        // it (a bootstrap once found its own temporary table gone from /tmp).
        `--tmpdir=${dir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...root,
      ],
      { stdio: 'pipe', cwd: dir },
    )
  } catch (error) {
    throw new Error(`mariadb-install-db failed: ${error.stderr ? error.stderr.toString().trim() : error.message}`)
  }
  const args = [
    '--no-defaults',
    ...root,
    `--datadir=${data}`,
    `--tmpdir=${dir}`,
    `--socket=${socket}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--pid-file=${path.join(dir, 'mariadb.pid')}`,
    `--log-error=${logFile}`,
    '--skip-log-bin',
    '--innodb-buffer-pool-size=32M',
    '--innodb-log-file-size=16M',
    '--innodb-flush-log-at-trx-commit=2',
    '--max-connections=1000',
    // The bench reads each statement's time from it.
    '--performance-schema=ON',
  ]
  const sql = (statement) =>
    execFileSync(bin.client, ['--no-defaults', `--socket=${socket}`, '-u', 'root', '-e', statement], {
      stdio: 'pipe',
      maxBuffer: 256 * 1024 * 1024,
    })

  async function start() {
    server.child = spawnServer(bin.server, args, { stdio: 'ignore', detached: true, cwd: dir })
    await until(`mariadbd on port ${port}`, server, logFile, async () => {
      await new Promise((resolve, reject) => {
        const probe = net.connect(port, '127.0.0.1', () => probe.end(resolve))
        probe.on('error', reject)
      })
      sql('SELECT 1')
      return true
    })
  }

  await start()
  sql('CREATE DATABASE IF NOT EXISTS flake')
  return {
    port,
    url: `mysql://root@127.0.0.1:${port}/flake`,
    /** mariadbd's pid (a test may SIGSTOP it). */
    get pid() {
      return server.child.pid
    },
    /** Runs SQL statements as root, with the mariadb client. */
    sql,
    async restart() {
      await kill(server)
      await start()
    },
    async stop() {
      if (server.child && !exited(server.child)) {
        try {
          process.kill(server.child.pid, 'SIGTERM')
        } catch {}
        await waitExit(server.child, STOP_TIMEOUT_MS)
      }
      await kill(server)
      live.delete(server)
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Starts Debian's etcd 3.4 (package etcd-server), one member, on free loopback client and peer
 * ports. Heartbeats of 10 ms and elections of 100 ms make its shortest lease 1 s (etcd's floor is
 * 1.5 elections); a member alone never holds an election after its first. restart() brings it
 * back on the same ports without its data, as a member whose disk was lost; kill() leaves it down.
 */
async function startEtcd() {
  refuseInUnit('etcd')
  const binary = onPath('etcd') || (fs.existsSync('/usr/bin/etcd') ? '/usr/bin/etcd' : null)
  if (!binary) throw missing('etcd', 'etcd-server')
  hook()
  const [port, peerPort] = [await freePort(), await freePort()]
  const dir = fs.mkdtempSync(path.join(SHM ?? os.tmpdir(), `flake-etcd-${process.pid}-`))
  const data = path.join(dir, 'data')
  const logFile = path.join(dir, 'etcd.log')
  const server = { dir, child: null }
  const client = `http://127.0.0.1:${port}`
  const peer = `http://127.0.0.1:${peerPort}`
  const args = [
    '--name',
    'flake',
    '--data-dir',
    data,
    '--listen-client-urls',
    client,
    '--advertise-client-urls',
    client,
    '--listen-peer-urls',
    peer,
    '--initial-advertise-peer-urls',
    peer,
    '--initial-cluster',
    `flake=${peer}`,
    '--heartbeat-interval',
    '10',
    '--election-timeout',
    '100',
    '--log-level',
    'warn',
    // Each gRPC method's handling time, which the bench reads as etcd's own time (bench/leases.js).
    '--metrics',
    'extensive',
  ]
  // Ready once it serves a linearizable read: /health asks the raft leader.
  const healthy = () =>
    new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /health HTTP/1.0\r\n\r\n'))
      let reply = ''
      socket.setTimeout(1000, () => socket.destroy(new Error('timeout')))
      socket.on('data', (chunk) => {
        reply += chunk
      })
      socket.on('end', () => resolve(/"health":\s*"true"/.test(reply)))
      socket.on('error', reject)
    })

  async function start() {
    const log = fs.openSync(logFile, 'a')
    server.child = spawnServer(binary, args, { stdio: ['ignore', log, log], detached: true, cwd: dir })
    fs.closeSync(log)
    live.add(server)
    await until(`etcd on port ${port}`, server, logFile, healthy)
  }

  await start()
  return {
    port,
    url: `etcd://127.0.0.1:${port}`,
    hosts: client,
    /** etcd's pid (a test may SIGSTOP it). */
    get pid() {
      return server.child.pid
    },
    async kill() {
      await kill(server)
    },
    async restart() {
      await kill(server)
      fs.rmSync(data, { recursive: true, force: true })
      await start()
    },
    async stop() {
      await kill(server)
      live.delete(server)
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Debian's ZooKeeper (package zookeeper): its jar, the JRE it runs on, and slf4j's stderr logger if there. */
function zookeeperFiles() {
  const jar = '/usr/share/java/zookeeper.jar'
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : onPath('java')
  if (!fs.existsSync(jar) || !java || !fs.existsSync(java)) throw missing('zookeeper.jar or java', 'zookeeper')
  // The jar's manifest names its dependencies; a logger binding it leaves to the app.
  const logger = '/usr/share/java/slf4j-simple.jar'
  return { java, classpath: [jar, ...(fs.existsSync(logger) ? [logger] : [])].join(path.delimiter) }
}

/**
 * Starts Debian's ZooKeeper 3.8 standalone (ZooKeeperServerMain, its admin server off, no fsync)
 * on a free loopback port, ticks of 200 ms: sessions of 0.4 to 4 s, so that a killed holder's
 * ephemeral znodes go within 4 s. restart() kills it and brings it back on the same port without
 * its data, as a server whose disk was lost, or with it (`{ keep: true }`), as a crash;
 * kill() leaves it down.
 */
async function startZookeeper() {
  refuseInUnit('ZooKeeper')
  const { java, classpath } = zookeeperFiles()
  hook()
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `flake-zookeeper-${process.pid}-`))
  const data = path.join(dir, 'data')
  const config = path.join(dir, 'zoo.cfg')
  const logFile = path.join(dir, 'zookeeper.log')
  const server = { dir, child: null }
  fs.writeFileSync(
    config,
    [
      'tickTime=200',
      `dataDir=${data}`,
      `clientPort=${port}`,
      'clientPortAddress=127.0.0.1',
      'admin.enableServer=false',
      'forceSync=no',
      '4lw.commands.whitelist=ruok',
      'maxClientCnxns=0',
    ].join('\n'),
  )
  const ruok = () =>
    new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('ruok'))
      let reply = ''
      socket.setTimeout(1000, () => socket.destroy(new Error('timeout')))
      socket.on('data', (chunk) => {
        reply += chunk
      })
      socket.on('end', () => resolve(reply === 'imok'))
      socket.on('error', reject)
    })

  async function start() {
    fs.mkdirSync(data, { recursive: true })
    const log = fs.openSync(logFile, 'a')
    // A small heap: it starts in about half a second.
    const args = ['-Xmx256m', '-XX:+UseSerialGC', '-cp', classpath]
    server.child = spawnServer(java, [...args, 'org.apache.zookeeper.server.ZooKeeperServerMain', config], {
      stdio: ['ignore', log, log],
      detached: true,
      cwd: dir,
    })
    fs.closeSync(log)
    live.add(server)
    await until(`zookeeper on port ${port}`, server, logFile, ruok)
  }

  await start()
  return {
    port,
    hosts: `127.0.0.1:${port}`,
    url: `zookeeper://127.0.0.1:${port}`,
    /** The JVM's pid (a test may SIGSTOP it). */
    get pid() {
      return server.child.pid
    },
    async kill() {
      await kill(server)
    },
    async restart({ keep = false } = {}) {
      await kill(server)
      if (!keep) fs.rmSync(data, { recursive: true, force: true })
      await start()
    },
    async stop() {
      await kill(server)
      live.delete(server)
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

module.exports = { noServers, startRedis, startPostgres, startMariadb, startEtcd, startZookeeper }

'use strict'
// A lease holder in a process of its own, for lease-suite.js: killed with SIGKILL, paused, or
// run against a store that restarts. It writes what it issued to a file, synchronously, before
// the ids could be used anywhere, so that a kill loses none that "was seen":
//   F <id> <floor> <ceiling>    a fence: the lease it issues under from now on
//   I <ceiling> <id> <id> ...   ids issued (decimal), none past the ceiling in force then
//   P <count> <last id> <ceiling> <code>   pause mode: what it issued while its loop was blocked
//   L <code>                    a lease lost (onLost), by the error's code

const fs = require('node:fs')
const FlakeId = require('../..')

const config = JSON.parse(process.argv[2])
// Gone with the test file that started it: a file that times out is killed, and its holders
// left running would go on writing to the store (and load the machine) for the files after it.
const parent = process.ppid
setInterval(() => process.ppid !== parent && process.exit(0), 500).unref()
const out = fs.openSync(config.out, 'a')
const write = (line) => fs.writeSync(out, `${line}\n`)

async function client() {
  if (config.kind === 'redis') {
    const Redis = require('ioredis')
    const redis = new Redis(config.url, { maxRetriesPerRequest: 1 })
    redis.on('error', () => {})
    return redis
  }
  if (config.kind === 'mysql') {
    const mysql = require('mysql2')
    const pool = mysql.createPool({ uri: config.url, connectionLimit: 2 })
    pool.on('error', () => {})
    return pool
  }
  if (config.kind === 'zookeeper') {
    const client = require('node-zookeeper-client').createClient(config.url, { retries: 0 })
    const connected = new Promise((resolve) => client.once('connected', resolve))
    client.connect()
    await connected
    return client
  }
  if (config.kind === 'etcd') return require('./etcd-client.js').etcdClient(config.url)
  const { Pool } = require('pg')
  const pool = new Pool({ connectionString: config.url, max: 2 })
  pool.on('error', () => {})
  return pool
}

async function main() {
  const generator = await FlakeId.lease({
    store: await client(),
    namespace: config.namespace,
    ids: config.ids,
    ttl: config.ttl,
    maxClockSkewMs: config.maxClockSkewMs,
    onLost: (error) => write(`L ${error.code}`),
  })
  let fence
  const noteFence = () => {
    const now = generator.lease
    if (now !== undefined && (fence === undefined || now.floor !== fence.floor || now.id !== fence.id)) {
      fence = now
      write(`F ${now.id} ${now.floor} ${now.ceiling}`)
    }
    return now
  }
  if (config.mode === 'pause') {
    const { ceiling } = noteFence()
    // The event loop blocked: no renewal can run, the lease expires in the store meanwhile.
    const until = Date.now() + config.pauseMs
    let count = 0
    let last = 0n
    let code = 'none'
    while (Date.now() < until) {
      try {
        last = generator.nextBigInt()
        count++
      } catch (error) {
        if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') code = error.code
      }
    }
    write(`P ${count} ${last} ${ceiling} ${code}`)
    process.exit(0)
  }
  const tick = () => {
    const now = noteFence()
    if (now !== undefined) {
      const ids = []
      for (let i = 0; i < 40; i++) {
        try {
          ids.push(generator.nextBigInt())
        } catch (error) {
          if (!/^ERR_FLAKE_(SEQUENCE_OVERFLOW|LEASE_EXPIRED|CLOCK_BACKWARDS)$/.test(error.code)) throw error
          break
        }
      }
      if (ids.length > 0) write(`I ${now.ceiling} ${ids.join(' ')}`)
    }
    setTimeout(tick, 2)
  }
  tick()
}

main().catch((error) => {
  write(`X ${error.code} ${error.message}`)
  process.exit(1)
})

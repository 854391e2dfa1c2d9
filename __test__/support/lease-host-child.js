'use strict'
// Generators of one generator id in a process of its own, for lease-host-state.test.js: leases
// of the id from Redis (one per namespace given) and a plain `new FlakeId({ id })`, or the
// plain one alone. It says it is ready (a JSON line in `ready`: each generator's scope and
// fence), waits for the file `go`, issues ids from every generator in turn for `ms` ms, and
// writes each generator's ids to `<out>-<k>.bin` (bigints in the machine's byte order) for the
// test to count: ids are never compared here.
//
// config: { url, id, ms, out, ready, go, leases: [{ namespace, scope }], plain: { scope } | null,
//   copy: the plain generator from a second copy of the package's JS in this thread (Jest),
//   maxClockSkewMs: the leases' (200 by default) }

const fs = require('node:fs')
const path = require('node:path')
const { setTimeout: sleep, setImmediate: turn } = require('node:timers/promises')

const config = JSON.parse(process.argv[2])
const root = path.join(__dirname, '..', '..')
const FlakeId = require(root)

/** A second copy of the package's JS, as a test runner's fresh module registry loads it. */
function secondCopy() {
  for (const key of Object.keys(require.cache)) {
    if (key !== __filename && !key.endsWith('.node')) delete require.cache[key]
  }
  return require(root)
}

/** A growable list of bigints. */
class Ids {
  constructor() {
    this.ids = new BigUint64Array(1 << 16)
    this.length = 0
  }

  push(id) {
    if (this.length === this.ids.length) {
      const more = new BigUint64Array(this.ids.length * 2)
      more.set(this.ids)
      this.ids = more
    }
    this.ids[this.length++] = id
  }

  bytes() {
    return Buffer.from(this.ids.buffer, 0, this.length * 8)
  }
}

async function main() {
  const generators = []
  let redis
  if (config.leases.length > 0) {
    const Redis = require('ioredis')
    redis = new Redis(config.url, { maxRetriesPerRequest: 1 })
    redis.on('error', () => {})
    const leased = await Promise.all(
      config.leases.map(({ namespace, scope }) =>
        FlakeId.lease({
          store: redis,
          namespace,
          ids: [config.id, config.id],
          ttl: 2000,
          maxClockSkewMs: config.maxClockSkewMs ?? 200,
          ...(scope === undefined ? {} : { scope }),
        }),
      ),
    )
    generators.push(...leased)
  }
  if (config.plain !== null) {
    const Plain = config.copy ? secondCopy() : FlakeId
    generators.push(new Plain({ id: config.id, ...config.plain }))
  }
  const ids = generators.map(() => new Ids())
  const errors = {}
  fs.writeFileSync(
    config.ready,
    `${JSON.stringify({ scopes: generators.map((g) => g.scope), fences: generators.map((g) => g.lease ?? null) })}\n`,
  )
  // A test that failed never says go: this process does not outlive it for long.
  const given = Date.now() + 120_000
  while (!fs.existsSync(config.go)) {
    if (Date.now() > given) throw new Error('no word to go')
    await sleep(2)
  }
  const end = Date.now() + config.ms
  while (Date.now() < end) {
    // Bursts between turns of the event loop: the leases' renewals run meanwhile.
    for (let i = 0; i < 3000; i++) {
      const k = i % generators.length
      try {
        ids[k].push(generators[k].nextBigInt())
      } catch (error) {
        // An instance's own overflow, another's clock ahead, a lease past its ceiling (a machine
        // too busy to renew it): as a user's loop, it goes on.
        errors[error.code] = (errors[error.code] ?? 0) + 1
        if (!/^ERR_FLAKE_(SEQUENCE_OVERFLOW|SEQUENCE_BUSY|CLOCK_BACKWARDS|LEASE_EXPIRED)$/.test(error.code)) throw error
      }
    }
    await turn()
  }
  for (const [k, list] of ids.entries()) fs.writeFileSync(`${config.out}-${k}.bin`, list.bytes())
  const fences = generators.map((g) => g.lease ?? null)
  await Promise.all(generators.map((g) => g.close?.()))
  redis?.disconnect()
  fs.writeFileSync(config.ready, `${JSON.stringify({ done: true, fences, errors })}\n`, { flag: 'a' })
}

main().catch((error) => {
  fs.writeFileSync(config.ready, `${JSON.stringify({ error: `${error.code} ${error.stack}` })}\n`, { flag: 'a' })
  process.exit(1)
})

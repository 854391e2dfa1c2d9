'use strict'
// Issue 33, item 2: @sapphire/snowflake's epochs (bigints, numbers and Dates: its constructor's
// `number | bigint | Date`) are taken wherever an epoch is: the `epoch` option, a layout's
// `epoch`, decompose's and fromTime's options, a lease's. Its own tests
// (sapphiredev/utilities, packages/snowflake/tests/lib/{Snowflake,DiscordSnowflake,
// TwitterSnowflake}.test.ts), ported: each `new Snowflake(epoch)` is a generator of Discord's bits
// with that epoch (sapphire's defaults: workerId 0, processId 1), each fake system time a
// `clock`, each deconstruct() a decompose().

const test = require('node:test')
const assert = require('node:assert/strict')
const { DiscordSnowflake, TwitterSnowflake } = require('@sapphire/snowflake')
const FlakeId = require('../..')
const { noServers, startRedis } = require('../support/servers.js')

// 2020-01-01, as sapphire's tests write it.
const sampleEpoch = 1577836800000n
const systemTime = Date.parse('2020-01-01T00:00:00.000+00:00')
// Every form sapphire's constructor takes, of one epoch.
const forms = (epoch) => [epoch, Number(epoch), new Date(Number(epoch))]
const at = (time) => () => (time instanceof Date ? time.getTime() : time)

/** A generator as `new Snowflake(epoch)` generates: Discord's bits, workerId 0, processId 1. */
const snowflake = (epoch, time) => new FlakeId({ layout: 'discord', epoch, worker: 0, process: 1, clock: at(time) })

/** What sapphire's deconstruct() gives, from our decompose() of `id` by `options`. */
function deconstruct(id, options) {
  const parts = FlakeId.decompose(id, options)
  const [workerId, processId] =
    options.layout === 'twitter' ? [parts.datacenter, parts.worker] : [parts.worker, parts.process]
  return {
    id: BigInt(id),
    timestamp: BigInt(parts.timestamp),
    workerId: BigInt(workerId),
    processId: BigInt(processId),
    increment: BigInt(parts.sequence),
    epoch: BigInt(FlakeId.layout({ ...FlakeId.layout(options.layout), epoch: options.epoch }).epoch),
  }
}

test('Snowflake epoch: GIVEN a bigint, number or Date THEN the epoch is 1577836800000', () => {
  for (const epoch of forms(sampleEpoch)) {
    assert.equal(BigInt(snowflake(epoch, systemTime).epoch), sampleEpoch)
    assert.equal(BigInt(FlakeId.layout({ ...FlakeId.layout('discord'), epoch }).epoch), sampleEpoch)
  }
})

test('Snowflake generate: GIVEN timestamp as number or Date THEN returns predefined snowflake', () => {
  for (const epoch of forms(sampleEpoch)) {
    assert.equal(snowflake(epoch, 2524608000000).nextString(), '3971046231244804096')
    assert.equal(snowflake(epoch, new Date(2524608000000)).nextString(), '3971046231244804096')
    // GIVEN no options: the fake system time.
    assert.equal(snowflake(epoch, systemTime).nextString(), '4096')
  }
})

test('Snowflake deconstruct/decode/timestampFrom: GIVEN id as string or bigint THEN returns data about snowflake', () => {
  for (const epoch of forms(sampleEpoch)) {
    const options = { layout: 'discord', epoch }
    assert.deepEqual(deconstruct('3971046231244935169', options), {
      id: 3971046231244935169n,
      timestamp: 2524608000000n,
      workerId: 1n,
      processId: 1n,
      increment: 1n,
      epoch: 1577836800000n,
    })
    assert.deepEqual(deconstruct(3971046231244935168n, options), {
      id: 3971046231244935168n,
      timestamp: 2524608000000n,
      workerId: 1n,
      processId: 1n,
      increment: 0n,
      epoch: 1577836800000n,
    })
    assert.equal(FlakeId.decompose('3971046231244935169', options).timestamp, 2524608000000)
    assert.equal(FlakeId.decompose(3971046231244935168n, options).timestamp, 2524608000000)
    // fromTime reads the epoch as decompose does.
    assert.equal(FlakeId.fromTime(2524608000000, options), 3971046231244935168n & ~((1n << 22n) - 1n))
  }
})

test('DiscordSnowflake: generate and deconstruct, with its bigint epoch', () => {
  assert.equal(typeof DiscordSnowflake.epoch, 'bigint')
  const generator = new FlakeId({
    layout: 'discord',
    epoch: DiscordSnowflake.epoch,
    worker: 0,
    process: 1,
    clock: at(systemTime),
  })
  assert.equal(generator.nextString(), '661720242585604096')
  const expected = {
    id: 661720242585735168n,
    timestamp: 1577836800000n,
    workerId: 1n,
    processId: 1n,
    increment: 0n,
    epoch: 1420070400000n,
  }
  for (const id of ['661720242585735168', 661720242585735168n]) {
    assert.deepEqual(deconstruct(id, { layout: 'discord', epoch: DiscordSnowflake.epoch }), expected)
  }
})

test('TwitterSnowflake: generate and deconstruct, with its bigint epoch', () => {
  assert.equal(typeof TwitterSnowflake.epoch, 'bigint')
  const generator = new FlakeId({
    layout: 'twitter',
    epoch: TwitterSnowflake.epoch,
    datacenter: 0,
    worker: 1,
    clock: at(systemTime),
  })
  assert.equal(generator.nextString(), '1212161512043450368')
  const expected = {
    id: 1823945883910279168n,
    timestamp: 1723697560657n,
    workerId: 1n,
    processId: 1n,
    increment: 0n,
    epoch: 1288834974657n,
  }
  for (const id of ['1823945883910279168', 1823945883910279168n]) {
    assert.deepEqual(deconstruct(id, { layout: 'twitter', epoch: TwitterSnowflake.epoch }), expected)
  }
})

test('a bigint epoch out of range is refused, naming the option', () => {
  for (const epoch of [-1n, 2n ** 53n, BigInt(Date.now() + 3_600_000)]) {
    assert.throws(() => new FlakeId({ epoch }), { code: 'ERR_FLAKE_INVALID_OPTION', name: 'RangeError' }, String(epoch))
  }
  assert.throws(() => FlakeId.decompose(1n, { epoch: -1n }), {
    code: 'ERR_FLAKE_INVALID_OPTION',
    message: /^option `epoch`/,
  })
  assert.throws(() => FlakeId.layout({ timeBits: 42, nodeBits: 10, sequenceBits: 12, epoch: -1n }), {
    code: 'ERR_FLAKE_INVALID_OPTION',
    message: /^option `layout.epoch`/,
  })
})

test("a lease takes sapphire's bigint epoch, as its generator's", { skip: noServers }, async (t) => {
  const redis = await startRedis()
  const Redis = require('ioredis')
  const client = new Redis(redis.url)
  t.after(async () => {
    client.disconnect()
    await redis.stop()
  })
  const generator = await FlakeId.lease({
    store: client,
    namespace: 'sapphire-epoch',
    layout: 'discord',
    epoch: DiscordSnowflake.epoch,
    // The first lease of a namespace waits ttl + maxClockSkewMs: 1.3 s.
    ttl: 300,
  })
  try {
    assert.equal(generator.epoch, Number(DiscordSnowflake.epoch))
    const id = generator.nextBigInt()
    const theirs = DiscordSnowflake.deconstruct(id)
    assert.ok(Math.abs(Number(theirs.timestamp) - Date.now()) < 60_000, `${theirs.timestamp}`)
  } finally {
    await generator.close()
  }
})

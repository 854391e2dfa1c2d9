// Layouts (issue 23): the `layout` option, the resolved layout, and what decompose reads per layout.
import FlakeId = require('../..')

// Each preset by name; the layout's own parts as options.
const discord = new FlakeId({ layout: 'discord', worker: 1, process: '0', datacenter: null })
const twitter = new FlakeId({ layout: 'twitter', datacenter: 3, worker: 7 })
const sonyflake = new FlakeId({ layout: 'sonyflake', id: 65_535 })
const hazelcast = new FlakeId({ layout: 'hazelcast', id: 42, allowedFutureMs: 15_000 })
const instagram = new FlakeId({ layout: 'instagram', id: 8191, epoch: 1314220021721 })
const snowcast = new FlakeId({ layout: 'snowcast', id: 1234 })
const explicitDefault = new FlakeId({ layout: 'flake-idgen', datacenter: 1, worker: 2 })
const nullLayout = new FlakeId({ layout: null, worker: 2 })
// snowcast's 128-node form: 7 node bits, the other 16 to the counter.
const custom = new FlakeId({
  layout: { timeBits: 41, nodeBits: 7, sequenceBits: 16, epoch: new Date('2014-01-01T00:00:00Z') },
  id: 127,
})
const tenMs = new FlakeId({
  layout: { timeBits: 39, timeUnitMs: 10, nodeBits: 16, sequenceBits: 8, order: 'sequence-node', epoch: 0 },
})

// The resolved layout, as FlakeId.layout() and the instance give it.
const resolved: FlakeId.Layout<'sonyflake'> = FlakeId.layout('sonyflake')
const resolvedName: 'sonyflake' = resolved.name
const unit: number = resolved.timeUnitMs
const limits: number[] = [resolved.maxId, resolved.idsPerUnit, resolved.maxAllowedFutureMs, resolved.lastTimestamp]
const key: string = resolved.key
const order: 'node-sequence' | 'sequence-node' = resolved.order
const customName: 'custom' = FlakeId.layout({ timeBits: 41, nodeBits: 13, sequenceBits: 10 }).name
const anyLayout: FlakeId.Layout = FlakeId.layout('twitter' as FlakeId.LayoutName)
const discordParts: readonly ['worker', 'process'] = discord.layout.parts
const noParts: readonly [] = hazelcast.layout.parts
const defaultLayout: FlakeId.Layout<'flake-idgen'> = new FlakeId().layout
const customLayout: FlakeId.Layout<'custom'> = custom.layout
const processId: number | undefined = discord.process
const workerId: number | undefined = discord.worker

// decompose: each scheme's field names.
const d: FlakeId.DiscordParts = FlakeId.decompose('175928847299117063', { layout: 'discord' })
const increment: number = d.increment
const discordProcess: number = d.process
const machineId: number = FlakeId.decompose(sonyflake.next(), sonyflake).machineId
const shardId: number = FlakeId.decompose(instagram.nextBigInt(), { layout: 'instagram' }).shardId
const nodeId: number = FlakeId.decompose(hazelcast.nextString(), hazelcast).id
const twitterParts: FlakeId.Parts = FlakeId.decompose(twitter.next(), twitter)
const defaultParts: FlakeId.Parts = FlakeId.decompose(explicitDefault.next(), explicitDefault)
const fromResolved: FlakeId.DiscordParts = FlakeId.decompose(discord.next(), { layout: discord.layout, epoch: 0 })
const customParts: FlakeId.IdParts = FlakeId.decompose(custom.next(), custom)
const byName = (name: FlakeId.LayoutName) => FlakeId.decompose(0n, { layout: name })
const sequence: number = byName('hazelcast').sequence
const since: bigint = FlakeId.fromTime(Date.now(), { layout: 'sonyflake' })
const sinceCustom: bigint = FlakeId.fromTime(new Date(), { layout: { timeBits: 41, nodeBits: 16, sequenceBits: 6 } })
const renamed: FlakeId.DiscordParts = FlakeId.decompose(0n, { layout: { name: 'discord', epoch: Date.UTC(2020, 0) } })
const moved = new FlakeId({ layout: { ...FlakeId.layout('sonyflake'), epoch: 0 } })
const movedName: 'sonyflake' = moved.layout.name
const sinceGenerator: bigint = FlakeId.fromTime(Date.now(), discord)

// Typed generators, as fields of a service are.
const typed: FlakeId<'discord'> = discord
const options: FlakeId.Options<'hazelcast'> = { layout: 'hazelcast', id: 5 }
const fromOptions: FlakeId<'hazelcast'> = new FlakeId(options)
const anyCustom: FlakeId<FlakeId.CustomLayout> = custom
const generic: FlakeId<FlakeId.LayoutOption> = Math.random() < 0.5 ? discord : new FlakeId()
const leaseOptions: FlakeId.LeaseOptions<'sonyflake'> = {
  store: {},
  namespace: 'orders',
  layout: 'sonyflake',
  ids: [0, 65_535],
}

// @ts-expect-error an unknown preset name
new FlakeId({ layout: 'snowflake' })
// @ts-expect-error an unknown preset name, as an object
FlakeId.layout({ name: 'snowflake' })
// @ts-expect-error Discord's node id has no datacenter part
new FlakeId({ layout: 'discord', datacenter: 1 })
// @ts-expect-error hazelcast's node id has no parts: `id` only
new FlakeId({ layout: 'hazelcast', worker: 1 })
// @ts-expect-error process is Discord's
new FlakeId({ process: 1 })
// @ts-expect-error a custom layout needs its sequence bits
new FlakeId({ layout: { timeBits: 41, nodeBits: 13 } })
// @ts-expect-error order is 'node-sequence' or 'sequence-node'
FlakeId.layout({ timeBits: 41, nodeBits: 16, sequenceBits: 6, order: 'node-first' })
// @ts-expect-error a Discord id has no datacenter
FlakeId.decompose('175928847299117063', { layout: 'discord' }).datacenter
// @ts-expect-error a default id has no increment
FlakeId.decompose('175928847299117063').increment
// @ts-expect-error the layout is read-only
discord.layout = FlakeId.layout('discord')
// @ts-expect-error a Discord generator is not a default one
const notDefault: FlakeId = discord

void [twitter, nullLayout, tenMs, snowcast, resolvedName, unit, limits, key, order, customName, anyLayout]
void [discordParts, noParts, defaultLayout, customLayout, processId, workerId, increment, discordProcess]
void [machineId, shardId, nodeId, twitterParts, defaultParts, fromResolved, customParts, sequence, since]
void [renamed, movedName, sinceCustom, sinceGenerator, typed, fromOptions, anyCustom, generic, leaseOptions, notDefault]

// @sapphire/snowflake's epochs are bigints (issue 33): taken wherever an epoch is.
const sapphireEpoch = 1420070400000n
const bigEpoch = new FlakeId({ layout: 'discord', epoch: sapphireEpoch })
const bigParts: FlakeId.DiscordParts = FlakeId.decompose(bigEpoch.next(), { layout: 'discord', epoch: sapphireEpoch })
const bigFrom: bigint = FlakeId.fromTime(Date.now(), { layout: { name: 'discord', epoch: sapphireEpoch } })
void [bigParts, bigFrom]

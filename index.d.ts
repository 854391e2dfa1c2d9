/// <reference types="node" />

/**
 * A generator of 64-bit k-ordered unique ids, returned as 8-byte big-endian Buffers. By default
 * flake-idgen's layout: 42-bit ms timestamp (minus `epoch`) | 5-bit datacenter | 5-bit worker |
 * 12-bit counter; the `layout` option picks another (`L`: its preset name, or the custom shape).
 *
 * Instances on the system clock with the same layout shape and `id`, whatever their `epoch`,
 * share one state per host (every process of the user, through a state file; `scope: 'host'`,
 * the default) or per process (worker threads included; `scope: 'process'`), so they never
 * return the same id.
 */
declare class FlakeId<L extends FlakeId.LayoutOption = 'flake-idgen'> {
  /**
   * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION`, naming the option and the
   *   value, for an option of the wrong type or out of range.
   * @throws {Error | TypeError | RangeError} code `ERR_FLAKE_ID_FROM` when what `idFrom` reads is
   *   not set, holds no number, or gives a node id past the layout's.
   * @throws {Error} code `ERR_FLAKE_STATE_DIR` or `ERR_FLAKE_STATE_FILE` when `scope: 'host'` or
   *   a `stateDir` was given and the state directory or file cannot be used safely. Without
   *   either, the instance falls back to process scope instead, with one warning per process
   *   (code `FLAKE_IDGEN_HOST_SCOPE_UNAVAILABLE`). An option of another name is ignored, as in
   *   flake-idgen, with one warning per process for each name (code `FLAKE_IDGEN_UNKNOWN_OPTION`).
   */
  constructor(options?: FlakeId.Options<L> | null)

  /** The layout the ids follow, resolved, with the instance's effective `epoch`. */
  readonly layout: FlakeId.Layout<FlakeId.LayoutNameOf<L>>
  /**
   * The node (generator) id, 0 to `2^nodeBits - 1`: `options.id`, what `idFrom` read plus
   * `idOffset`, or its two parts (flake-idgen and Twitter: `datacenter << 5 | worker`; Discord:
   * `worker << 5 | process`).
   */
  readonly id: number
  /** flake-idgen and Twitter layouts: the high 5 bits of `id`. `undefined` when `options.id` or `idFrom` was given or the layout has no such part. */
  readonly datacenter: number | undefined
  /**
   * flake-idgen and Twitter layouts: the low 5 bits of `id`; Discord: the high 5 bits.
   * `undefined` when `options.id` or `idFrom` was given or the layout has no such part.
   */
  readonly worker: number | undefined
  /** Discord layout: the low 5 bits of `id`. `undefined` when `options.id` or `idFrom` was given or the layout has no such part. */
  readonly process: number | undefined
  /** Milliseconds since 1970 subtracted from every timestamp. */
  readonly epoch: number
  /** The largest counter value per time unit: `2^k - 1`. */
  readonly seqMask: number
  /** How far ahead of the clock, in ms, ids may be borrowed instead of throwing. */
  readonly allowedFutureMs: number
  /** Whose state it issues from: the host's processes', or this process's (also with a `clock`). */
  readonly scope: 'host' | 'process'
  /** The options the instance was created with (`{}` if none). */
  readonly options: FlakeId.Options<L>

  /**
   * A layout resolved: its preset's (or the custom shape's) bits, unit, order and epoch, and
   * the limits that follow from them. The result is accepted back as a `layout`.
   *
   * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION`, naming the field (such as
   *   `layout.timeBits`) and the value, or naming `layout` and listing the presets.
   */
  static layout<L extends FlakeId.LayoutOption>(layout: L): FlakeId.Layout<FlakeId.LayoutNameOf<L>>
  /**
   * The parts of an id: a Buffer of 8 bytes, a bigint, or a string: in `options.format`, else
   * decimal or `0x`-prefixed hex. Pass the generator's `layout` and `epoch` (or the generator
   * itself) to read its ids back; without a `layout`, flake-idgen's.
   *
   * @throws {TypeError | RangeError} for anything else (saying why a string is not of its
   *   format), or a value past 64 bits; code `ERR_FLAKE_INVALID_OPTION` for a bad option.
   */
  static decompose<L extends FlakeId.LayoutOption = 'flake-idgen'>(
    id: Buffer | Uint8Array | bigint | string,
    options?: FlakeId.DecomposeOptions<L> | null,
  ): FlakeId.PartsOf<L>
  /**
   * The 8 bytes of the id that `string` writes in `format` (decimal by default): exactly as
   * `nextString(format)` writes it, so that one id has one text.
   *
   * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_VALUE` for a string of another
   *   length or with a character outside the format's (named, with its index), `ERR_OUT_OF_RANGE`
   *   for one past 2^64 - 1, `ERR_INVALID_ARG_TYPE` for a value not a string; code
   *   `ERR_INVALID_ARG_VALUE` / `ERR_INVALID_ARG_TYPE` naming `format` for another format.
   */
  static parse(string: string, format?: FlakeId.TextFormat): Buffer
  /**
   * The smallest id of the time unit (a millisecond, in most layouts) that holds `time` (node id
   * 0, counter 0): every id made at or after `time` is `>=` it, for `WHERE id >= ...` range
   * queries.
   *
   * @throws {RangeError} for a time before the epoch or past the layout's time bits.
   */
  static fromTime(time: number | Date, options?: FlakeId.LayoutOptions | null): bigint
  /**
   * A generator whose id is leased from the user's Redis, PostgreSQL or MySQL client: no other live
   * holder in the namespace has it, and its timestamps are fenced by the ceilings the store
   * acknowledged, so holders of one id never issue the same id, whatever pauses, kills or clock
   * skew do. Resolves once the generator can issue (above its predecessor's ceiling).
   *
   * @throws {TypeError | RangeError} (rejects) code `ERR_FLAKE_INVALID_OPTION` for a bad option
   *   or a store of another shape; `ERR_FLAKE_NO_FREE_ID` when no id is free within
   *   `acquireTimeout`; `ERR_FLAKE_CLOCK_SKEW` when the clock is further from the store's than
   *   `maxClockSkewMs`; `ERR_FLAKE_LEASE_MISMATCH` when a live lease of the namespace has another
   *   epoch, ttl or skew; `ERR_FLAKE_LEASE_STORE` when the store fails or replies something else
   *   than a lease answer; `ERR_FLAKE_LEASE_SCHEMA` when the store's table (or Redis hash) cannot
   *   hold what the lease writes exactly; an `AbortError` when `signal` aborts.
   */
  static lease<L extends FlakeId.LayoutOption = 'flake-idgen'>(
    options: FlakeId.LeaseOptions<L>,
  ): Promise<FlakeId.Leased<L>>

  /**
   * A client of members (`generator.batchHandler()`, `flake-idgen serve`): ids from prefetched
   * batches, for a process that holds no generator id. The same as `flake-idgen-rs/client`.
   *
   * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION`, naming the option and the value.
   */
  static client(options: FlakeId.ClientOptions): FlakeId.Client

  // next(), nextBigInt(), nextString(): FlakeId.IdMethods, merged in below.
  /**
   * A new id, as `next(callback)` gives it: never rejects for overflow or a clock that moved
   * backwards, it waits.
   *
   * @throws {Error} (rejects) code `ERR_FLAKE_CLOCK_STALLED` when the system clock does not get
   *   where the id needs it in the time it needs and 100 ms more (it stands still), or
   *   `ERR_FLAKE_CLOCK_BACKWARDS` when it stepped back during the wait and stays back.
   */
  nextAsync(): Promise<Buffer>
  /**
   * `count` ids, ascending, in one Buffer of `count * 8` bytes. Synchronous: it fills each
   * time unit up to the counter (`layout.idsPerUnit` ids) and waits (spinning, under a unit)
   * for the next.
   *
   * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_TYPE` / `ERR_OUT_OF_RANGE` unless
   *   `count` is an integer from 1 to 2^24; as `next()` does for a clock that moved backwards,
   *   and for an overflow that a wait under a time unit would not end (a state another
   *   process borrowed ahead with `allowedFutureMs`).
   */
  nextBatch(count: number): Buffer
  /**
   * `nextBatch(count)` a time unit at a time between turns of the event loop: never blocks
   * it for more than about a time unit (a millisecond in most layouts), never holds a thread of libuv's pool, and waits
   * instead of rejecting for overflow or a clock that moved backwards. Batches of one generator
   * id run one after the other.
   *
   * @throws {Error} (rejects) name `AbortError`, code `ABORT_ERR`, when `options.signal` aborts;
   *   code `ERR_FLAKE_CLOCK_STALLED` (or `ERR_FLAKE_CLOCK_BACKWARDS`) as `nextAsync()`, for a
   *   system clock that stands still. The ids taken by then are never handed out again.
   */
  nextBatchAsync(count: number, options?: { signal?: AbortSignal } | null): Promise<Buffer>
  /** This instance's counters. */
  stats(): FlakeId.Stats
  /**
   * A `(req, res)` listener for `node:http` / `node:https` that serves batches of this
   * generator's ids to clients (`FlakeId.client`), reserved as `nextBatchAsync` reserves them:
   * `POST /?count=N` with `Authorization: Bearer <token>`.
   *
   * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION` for a bad option, and for
   *   no `token` unless `allowNoToken: true`.
   */
  batchHandler(options: FlakeId.BatchHandlerOptions): FlakeId.BatchHandler
}

/** The id methods: the same functions as a client's. */
// biome-ignore lint/correctness/noUnusedVariables: merged with the class, whose type parameters it repeats
interface FlakeId<L extends FlakeId.LayoutOption = 'flake-idgen'> extends FlakeId.IdMethods<Buffer> {}

declare namespace FlakeId {
  /** The presets of `layout`: bits, time unit, order and epoch of each scheme (docs/layouts.md). */
  export type LayoutName = 'flake-idgen' | 'twitter' | 'discord' | 'instagram' | 'snowcast' | 'hazelcast' | 'sonyflake'

  /**
   * A layout of your own: `timeBits + nodeBits + sequenceBits` is 63 or 64. Numbers are
   * checked like the options (a `RangeError` or `TypeError` naming `layout.timeBits` etc.).
   */
  export interface CustomLayout {
    /** Bits of the time field, right below the top bit of 64 (or below a top bit 0, for 63 in all). */
    timeBits: number
    /** Milliseconds per time unit, an integer from 1 to 1000. Default 1. */
    timeUnitMs?: number
    /** Bits of the node id, 0–16: `id` is 0 to `2^nodeBits - 1`. */
    nodeBits: number
    /** Bits of the counter, 1–16: up to `2^sequenceBits` ids per time unit. */
    sequenceBits: number
    /** What follows the time: the node id then the counter (Twitter's), or the counter then the node id (Hazelcast's, sonyflake's). Default `'node-sequence'`. */
    order?: 'node-sequence' | 'sequence-node'
    /** Milliseconds since 1970 the time counts from; the `epoch` option wins over it. Default 0. */
    epoch?: number | bigint | Date | string | null
  }

  /**
   * A preset as an object, as a generator's resolved `layout` is one: its fields default to the
   * preset's, and any given must agree with them but `epoch`, e.g. `{ name: 'discord', epoch }`.
   */
  export interface PresetLayout extends Partial<CustomLayout> {
    name: LayoutName
  }

  /** A preset's name, a custom layout, or a preset as an object (a generator's resolved `layout` will do). */
  export type LayoutOption = LayoutName | CustomLayout | PresetLayout

  /** The two 5-bit parts of a node id, in layouts that have them. */
  export type NodePart = 'datacenter' | 'worker' | 'process'

  /** The parts of each preset's node id, high bits first. */
  export interface LayoutParts {
    'flake-idgen': readonly ['datacenter', 'worker']
    twitter: readonly ['datacenter', 'worker']
    discord: readonly ['worker', 'process']
    instagram: readonly []
    snowcast: readonly []
    hazelcast: readonly []
    sonyflake: readonly []
    custom: readonly []
  }

  /** A layout's name: the preset's, the name of a resolved layout, else `'custom'`. */
  export type LayoutNameOf<L> = L extends LayoutName
    ? L
    : L extends { readonly name: infer N extends LayoutName | 'custom' }
      ? N
      : 'custom'

  /** A layout resolved (`FlakeId.layout(...)`, a generator's `layout`): a frozen object. */
  export interface Layout<N extends LayoutName | 'custom' = LayoutName | 'custom'> {
    /** The preset, or `'custom'`. */
    readonly name: N
    readonly timeBits: number
    readonly timeUnitMs: number
    readonly nodeBits: number
    readonly sequenceBits: number
    readonly order: 'node-sequence' | 'sequence-node'
    /** Milliseconds since 1970 the time counts from (a generator's: its effective `epoch`). */
    readonly epoch: number
    /** The options that name the node id's parts, high bits first (`[]` for none). */
    readonly parts: LayoutParts[N]
    /** The largest node id: `2^nodeBits - 1`. */
    readonly maxId: number
    /** Ids per time unit per node id: `2^sequenceBits`. */
    readonly idsPerUnit: number
    /** The largest `allowedFutureMs` the layout takes (host scope borrows 20 ms at most). */
    readonly maxAllowedFutureMs: number
    /**
     * The last ms since 1970 at which ids can be issued, from this `epoch`: where the time bits
     * end, or 139 years or more after the epoch (what a state word holds), whichever comes
     * first. On the system clock ids also stop in 2109 (2144 for 10 ms units): a shared state
     * counts from 1970.
     */
    readonly lastTimestamp: number
    /**
     * The shape (bits, unit, order) as state files and lease namespaces record it, such as
     * `'42/10/12'` or `'39x10ms/seq8/node16'`: layouts of one key share one state per node id.
     */
    readonly key: string
  }

  /** The type of a part option (`datacenter`, `worker`, `process`): unset (`null`) on a layout without that part, which refuses a value. */
  export type PartOption<L, P extends NodePart> = P extends LayoutParts[LayoutNameOf<L>][number]
    ? number | string | null
    : null

  /** Numbers may also be given as numeric strings, e.g. `worker: process.env.WORKER_ID`. */
  export interface Options<L extends LayoutOption = 'flake-idgen'> {
    /** A preset's name or a custom layout; a resolved one (`generator.layout`) will do. Default `'flake-idgen'`. */
    layout?: L | null
    /** Node (generator) id, 0 to `2^nodeBits - 1` (0–1023 by default). Wins over its parts when given. */
    id?: number | string
    /** flake-idgen and Twitter layouts: datacenter id, 0–31, the high 5 bits of `id`. Default 0. */
    datacenter?: PartOption<L, 'datacenter'>
    /** flake-idgen and Twitter layouts: worker id, 0–31, the low 5 bits of `id`; Discord: the high 5 bits. Default 0. */
    worker?: PartOption<L, 'worker'>
    /** Discord layout: process id, 0–31, the low 5 bits of `id`. Default 0. */
    process?: PartOption<L, 'process'>
    /**
     * The node id from the environment the orchestrator numbered the process in, read once:
     * `'statefulset'`, the ordinal ending the pod's name (`HOSTNAME`, else the host's name:
     * `orders-7` is 7); `'job-index'`, an Indexed Job's `JOB_COMPLETION_INDEX`; `'pm2'`,
     * `NODE_APP_INSTANCE`; `'env:NAME'`, the decimal digits of variable NAME. Not with `id` or
     * its parts. A variable not set or empty, a name with no ordinal, or a node id past the
     * layout's throws `ERR_FLAKE_ID_FROM` naming the variable and its value: never node id 0.
     */
    idFrom?: 'statefulset' | 'job-index' | 'pm2' | `env:${string}` | null
    /** With `idFrom`: added to the number it reads, so that fleets share a layout in ranges of their own. Default 0. */
    idOffset?: number | string | null
    /** Milliseconds since 1970 to subtract from timestamps, not in the future. Default: the layout's epoch (0 by default). */
    epoch?: number | bigint | Date | string | null
    /** `2^k - 1` for k from 1 to the layout's sequence bits (12 by default): at most `seqMask + 1` ids per time unit. Default: all of them (4095 by default). */
    seqMask?: number | string | null
    /**
     * Returns milliseconds since 1970; called for each id instead of the system clock (fake
     * time in tests). An instance with its own clock keeps its own state.
     */
    clock?: (() => number) | null
    /**
     * 0 to the layout's `maxAllowedFutureMs` (1000 by default). When > 0, a call that would
     * throw for overflow, or for a clock step back smaller than this, takes the next time
     * unit(s) instead, never more than this many ms ahead of the clock. Default 0: throw, as
     * flake-idgen does.
     */
    allowedFutureMs?: number | string | null
    /**
     * `'host'` (default on the system clock): every process of the user on this host that uses
     * the same state directory shares each generator id's state, so none repeats another's ids.
     * `'process'`: this process's threads only. Refused with a `clock` option.
     */
    scope?: 'host' | 'process' | null
    /**
     * An absolute path: the directory of the state files (implies `scope: 'host'`). Default
     * `$FLAKE_IDGEN_STATE_DIR`, else `/tmp/flake-idgen-<uid>` (whatever the environment says;
     * then `/var/tmp` and `/dev/shm` if it cannot be used, with a warning).
     */
    stateDir?: string | null
  }

  /** Options of `FlakeId.lease`. */
  export interface LeaseOptions<L extends LayoutOption = 'flake-idgen'>
    extends Pick<Options<L>, 'layout' | 'epoch' | 'seqMask' | 'allowedFutureMs' | 'clock' | 'scope' | 'stateDir'> {
    /** The user's own client: an ioredis `Redis` or `Cluster`, a node-redis v4/v5 client, a connected pg `Pool` or `Client`, a mysql2 `Pool` (`mysql2` or `mysql2/promise`), an etcd3 `Etcd3`, or a node-zookeeper-client `Client` (connected). */
    store: object
    /**
     * The uniqueness domain across hosts: ids are unique among the holders of a namespace (1 to
     * 200 characters, no NUL or lone surrogate); every live holder of one uses the same layout
     * shape, epoch, ttl and maxClockSkewMs: the epoch, ttl and skew change once no lease of the
     * old ones is live. On one host, every generator of an id shares its state, whatever the
     * namespace (`scope`).
     */
    namespace: string
    /** The pool of node ids to lease from, `[first, last]`. Default `[0, maxId]` of the layout (`[0, 1023]` by default). */
    ids?: [number, number]
    /** Lease time in ms (100 to 86,400,000), renewed every ttl/3; also how far a ceiling runs ahead of the clock. Default 10,000. */
    ttl?: number
    /** The most this clock may differ from the store's (0 to 3,600,000), checked at each acquire and renewal. Default 1,000. */
    maxClockSkewMs?: number
    /** How long to wait for a free id, and to try again a store call that failed or timed out (each gets `ttl / 3`), in ms (0 to 2,147,483,647). Default `ttl`. */
    acquireTimeout?: number
    /** Redis only: replicas (0 to 1,000) that must acknowledge each acquire and renewal (`WAIT`, on a connection of the lease's own). Default 0. */
    replicas?: number
    /** Gives up acquiring (an `AbortError`). */
    signal?: AbortSignal
    /**
     * Called once for every lease lost: the store no longer holds it, the clock is past
     * maxClockSkewMs, or the ceiling passed with no renewal acknowledged. The generator leases
     * again meanwhile, and issues nothing past its last ceiling until it has.
     */
    onLost?: (error: FlakeIdError) => void
    /**
     * Called before each wait of the lease, with its length in ms and why: `'floor'` (ids start
     * above a floor: a new namespace, a store that lost its data, the previous holder's
     * ceiling), `'exhausted'` (every id is held), `'unreplicated'`, `'store'` (a store call
     * failed or timed out: tried again), or, for a replacement lease, `'skew'`.
     */
    onWait?: (ms: number, reason: 'floor' | 'exhausted' | 'unreplicated' | 'store' | 'skew') => void
  }

  /** A generator on a leased id. */
  export interface Leased<L extends LayoutOption = 'flake-idgen'> extends FlakeId<L> {
    /**
     * The leased generator id. It changes if the lease was lost (taken over after an expiry, or
     * the store lost its data) and the generator leased another id to go on with.
     */
    readonly id: number
    /** What it issues under now: the id, its floor and its ceiling (ms since 1970); `undefined` once closed. */
    readonly lease: { namespace: string; id: number; floor: number; ceiling: number } | undefined
    /**
     * Releases the lease: the next holder starts at once, above the last id issued. Afterwards
     * every call throws (or calls back) `ERR_FLAKE_LEASE_CLOSED`.
     */
    close(): Promise<void>
  }

  /** The epoch ids were made with; a `FlakeId` instance will do. */
  export interface EpochOption {
    /** Milliseconds since 1970 that the generator subtracted. Default: the layout's epoch (0 by default). */
    epoch?: number | bigint | Date | string | null
  }

  /** The layout and epoch ids were made with (`decompose`, `fromTime`); a `FlakeId` instance will do. */
  export interface LayoutOptions<L extends LayoutOption = LayoutOption> extends EpochOption {
    /** A preset's name, a custom layout or a resolved one. Default `'flake-idgen'`. */
    layout?: L | null
  }

  /** What `FlakeId.decompose` takes: the layout and epoch ids were made with, and the form of a string id. */
  export interface DecomposeOptions<L extends LayoutOption = LayoutOption> extends LayoutOptions<L> {
    /** The form of a string id, read exactly as `nextString(format)` writes it. Default: decimal or `0x`-prefixed hex. */
    format?: TextFormat
  }

  /**
   * A text form of an id (lib/formats/formats.js's rows): `'decimal'`, and the fixed-width ones,
   * zero-padded, whose string order (bytewise, or a binary collation such as PostgreSQL's
   * `COLLATE "C"`) is id order: `'base32'` (13 characters of Crockford's alphabet, TSID's form),
   * `'base62'` (11 of `0-9A-Za-z`), `'hex'` (16 lowercase digits).
   */
  export type TextFormat = 'decimal' | 'base32' | 'base62' | 'hex'

  /** A text form of 128-bit ids besides their kind's own: `'base32'` (26 characters, ULID's form) or `'base62'` (22). */
  export type WideTextFormat = 'base32' | 'base62'

  /** What `FlakeId.decompose` reads from an id of any layout. */
  export interface IdParts {
    /** Milliseconds since 1970 of the id's time unit, the epoch added back. */
    timestamp: number
    /** `timestamp` as a Date. */
    date: Date
    /** The node (generator) id. */
    id: number
    /** The counter within the time unit. */
    sequence: number
  }

  /** What `FlakeId.decompose` reads from an id of flake-idgen's layout (the default) or Twitter's. */
  export interface Parts extends IdParts {
    /** Bits 21–17. */
    datacenter: number
    /** Bits 16–12. */
    worker: number
    /** The 10-bit generator id: `datacenter << 5 | worker`. */
    id: number
    /** The counter within the millisecond. */
    sequence: number
  }

  /** What `FlakeId.decompose` reads from a Discord id, with the names of Discord's documentation. */
  export interface DiscordParts extends IdParts {
    /** Bits 21–17: the internal worker id. */
    worker: number
    /** Bits 16–12: the internal process id. */
    process: number
    /** `sequence`, as Discord names it. */
    increment: number
  }

  /** What `FlakeId.decompose` reads from an Instagram id. */
  export interface InstagramParts extends IdParts {
    /** `id`, as Instagram names it: the 13-bit logical shard id. */
    shardId: number
  }

  /** What `FlakeId.decompose` reads from a sonyflake id. */
  export interface SonyflakeParts extends IdParts {
    /** `id`, as sonyflake names it: the 16-bit machine id. */
    machineId: number
  }

  /** What `FlakeId.decompose` returns for each layout. */
  export interface PartsOfLayout {
    'flake-idgen': Parts
    twitter: Parts
    discord: DiscordParts
    instagram: InstagramParts
    snowcast: IdParts
    hazelcast: IdParts
    sonyflake: SonyflakeParts
    custom: IdParts
  }

  /** What `FlakeId.decompose` returns for ids of layout `L` (a name, a custom layout, a resolved one). */
  export type PartsOf<L> = PartsOfLayout[LayoutNameOf<L>]

  /** Options of `FlakeId.client()`. */
  export type ClientOptions = import('./client').ClientOptions
  /** A client of members: see `FlakeId.client()`. */
  export type Client = import('./client').FlakeIdClient
  /** A client's counters. */
  export type ClientStats = import('./client').ClientStats

  /** Options of `generator.batchHandler()`. */
  export interface BatchHandlerOptions {
    /** The bearer token clients must send; required unless `allowNoToken` is true. */
    token?: string
    /** Serve anyone who reaches the listener, with no token (default false). */
    allowNoToken?: boolean
    /** The most ids one request takes, 1 to 2^24 (default 100,000). */
    maxCount?: number
    /** Ms a request has to send its (empty) body (default 10,000). */
    requestTimeoutMs?: number
    /** The most bytes of headers a request may have, 256–65,536 (default 8,192). */
    maxHeaderBytes?: number
    /**
     * The most batch requests served at once, 1 to 100,000 (default 128), counted apart for
     * requests of up to 4,096 ids and bigger ones; past it a request is refused with 503
     * `ERR_FLAKE_MEMBER_BUSY` and a `Retry-After`.
     */
    maxQueued?: number
  }

  /** A member's request listener, with its counters. */
  export interface BatchHandler {
    (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void
    stats(): BatchHandlerStats
  }

  /** A member's counters, since its handler was made. */
  export interface BatchHandlerStats {
    /** Batches served. */
    batches: number
    /** Ids served in them. */
    ids: number
    /** Requests refused. */
    refused: number
    /** Requests refused, by the code of their JSON error. */
    refusedBy: Record<string, number>
  }

  /** Counters of one instance, since it was created. */
  export interface Stats {
    /** Ids issued, batches included. */
    ids: number
    /** Calls that found every id of the clock's time unit used: they threw, waited or borrowed. */
    overflows: number
    /** Calls that found the clock behind an earlier reading: they threw, waited or borrowed. */
    clockBackwards: number
    /** Calls that waited for the clock. */
    waits: number
  }

  /**
   * Node-style callback: `(null, id)` on success; `(error)` for the errors waiting cannot cure,
   * a {@link FlakeIdError} or whatever the `clock` function threw.
   */
  export type Callback<Id extends Uint8Array = Buffer> = (error: Error | null, id: Id) => void

  /**
   * The id methods of generators and clients, one per form of an id: the same functions on both,
   * each taking the next id of one sequence. `Id`: an id's 8 bytes, a Buffer (a client's are
   * Uint8Arrays where the runtime has no Buffer).
   */
  export interface IdMethods<Id extends Uint8Array = Buffer> {
    /**
     * Returns a new id: 8 big-endian bytes with their own ArrayBuffer.
     *
     * A generator's: a time unit whose ids other generators of the id (threads, processes on
     * host scope) used up is waited out, at most until the next unit (a millisecond in most
     * layouts). A client's: an id of a prefetched batch.
     *
     * @throws {Error} A generator's: code `ERR_FLAKE_SEQUENCE_OVERFLOW` once it took
     *   `seqMask + 1` ids of one time unit itself, as flake-idgen's does (or for a state another
     *   generator borrowed further ahead with `allowedFutureMs`); `ERR_FLAKE_CLOCK_BACKWARDS`
     *   when the clock is behind the last id's time; `ERR_FLAKE_CLOCK_STALLED` or
     *   `ERR_FLAKE_SEQUENCE_BUSY` when such a wait finds the clock not moving, or every unit
     *   taken by others first. A client's: code `ERR_FLAKE_NO_PREFETCHED_ID` when none is at hand
     *   (none fetched yet, all used, or older than `prefetchValidityMs`; it starts a refill, except
     *   in Workers and Vercel Edge, where one would be cancelled with the request: use
     *   `nextAsync()` there); `ERR_FLAKE_CLIENT_CLOSED` after `close()`.
     */
    next(): Id
    /**
     * Calls back asynchronously with a new id, in call order. A generator's never fails for
     * overflow or a clock that moved backwards: it waits for the next time unit, or for the
     * clock to catch up; a clock that stands still is waited for as long as it stands, as
     * flake-idgen does (`nextAsync()` rejects instead). A client's fetches an id if none is at
     * hand, and calls back `(error)` as its `nextAsync()` rejects.
     */
    next(callback: Callback<Id>): void
    /** `next()` as a `bigint`. Same state and errors. */
    nextBigInt(): bigint
    /**
     * `next()` as text in `format` (`TextFormat`): decimal by default (safe in JSON and for SQL
     * `bigint`), or a fixed-width form whose string order is id order. Same state and errors.
     *
     * @throws {TypeError} code `ERR_INVALID_ARG_VALUE` (naming the format it most likely meant)
     *   or `ERR_INVALID_ARG_TYPE` for another `format`; no id is taken.
     */
    nextString(format?: TextFormat | null): string
  }

  /** Errors thrown by this package carry a stable `code`. */
  export interface FlakeIdError extends Error {
    code:
      | 'ERR_FLAKE_SEQUENCE_OVERFLOW'
      | 'ERR_FLAKE_CLOCK_BACKWARDS'
      | 'ERR_FLAKE_CLOCK_BEFORE_EPOCH'
      | 'ERR_FLAKE_TIMESTAMP_OVERFLOW'
      | 'ERR_FLAKE_INVALID_OPTION'
      | 'ERR_FLAKE_INVALID_CLOCK'
      | 'ERR_INVALID_ARG_TYPE'
      | 'ERR_INVALID_ARG_VALUE'
      | 'ERR_OUT_OF_RANGE'
      | 'ERR_FLAKE_STATE_DIR'
      | 'ERR_FLAKE_STATE_FILE'
      | 'ERR_FLAKE_STATE_UNAVAILABLE'
      | 'ERR_FLAKE_STATE_IN_USE'
      | 'ERR_FLAKE_STATE_LOST'
      | 'ERR_FLAKE_ID_FROM'
      | 'ERR_FLAKE_WASM_THREAD'
      | 'ERR_FLAKE_LEASE_EXPIRED'
      | 'ERR_FLAKE_LEASE_CLOSED'
      | 'ERR_FLAKE_LEASE_STORE'
      | 'ERR_FLAKE_LEASE_MISMATCH'
      | 'ERR_FLAKE_LEASE_SCHEMA'
      | 'ERR_FLAKE_NO_FREE_ID'
      | 'ERR_FLAKE_CLOCK_SKEW'
      | 'ERR_FLAKE_NO_MAC_ADDRESS'
      | 'ERR_FLAKE_RANDOM'
      | 'ERR_FLAKE_CLOCK_STALLED'
      | 'ERR_FLAKE_SEQUENCE_BUSY'
      | 'ERR_FLAKE_NO_PREFETCHED_ID'
      | 'ERR_FLAKE_MEMBERS_UNAVAILABLE'
      | 'ERR_FLAKE_CLIENT_CLOSED'
      | 'ERR_FLAKE_BAD_BATCH'
      | 'ERR_FLAKE_MEMBER_MISMATCH'
  }

  /**
   * The first argument of `uuidv7(options, buf, offset)`: `uuid`'s `v7()` options. A call that
   * gives none (`undefined`, `null`, `{}`, or each `undefined`) makes the host's next UUIDv7,
   * strictly increasing across every process and thread. A call that gives any of them gets the
   * bytes `uuid` 14's `v7()` writes for them, made from those values alone: outside the host's
   * order (neither checked against it nor moving it), as `uuid`'s is outside its own state.
   */
  export interface UuidV7CallOptions {
    /** The UUID's 48-bit Unix ms, 0 to 2^48 − 1. Default: `Date.now()` (a generator's own `clock`). */
    msecs?: number
    /** The 32-bit counter `uuid` writes after the version (an integer from −2^31 to 2^32 − 1). Default: from the random bytes, as `uuid` does. */
    seq?: number
    /** 16 bytes or more; bytes 6–9 make the default `seq`, bytes 10–15 the random bits. Default: `rng()`. */
    random?: Uint8Array
    /** Returns `random` when it is not given. Default: 16 bytes of the OS's CSPRNG. */
    rng?: () => Uint8Array
  }

  /**
   * A UUIDv7 (RFC 9562 §5.7) of the host: 48-bit Unix ms | version 7 | a 15-bit counter (its
   * high 12 bits as `rand_a`, then the variant `10`, then its low 3 bits) | 59 random bits from
   * a CSPRNG per thread (ChaCha12) keyed by the OS's. The counter (RFC 9562 §6.2, method 1)
   * starts from 0 at each millisecond and is shared by every process and thread of the host
   * that uses the same state directory, so their ids are strictly increasing in the order they
   * were issued and never repeat: up to 32,768 per millisecond per host, past which a call
   * waits for the next millisecond.
   *
   * `uuidv7()` (or `uuidv7(undefined)`, `uuidv7(null)`, `uuidv7({})`) returns the canonical
   * lowercase 36-character string, as `uuid`'s `v7()` does. With `uuid`'s `msecs`, `seq`,
   * `random` or `rng`, it returns the UUID `uuid` makes of them, outside the host's order (see
   * `UuidV7CallOptions`).
   *
   * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION` naming `options.<key>` for
   *   any other key, or a value of those out of range (`msecs` past 48 bits, `random` shorter
   *   than 16 bytes); `ERR_INVALID_ARG_TYPE` for `options` that are not an object.
   * @throws {Error} code `ERR_FLAKE_CLOCK_BACKWARDS` when the clock is behind the last id's
   *   millisecond by more than the generator allows; a step back within it reuses that
   *   millisecond and counts on, so an id is never smaller than the one before.
   * @throws {Error} code `ERR_FLAKE_STATE_DIR`, `ERR_FLAKE_STATE_FILE` or `ERR_FLAKE_STATE_LOST`
   *   when the host's state cannot be used, as for `FlakeId`; `ERR_FLAKE_RANDOM` when the OS
   *   gives no random bytes.
   */
  export function uuidv7(options?: UuidV7CallOptions | null): string
  /**
   * `uuidv7()`, written as 16 bytes into `buf` at `offset` (default 0); returns `buf`, as
   * `uuid`'s `v7(options, buf, offset)` does, `options` as for the string form.
   *
   * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION` as for the string form;
   *   `ERR_INVALID_ARG_TYPE` when `buf` is not a Uint8Array or `offset` not a number.
   * @throws {RangeError} code `ERR_OUT_OF_RANGE` unless `offset` is an integer from 0 to
   *   `buf.length - 16`.
   */
  export function uuidv7<T extends Uint8Array>(
    options: UuidV7CallOptions | null | undefined,
    buf: T,
    offset?: number,
  ): T
  export namespace uuidv7 {
    /**
     * A generator with its own options, called as `uuidv7` is. The exported `uuidv7` is the one
     * of default options.
     *
     * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION`, naming the option and the
     *   value, for an option of the wrong type or out of range, or one of another name (such
     *   as `uuid`'s `msecs`).
     */
    function create(options?: Options | null): Generator
    /**
     * `count` UUIDv7s, strictly increasing as bytes, in one Buffer of `count * 16` bytes.
     * Synchronous: it takes up to the host's 32,768 ids of each millisecond and waits (spinning)
     * for the next.
     *
     * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_TYPE` / `ERR_OUT_OF_RANGE` unless
     *   `count` is an integer from 1 to 2^24.
     */
    function batch(count: number): Buffer
    /**
     * The canonical lowercase 36-character string of the 16 bytes at `offset` (default 0); in
     * `format`, ULID's 26 base32 characters (which ULID tools read, its time theirs) or 22
     * base62 ones, zero-padded, whose string order is id order.
     *
     * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_TYPE` when `bytes` is not a
     *   Uint8Array, `ERR_OUT_OF_RANGE` when it holds no 16 bytes at `offset`, and
     *   `ERR_INVALID_ARG_VALUE` when they are not a UUIDv7, or naming `format` for another.
     */
    function stringify(bytes: Uint8Array, offset?: number, format?: WideTextFormat): string
    /**
     * The 16 bytes of a UUIDv7 string (8-4-4-4-12 hex digits, either case), or of its text in
     * `format`, exactly as `stringify` writes it.
     *
     * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_VALUE` for any other string (for a
     *   `format`, saying why), or a UUID that is not version 7 with the variant `10`;
     *   `ERR_OUT_OF_RANGE` for a `format`'s text past 128 bits; `ERR_INVALID_ARG_TYPE` for a
     *   value not a string.
     */
    function parse(id: string, format?: WideTextFormat): Buffer
    /**
     * The parts of a UUIDv7: a string (canonical, or 26 base32 or 22 base62 characters), or a
     * Uint8Array of its 16 bytes.
     *
     * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_TYPE`, `ERR_INVALID_ARG_VALUE` or
     *   `ERR_OUT_OF_RANGE` for anything else.
     */
    function decompose(id: string | Uint8Array): Parts
    /**
     * The millisecond of a UUIDv7 (a string, or 16 bytes), in ms since 1970.
     *
     * @throws {TypeError | RangeError} as `decompose` does.
     */
    function timestamp(id: string | Uint8Array): number

    /** A UUIDv7 generator of `uuidv7.create(options)`: `uuidv7`'s two signatures, and `batch`. */
    interface Generator {
      /** A new UUIDv7 as its canonical lowercase 36-character string. */
      (options?: UuidV7CallOptions | null): string
      /** A new UUIDv7 written into `buf` at `offset` (default 0); returns `buf`. */
      <T extends Uint8Array>(options: UuidV7CallOptions | null | undefined, buf: T, offset?: number): T
      /** `count` UUIDv7s, strictly increasing, in one Buffer of `count * 16` bytes. */
      batch(count: number): Buffer
    }

    /** Options of `uuidv7.create`; each checked as `FlakeId`'s option of the same name. */
    interface Options {
      /**
       * `'host'` (default on the system clock): one counter for every process of the host that
       * uses the same state directory. `'process'`: this process's threads only. Refused with a
       * `clock` option.
       */
      scope?: 'host' | 'process' | null
      /** An absolute path: the directory of the state file (implies `scope: 'host'`). Default as `FlakeId`'s. */
      stateDir?: string | null
      /**
       * 0 to 126: how far ahead of the clock, in ms, ids may be borrowed when a millisecond's
       * 32,768 are used up or the clock stepped back. Default 0.
       */
      allowedFutureMs?: number | null
      /**
       * Returns milliseconds since 1970; read once per id instead of the system clock (fake time
       * in tests). The generator then keeps a state of its own, and throws
       * `ERR_FLAKE_SEQUENCE_OVERFLOW` past 32,768 ids in one of its milliseconds instead of
       * waiting.
       */
      clock?: (() => number) | null
    }

    /** What `uuidv7.decompose` reads from a UUIDv7. */
    interface Parts {
      /** The 48-bit Unix time, in ms since 1970. */
      timestamp: number
      /** `timestamp` as a Date. */
      date: Date
      /** The 15-bit counter within the millisecond (0 to 32,767). */
      sequence: number
      /** The 59 random bits. */
      random: bigint
    }
  }

  /**
   * Boundary's flake: 128-bit k-ordered ids with no coordination, 64-bit ms since 1970 | 48-bit
   * worker id (by default the MAC address of a network interface) | 16-bit counter, as 16-byte
   * big-endian Buffers, `bigint`s or 22-character base62 strings. Nothing in them is random.
   *
   * Every process and thread of the host that uses the same state directory shares one counter
   * (`scope: 'host'`, the default), so its ids never repeat whatever the worker ids: up to 65,536
   * per millisecond per host.
   */
  export class Flake128 {
    /**
     * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION`, naming the option and the
     *   value, for an option of the wrong type or out of range, an unknown one, an `interface`
     *   with no MAC address, or `worker` and `interface` together.
     * @throws {Error} code `ERR_FLAKE_NO_MAC_ADDRESS` when neither `worker` nor `interface` was
     *   given and no interface has a MAC address.
     */
    constructor(options?: Flake128.Options | null)
    /** The 48-bit worker id, 0 to 2^48 − 1. */
    readonly worker: number
    /** Whose counter it issues from: the host's processes', or this process's (also with a `clock`). */
    readonly scope: 'host' | 'process'

    /**
     * A new id: a Buffer of 16 bytes with its own ArrayBuffer.
     *
     * @throws {Error} code `ERR_FLAKE_CLOCK_BACKWARDS` when the clock is behind the last id's
     *   millisecond by more than `allowedFutureMs`; with a `clock` option,
     *   `ERR_FLAKE_SEQUENCE_OVERFLOW` past 65,536 ids in one of its milliseconds (on the system
     *   clock it waits for the next).
     */
    next(): Buffer
    /** `next()` as a 128-bit `bigint`. Same state and errors. */
    nextBigInt(): bigint
    /**
     * `next()` in base62 (`0-9A-Za-z`), zero-padded to 22 characters: string order (bytewise, or
     * a binary collation such as PostgreSQL's `COLLATE "C"`) is id order. Same state and errors.
     */
    nextBase62(): string
    /**
     * `count` ids, ascending, in one Buffer of `count * 16` bytes. Synchronous: it waits
     * (spinning) when a millisecond's 65,536 are used up.
     *
     * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_TYPE` / `ERR_OUT_OF_RANGE` unless
     *   `count` is an integer from 1 to 2^24.
     */
    nextBatch(count: number): Buffer

    /**
     * The parts of an id: 16 bytes, a `bigint`, a 22-character base62 string, 26 base32
     * characters (ULID's form), or `0x` and 32 hex digits.
     *
     * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_TYPE`, `ERR_INVALID_ARG_VALUE` or
     *   `ERR_OUT_OF_RANGE` for anything else, or an id whose time no `Date` holds.
     */
    static decompose(id: Uint8Array | bigint | string): Flake128.Parts
    /**
     * The 16 bytes of an id written in `format`: 22 base62 characters (the default) or 26
     * base32 ones.
     *
     * @throws {TypeError | RangeError} code `ERR_INVALID_ARG_TYPE` / `ERR_INVALID_ARG_VALUE` for
     *   anything else (saying why), `ERR_OUT_OF_RANGE` for a value past 128 bits.
     */
    static parse(string: string, format?: WideTextFormat): Buffer
    /**
     * The 22-character base62 string of an id in any of `decompose`'s forms.
     *
     * @throws {TypeError | RangeError} as `decompose` does.
     */
    static toBase62(id: Uint8Array | bigint | string): string
    /**
     * An id in any of `decompose`'s forms as text in `format`: base62 (the default) or base32
     * (ULID's 26 characters), zero-padded, whose string order is id order.
     *
     * @throws {TypeError | RangeError} as `decompose` does; naming `format` for another.
     */
    static toText(id: Uint8Array | bigint | string, format?: WideTextFormat): string
  }

  export namespace Flake128 {
    /** Options of `new Flake128`; at most one of `worker` and `interface`. */
    type Options = WorkerOption & {
      /** As `FlakeId`'s: `'host'` (default on the system clock) or `'process'`. Refused with a `clock` option. */
      scope?: 'host' | 'process' | null
      /** An absolute path: the directory of the state file (implies `scope: 'host'`). Default as `FlakeId`'s. */
      stateDir?: string | null
      /** 0 to 62: how far ahead of the clock, in ms, ids may be borrowed when a millisecond's 65,536 are used up or the clock stepped back. Default 0. */
      allowedFutureMs?: number | null
      /** Returns milliseconds since 1970; read once per id instead of the system clock. The instance then keeps a state of its own. */
      clock?: (() => number) | null
    }

    /** Where the worker id comes from: given, or a named interface's MAC address; default, the first non-internal interface's (by name). */
    type WorkerOption =
      | {
          /** The 48-bit worker id: an integer from 0 to 2^48 − 1 (a number, a bigint or a decimal string), or a MAC address such as `'aa:bb:cc:dd:ee:ff'` (or `-`-separated). */
          worker?: number | bigint | string
          interface?: undefined
        }
      | {
          worker?: undefined
          /** A name from `os.networkInterfaces()`, such as `'eth0'`: its MAC address is the worker id. */
          interface?: string
        }

    /** What `Flake128.decompose` reads from an id. */
    interface Parts {
      /** Milliseconds since 1970 (the high 64 bits). */
      timestamp: number
      /** `timestamp` as a Date. */
      date: Date
      /** The 48-bit worker id. */
      worker: number
      /** The 16-bit counter within the millisecond. */
      sequence: number
    }
  }

  export { FlakeId, FlakeId as default }
}

export = FlakeId

/// <reference types="node" />

/**
 * `flake-idgen-rs/client`: ids for a process that holds no generator id, from batches served by
 * members (`generator.batchHandler()`, `flake-idgen serve`), as Hazelcast's clients take theirs.
 * Pure JS: `node:http` in Node, the global `fetch` elsewhere. It loads no native binary (Node,
 * Deno, Bun, edge runtimes) and, off Node, no `node:` module.
 *
 * Ids are `Buffer`s where the runtime has a global `Buffer` (Node, Bun, Deno, Workers with
 * `nodejs_compat`), 8-byte `Uint8Array`s where it has none (Workers without it, Vercel Edge):
 * there, type the client as `client<Uint8Array>(options)`.
 *
 * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION`, naming the option and the value.
 */
declare function client<Id extends Uint8Array = Buffer>(options: client.ClientOptions): client.FlakeIdClient<Id>

declare namespace client {
  /** Options of `FlakeId.client()` / `flake-idgen-rs/client`. */
  export interface ClientOptions {
    /** The members' URLs (http: or https:), each a `batchHandler` or `flake-idgen serve`. */
    members: ReadonlyArray<string | URL>
    /** The bearer token the members were given. */
    token?: string
    /** Ids per batch, 1–100,000 (default 100): Hazelcast's `prefetch-count`. */
    prefetchCount?: number
    /**
     * Ms a batch is used for, measured on the monotonic and the wall clock (default 600,000):
     * Hazelcast's `prefetch-validity-millis`; 0 for ever.
     */
    prefetchValidityMs?: number
    /** Ms a member has to answer before the client goes to another (default 5,000). */
    timeoutMs?: number
  }

  /** A client's counters, since it was made. */
  export interface ClientStats {
    /** Ids handed out. */
    ids: number
    /** Batches received. */
    batches: number
    /** Ids at hand now. */
    prefetched: number
    /** Ids dropped unused: past their validity, or at close(). */
    dropped: number
    /** Requests that went to another member after one failed. */
    failovers: number
    /** Refills that no member served. */
    failures: number
  }

  /**
   * A client of members. `Id`: its ids' type, `Buffer` where the runtime has a global `Buffer`,
   * `Uint8Array` (8 bytes, big-endian) where it has none.
   */
  export class FlakeIdClient<Id extends Uint8Array = Buffer> {
    constructor(options: ClientOptions)
    // next(), nextBigInt(), nextString(): IdMethods, merged in below.
    /**
     * The next id, fetched if none is at hand. Callers are answered in order.
     *
     * @throws {Error} (rejects) code `ERR_FLAKE_MEMBERS_UNAVAILABLE`, naming each member and why,
     *   when none served a batch; `ERR_FLAKE_CLIENT_CLOSED` after `close()`.
     */
    nextAsync(): Promise<Id>
    /** `count` ids (1 to 2^24) in one Buffer (or Uint8Array) of `count * 8` bytes; rejects as `nextAsync`. */
    nextBatchAsync(count: number): Promise<Id>
    stats(): ClientStats
    /** Ends the request in flight and drops the ids at hand; waiting callers reject. */
    close(): void
  }

  /** The id methods, a generator's (`FlakeId.IdMethods`): the same functions on both. */
  export interface FlakeIdClient<Id extends Uint8Array = Buffer> extends IdMethods<Id> {}
  type IdMethods<Id extends Uint8Array> = import('./index').IdMethods<Id>

  /** The same function. */
  export { client }
}

export = client

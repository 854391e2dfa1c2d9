/// <reference types="node" />

/**
 * A generator of 64-bit k-ordered unique ids, returned as 8-byte big-endian Buffers:
 * 42-bit ms timestamp (minus `epoch`) | 5-bit datacenter | 5-bit worker | 12-bit counter.
 *
 * Instances on the system clock with the same `id` and `epoch` share one state per process,
 * worker threads included, so they never return the same id.
 */
declare class FlakeId {
  /**
   * @throws {TypeError | RangeError} code `ERR_FLAKE_INVALID_OPTION`, naming the option and the
   *   value, for an option of the wrong type or out of range.
   */
  constructor(options?: FlakeId.Options | null)

  /** The 10-bit generator id: `options.id`, or `datacenter << 5 | worker`. */
  readonly id: number
  /** `undefined` when `options.id` was given. */
  readonly datacenter: number | undefined
  /** `undefined` when `options.id` was given. */
  readonly worker: number | undefined
  /** Milliseconds since 1970 subtracted from every timestamp. */
  readonly epoch: number
  /** The largest counter value per millisecond: `2^k - 1`. */
  readonly seqMask: number
  /** The options the instance was created with (`{}` if none). */
  readonly options: FlakeId.Options

  /**
   * Returns a new id: a Buffer of 8 bytes with its own ArrayBuffer.
   *
   * @throws {Error} code `ERR_FLAKE_SEQUENCE_OVERFLOW` after `seqMask + 1` ids in one millisecond,
   *   `ERR_FLAKE_CLOCK_BACKWARDS` when the clock is behind the last id's time.
   */
  next(): Buffer
  /**
   * Calls back asynchronously with a new id. Never fails for overflow or a clock that moved
   * backwards: it waits for the next millisecond, or for the clock to catch up. Callbacks are
   * answered in call order, with increasing ids.
   */
  next(callback: FlakeId.Callback): void
}

declare namespace FlakeId {
  /** Numbers may also be given as numeric strings, e.g. `worker: process.env.WORKER_ID`. */
  export interface Options {
    /** Generator id, 0–1023. Wins over `datacenter` and `worker` when given. */
    id?: number | string
    /** Datacenter id, 0–31. Default 0. */
    datacenter?: number | string | null
    /** Worker id, 0–31. Default 0. */
    worker?: number | string | null
    /** Milliseconds since 1970 to subtract from timestamps, not in the future. Default 0. */
    epoch?: number | Date | string | null
    /** `2^k - 1` for k from 1 to 12: at most `seqMask + 1` ids per millisecond. Default 4095. */
    seqMask?: number | string | null
    /**
     * Returns milliseconds since 1970; called for each id instead of the system clock (fake
     * time in tests). An instance with its own clock keeps its own state.
     */
    clock?: (() => number) | null
  }

  /**
   * Node-style callback: `(null, id)` on success; `(error)` for the errors waiting cannot cure,
   * a {@link FlakeIdError} or whatever the `clock` function threw.
   */
  export type Callback = (error: Error | null, id: Buffer) => void

  /** Errors thrown by this package carry a stable `code`. */
  export interface FlakeIdError extends Error {
    code:
      | 'ERR_FLAKE_SEQUENCE_OVERFLOW'
      | 'ERR_FLAKE_CLOCK_BACKWARDS'
      | 'ERR_FLAKE_CLOCK_BEFORE_EPOCH'
      | 'ERR_FLAKE_TIMESTAMP_OVERFLOW'
      | 'ERR_FLAKE_INVALID_OPTION'
      | 'ERR_FLAKE_INVALID_CLOCK'
  }

  export { FlakeId, FlakeId as default }
}

export = FlakeId

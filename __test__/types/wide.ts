// 128-bit ids (issue 24): uuidv7 and Flake128, through each import form.
import FlakeId = require('../..')

import { Flake128, uuidv7 } from '../..'

// uuidv7: uuid's v7 signatures.
const text: string = uuidv7()
const buffer: Buffer = uuidv7(undefined, Buffer.alloc(16))
const array: Uint8Array = uuidv7(null, new Uint8Array(32), 16)
const empty: Buffer = uuidv7({}, Buffer.allocUnsafe(16), 0)
const viaClass: string = FlakeId.uuidv7()
const batch: Buffer = uuidv7.batch(1000)
const back: string = uuidv7.stringify(batch, 16)
const bytes: Buffer = uuidv7.parse(text)
const parts: FlakeId.uuidv7.Parts = uuidv7.decompose(text)
const random: bigint = uuidv7.decompose(bytes).random
const sequence: number = parts.sequence
const ms: number = uuidv7.timestamp(buffer)
const date: Date = parts.date
const alsoText: string = uuidv7({})
const nullText: string = uuidv7(null)

// A generator of its own options.
const options: uuidv7.Options = { scope: 'process', allowedFutureMs: 10 }
const own: uuidv7.Generator = uuidv7.create(options)
const ownText: string = own()
const ownBuffer: Buffer = own(undefined, Buffer.alloc(16))
const ownBatch: Buffer = own.batch(10)
const faked = uuidv7.create({ clock: () => Date.now() })
uuidv7.create({ stateDir: '/run/user/1000/ids' })
uuidv7.create()
uuidv7.create(null)

// uuid's options: uuid's bytes for them (issue 33).
const backfilled: string = uuidv7({ msecs: Date.UTC(2020, 0), seq: 5, random: new Uint8Array(16) })
const intoBuffer: Buffer = uuidv7({ msecs: 1, rng: () => new Uint8Array(16) }, Buffer.alloc(16))
// @ts-expect-error msecs is a number
uuidv7({ msecs: new Date() })
// @ts-expect-error a typo of uuid's options
uuidv7({ msec: 1 })
// @ts-expect-error the buffer form needs a Uint8Array
uuidv7(undefined, 'buffer')
// @ts-expect-error an offset is a number
uuidv7(undefined, Buffer.alloc(16), '0')
// @ts-expect-error the buffer form returns the buffer, not a string
const notText: string = uuidv7(undefined, Buffer.alloc(16))
// @ts-expect-error the string form returns a string
const notBuffer: Buffer = uuidv7()
// @ts-expect-error create takes no uuid options
uuidv7.create({ random: new Uint8Array(16) })
// @ts-expect-error scope is 'host' or 'process'
uuidv7.create({ scope: 'cluster' })
// @ts-expect-error a created generator has no create of its own
own.create()
// @ts-expect-error parse takes the string form
uuidv7.parse(bytes)
// @ts-expect-error the random bits are a bigint
const notNumber: number = parts.random
// @ts-expect-error decompose takes a string or bytes
uuidv7.decompose(42n)

void [
  date,
  alsoText,
  nullText,
  array,
  empty,
  viaClass,
  back,
  random,
  sequence,
  ms,
  ownText,
  ownBuffer,
  ownBatch,
  faked,
  notText,
  notBuffer,
]
void notNumber

// Flake128: Boundary's flake.
const flake = new Flake128()
const byWorker = new Flake128({ worker: 0xaabbccddeeffn, scope: 'host', allowedFutureMs: 5 })
const byMac = new Flake128({ worker: 'aa:bb:cc:dd:ee:ff', stateDir: '/run/user/1000/ids' })
const byInterface = new Flake128({ interface: 'eth0', worker: undefined })
const withClock = new Flake128({ worker: 1, clock: () => Date.now() })
new Flake128(null)
const flakeOptions: Flake128.Options = { worker: 42 }
const sameClass: typeof Flake128 = FlakeId.Flake128
const id: Buffer = flake.next()
const big: bigint = byWorker.nextBigInt()
const base62: string = byMac.nextBase62()
const many: Buffer = byInterface.nextBatch(100)
const worker: number = withClock.worker
const scope: 'host' | 'process' = flake.scope
const flakeParts: Flake128.Parts = Flake128.decompose(id)
const when: number = Flake128.decompose(base62).timestamp
const fromBig: number = Flake128.decompose(big).worker
const parsed: Buffer = Flake128.parse(base62)
const encoded: string = Flake128.toBase62(big)
const flakeDate: Date = flakeParts.date

// @ts-expect-error worker and interface together are refused
new Flake128({ worker: 1, interface: 'eth0' })
// @ts-expect-error a worker id is a number, a bigint or a MAC string
new Flake128({ worker: true })
// @ts-expect-error null is no worker id (and no default)
new Flake128({ worker: null })
// @ts-expect-error no datacenter: the worker id is 48 bits
new Flake128({ datacenter: 1 })
// @ts-expect-error next() returns a Buffer
const notString: string = flake.next()
// @ts-expect-error the worker id is read-only
flake.worker = 2
// @ts-expect-error decompose is static
flake.decompose(id)
// @ts-expect-error Flake128's parts have no random bits
Flake128.decompose(id).random
// @ts-expect-error toBase62 takes bytes or a bigint
Flake128.toBase62(42)

void [flakeDate, flakeOptions, sameClass, many, worker, scope, flakeParts, when, fromBig, parsed, encoded, notString]
void [backfilled, intoBuffer]

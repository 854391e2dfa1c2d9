// The additions beyond flake-idgen, through the `import = require()` form.
import FlakeId = require('../..')

const generator = new FlakeId({ id: 3, allowedFutureMs: 5 })
const big: bigint = generator.nextBigInt()
const text: string = generator.nextString()
const later: Promise<Buffer> = generator.nextAsync()
const batch: Buffer = generator.nextBatch(10)
const batchLater: Promise<Buffer> = generator.nextBatchAsync(10)
const abortable: Promise<Buffer> = generator.nextBatchAsync(10, { signal: AbortSignal.timeout(100) })
const stats: FlakeId.Stats = generator.stats()
const waits: number = stats.waits
const allowed: number = generator.allowedFutureMs

const parts: FlakeId.Parts = FlakeId.decompose(big, generator)
const when: Date = FlakeId.decompose('0x0230815000000000').date
const sequence: number = FlakeId.decompose(batch.subarray(0, 8), { epoch: new Date(0) }).sequence
const since: bigint = FlakeId.fromTime(new Date(), { epoch: 0 })

// @ts-expect-error decompose takes a Buffer, a bigint or a string
FlakeId.decompose(42)
// @ts-expect-error fromTime returns a bigint
const notANumber: number = FlakeId.fromTime(Date.now())
// @ts-expect-error a batch size is a number
generator.nextBatch('10')
// @ts-expect-error the signal is an AbortSignal
generator.nextBatchAsync(10, { signal: true })
// @ts-expect-error allowedFutureMs is read-only
generator.allowedFutureMs = 1

void [text, later, batchLater, abortable, waits, allowed, parts, when, sequence, since, notANumber]

const scoped: 'host' | 'process' = new FlakeId({ scope: 'process' }).scope
const inDir = new FlakeId({ stateDir: '/run/user/1000/ids', scope: null })
// @ts-expect-error scope is 'host' or 'process'
new FlakeId({ scope: 'cluster' })
// @ts-expect-error scope is read-only
inDir.scope = scoped

async function leased(store: object): Promise<void> {
  const generator: FlakeId.Leased = await FlakeId.lease({
    store,
    namespace: 'orders',
    ids: [0, 15],
    ttl: 30_000,
    onLost: (error) => console.error(error.code),
  })
  const asFlake: FlakeId = generator
  const id: number = generator.id
  const ceiling: number | undefined = generator.lease?.ceiling
  await generator.close()
  // @ts-expect-error a lease sets the id
  await FlakeId.lease({ store, namespace: 'orders', id: 3 })
  // @ts-expect-error a namespace is required
  await FlakeId.lease({ store })
  // The state its id issues from: the host's (in a directory of its own), or the process's.
  const inProcess = await FlakeId.lease({ store, namespace: 'orders', scope: 'process' })
  const leasedScope: 'host' | 'process' = inProcess.scope
  await FlakeId.lease({ store, namespace: 'orders', stateDir: '/run/user/1000/ids' })
  // @ts-expect-error scope is 'host' or 'process'
  await FlakeId.lease({ store, namespace: 'orders', scope: 'cluster' })
  void [asFlake, id, ceiling, leasedScope]
}
void leased

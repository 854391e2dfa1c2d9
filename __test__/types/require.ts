// `import = require()`, the form that works without esModuleInterop.
import FlakeId = require('../..')

const generator = new FlakeId({ datacenter: 9, worker: '7', epoch: new Date('2020-01-01') })
const id: Buffer = generator.next()
const nothing: void = generator.next((error, id) => {
  const code: string | undefined = (error as FlakeId.FlakeIdError | null)?.code
  const bytes: Buffer = id
  void code
  void bytes
})
const generatorId: number = generator.id
const worker: number | undefined = generator.worker
const options: FlakeId.Options = { id: 5, clock: () => Date.now(), seqMask: 4095 }
new FlakeId(options)
new FlakeId()
new FlakeId(null)

// @ts-expect-error epoch is a number, a bigint, a Date or a string
new FlakeId({ epoch: true })
// @ts-expect-error clock returns milliseconds
new FlakeId({ clock: () => 'now' })
// @ts-expect-error id is read-only
generator.id = 3
// @ts-expect-error next(cb) returns nothing
const notABuffer: Buffer = generator.next(() => {})

void [id, nothing, generatorId, worker, notABuffer]

// Issue 41: members and clients, through the main export and the `flake-idgen-rs/client` subpath.
import http = require('node:http')
import FlakeId = require('../..')
import client = require('../../client')

const generator = new FlakeId({ id: 3 })
const handler: FlakeId.BatchHandler = generator.batchHandler({ token: 'secret', maxCount: 1000 })
http.createServer(handler)
const served: number = handler.stats().ids
generator.batchHandler({ allowNoToken: true })

const fromMain: FlakeId.Client = FlakeId.client({ members: ['http://127.0.0.1:8080/'], token: 'secret' })
const fromSubpath: client.FlakeIdClient = client({
  members: [new URL('http://127.0.0.1:8080/')],
  prefetchCount: 100,
  prefetchValidityMs: 600_000,
})
const id: Buffer = fromSubpath.next()
const big: bigint = fromMain.nextBigInt()
const text: string = fromMain.nextString()
const later: Promise<Buffer> = fromMain.nextAsync()
const many: Promise<Buffer> = fromMain.nextBatchAsync(10)
fromMain.next((error: Error | null, got: Buffer) => void [error, got])
const stats: FlakeId.ClientStats = fromMain.stats()
const dropped: number = stats.dropped
fromMain.close()

// @ts-expect-error members are required
client({ token: 'secret' })
// @ts-expect-error a token is a string
generator.batchHandler({ token: 5 })
// @ts-expect-error a batch size is a number
fromMain.nextBatchAsync('10')
void [served, id, big, text, later, many, dropped]

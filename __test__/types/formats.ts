// Issue 52, item 4a: the id methods typed once, in FlakeId.IdMethods<Id>, which generators and
// clients both have, with the client's id type where the runtime has no Buffer.
import FlakeId = require('../..')
import client = require('../../client')

const generator = new FlakeId({ id: 3 })
const onEdge = client<Uint8Array>({ members: ['https://ids.example/'] })
const inNode = client({ members: ['https://ids.example/'] })

const methods: FlakeId.IdMethods = generator
const ofClient: FlakeId.IdMethods<Buffer> = inNode
const ofEdge: FlakeId.IdMethods<Uint8Array> = onEdge
const bytes: Uint8Array = onEdge.next()
const big: bigint = onEdge.nextBigInt()
const text: string = onEdge.nextString()
onEdge.next((error: Error | null, id: Uint8Array) => void [error, id])
declare const held: FlakeId.Leased
const leased: Buffer = held.next()
const callback: FlakeId.Callback<Uint8Array> = (_error, id) => void id.byteLength

// @ts-expect-error an edge client's ids are Uint8Arrays, not Buffers
const notBuffer: Buffer = onEdge.next()
// @ts-expect-error nextString() returns a string
const notBig: bigint = generator.nextString()
// @ts-expect-error next(cb) returns nothing
const nothing: Buffer = inNode.next(() => {})
void [methods, ofClient, ofEdge, bytes, big, text, leased, callback, notBuffer, notBig, nothing]

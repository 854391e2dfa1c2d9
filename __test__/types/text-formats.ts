// Issue 53: the text forms of ids, typed from the rows: nextString(format) on generators and
// clients, FlakeId.parse and decompose's `format`, and the 128-bit kinds' base32 and base62.
import FlakeId = require('../..')
import client = require('../../client')

const generator = new FlakeId({ id: 3 })
const onEdge = client<Uint8Array>({ members: ['https://ids.example/'] })

const formats: FlakeId.TextFormat[] = ['decimal', 'base32', 'base62', 'hex']
const texts: string[] = formats.map((format) => generator.nextString(format))
const fromClient: string = onEdge.nextString('base32')
const byDefault: string = generator.nextString(null)
const bytes: Buffer = FlakeId.parse(texts[1], 'base32')
const decimal: Buffer = FlakeId.parse(texts[0])
const parts: FlakeId.Parts = FlakeId.decompose(texts[3], { format: 'hex' })
const discord: number = FlakeId.decompose('0', { layout: 'discord', format: 'decimal' }).increment

const { uuidv7, Flake128 } = FlakeId
const ulid: string = uuidv7.stringify(uuidv7(undefined, new Uint8Array(16)), 0, 'base32')
const uuid: Buffer = uuidv7.parse(ulid, 'base32')
const flake: string = Flake128.toText(new Flake128({ worker: 1 }).next(), 'base32')
const fromFlake: Buffer = Flake128.parse(flake, 'base32')
const wide: FlakeId.WideTextFormat = 'base62'

// @ts-expect-error not a format
generator.nextString('base64')
// @ts-expect-error a radix is not a format
generator.nextString(16)
// @ts-expect-error decimal and hex are not forms of 128-bit ids
uuidv7.stringify(new Uint8Array(16), 0, 'hex')
// @ts-expect-error nor is a 64-bit id's text a Flake128's
Flake128.parse(flake, 'decimal')
// @ts-expect-error parse takes a string
FlakeId.parse(5n)
void [texts, fromClient, byDefault, bytes, decimal, parts, discord, uuid, fromFlake, wide]

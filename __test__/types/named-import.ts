import type { Options } from '../..'
import { FlakeId } from '../..'

const options: Options = { worker: 3 }
const id: Buffer = new FlakeId(options).next()
void id

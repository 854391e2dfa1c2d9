import { FlakeId } from '../..'
import type { Options } from '../..'

const options: Options = { worker: 3 }
const id: Buffer = new FlakeId(options).next()
void id

// Default import, as with esModuleInterop (and from ESM).
import FlakeId from '../..'

const id: Buffer = new FlakeId({ id: 1 }).next()
const sameClass: typeof FlakeId = FlakeId.default
void [id, sameClass]

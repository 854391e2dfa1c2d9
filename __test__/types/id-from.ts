// The node id from the orchestrator (issue 53): `idFrom`'s sources and `idOffset`.
import FlakeId = require('../..')

const pod = new FlakeId({ idFrom: 'statefulset' })
const job = new FlakeId({ idFrom: 'job-index', layout: 'sonyflake', idOffset: 60_000 })
const pm2 = new FlakeId({ idFrom: 'pm2', idOffset: '512' })
const shard = new FlakeId({ idFrom: 'env:SHARD', idOffset: null })
const unset = new FlakeId({ idFrom: null, id: 3 })
const ids: number[] = [pod.id, job.id, pm2.id, shard.id, unset.id]
const options: FlakeId.Options<'twitter'> = { layout: 'twitter', idFrom: 'statefulset', idOffset: 100 }
const code: FlakeId.FlakeIdError['code'] = 'ERR_FLAKE_ID_FROM'

// @ts-expect-error: no such source
new FlakeId({ idFrom: 'kubernetes' })
// @ts-expect-error: a source is named, not numbered
new FlakeId({ idFrom: 7 })
// @ts-expect-error: idOffset is a number
new FlakeId({ idFrom: 'pm2', idOffset: true })
// @ts-expect-error: a lease's node id comes from its store
FlakeId.lease({ store: {}, namespace: 'orders', idFrom: 'pm2' })
void [ids, options, code]

'use strict'
// For the member-load tests and bench/member-flood.js: a member's batches asked for many at once
// over real loopback HTTP, and every id they hold, checked for duplicates.

const http = require('node:http')
const wire = require('../../lib/wire/batch-wire.js')

/** POSTs `url` (a member's, with its `?count=`): status, headers and body as a Buffer. */
function ask(url, headers, agent) {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers, agent }, (response) => {
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }),
      )
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end()
  })
}

/** Every id of the binary batches in `bodies`, and `more` (Buffers of 8-byte ids), in one BigUint64Array. */
function idsOf(bodies, more = []) {
  const batches = bodies.map((body) => wire.decode(body))
  let total = more.reduce((sum, ids) => sum + ids.length / 8, 0)
  for (const batch of batches) total += wire.countOf(batch.ranges)
  const all = Buffer.allocUnsafe(total * 8)
  let offset = 0
  for (const batch of batches) offset = wire.writeIds(batch, all, offset)
  for (const ids of more) offset += ids.copy(all, offset)
  const view = new BigUint64Array(total)
  for (let k = 0; k < total; k++) view[k] = all.readBigUInt64BE(k * 8)
  return view
}

/** How many ids of `ids` (a BigUint64Array) equal another. */
function duplicates(ids) {
  ids.sort()
  let repeated = 0
  for (let k = 1; k < ids.length; k++) if (ids[k] === ids[k - 1]) repeated++
  return repeated
}

module.exports = { ask, idsOf, duplicates }

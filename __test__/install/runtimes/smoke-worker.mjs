// A worker of smoke.mjs's workerThreads check: takes `count` ids and posts them back.
import { parentPort, workerData } from 'node:worker_threads'
import FlakeId from 'flake-idgen-rs'

const { options, count } = workerData
const generator = new FlakeId(options)
const ids = Buffer.alloc(count * 8)
for (let at = 0; at < ids.length; ) {
  try {
    ids.set(generator.next(), at)
    at += 8
  } catch (error) {
    if (error.code !== 'ERR_FLAKE_SEQUENCE_OVERFLOW') throw error
  }
}
parentPort.postMessage(ids)

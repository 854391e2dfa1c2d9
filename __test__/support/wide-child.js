'use strict'
// A process of the 128-bit id tests, run by wide-helpers.js as `node wide-child.js JOB_JSON`:
//   take    `count` ids of `kind` ('uuid': the exported uuidv7, or uuidv7.create(options) when
//           `options` is not null; 'flake128': new Flake128(options)) from when Date.now() reaches
//           `startAt`, written to `out` at the end: 16-byte ids end to end (form 'bytes') or one
//           string a line (form 'string': uuidv7() or nextBase62()). Every `lockEvery`-th id is
//           taken holding the lock file of `lockDir` and appended to `logFile` under it, as
//           `child index hex`: the log is in issue order across the children.
//   nomac   os.networkInterfaces() replaced by one returning `stub` before the package loads;
//           prints new Flake128(options)'s worker, or the error it threw
//   copies  two copies of the package's JS (require.cache cleared between) interleaved; prints
//           how many ids were not above the one before

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')
const job = JSON.parse(process.argv[2])

const pause = new Int32Array(new SharedArrayBuffer(4))
const LOCK_PATIENCE_MS = 120_000

/** Runs `fn` holding the lock: a file created exclusively, removed to release it. */
function locked(lockFile, fn) {
  const deadline = Date.now() + LOCK_PATIENCE_MS
  for (let tries = 0; ; tries++) {
    try {
      fs.closeSync(fs.openSync(lockFile, 'wx'))
      break
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
    }
    if (Date.now() > deadline) throw new Error(`lock ${lockFile} held for over ${LOCK_PATIENCE_MS} ms`)
    // Let a holder that was descheduled run, on a machine with fewer cores than children.
    if (tries > 50) Atomics.wait(pause, 0, 0, 1)
  }
  try {
    return fn()
  } finally {
    fs.unlinkSync(lockFile)
  }
}

/** The function issuing one id: into `ids` at id `index`, or returning a string. */
function issuer({ kind, options, form }) {
  const { uuidv7, Flake128 } = require(ROOT)
  if (kind === 'uuid') {
    const generate = options === null ? uuidv7 : uuidv7.create(options)
    return form === 'string' ? () => generate() : (ids, index) => generate(undefined, ids, index * 16)
  }
  const generator = new Flake128(options)
  return form === 'string' ? () => generator.nextBase62() : (ids, index) => ids.set(generator.next(), index * 16)
}

function take() {
  const { count, startAt, out, child, form, lockEvery, lockDir, logFile } = job
  const issue = issuer(job)
  const ids = form === 'string' ? new Array(count) : Buffer.alloc(count * 16)
  const logged =
    form === 'string'
      ? (index) => (job.kind === 'uuid' ? ids[index].replaceAll('-', '') : ids[index])
      : (index) => ids.toString('hex', index * 16, index * 16 + 16)
  const one = form === 'string' ? (index) => (ids[index] = issue()) : (index) => issue(ids, index)
  const lockFile = path.join(lockDir, 'lock')
  while (Date.now() < startAt);
  for (let index = 0; index < count; index++) {
    if (lockEvery && index % lockEvery === lockEvery - 1) {
      locked(lockFile, () => {
        one(index)
        fs.appendFileSync(logFile, `${child} ${index} ${logged(index)}\n`)
      })
    } else {
      one(index)
    }
  }
  fs.writeFileSync(out, form === 'string' ? `${ids.join('\n')}\n` : ids)
}

function nomac() {
  os.networkInterfaces = () => job.stub
  const { Flake128 } = require(ROOT)
  try {
    return { worker: new Flake128(job.options).worker }
  } catch (error) {
    return { error: { name: error.name, code: error.code, message: error.message } }
  }
}

/** The package's JS loaded again, the binary kept, as a test runner's fresh registry does. */
function fresh() {
  for (const key of Object.keys(require.cache)) {
    if (key !== __filename && !key.endsWith('.node')) delete require.cache[key]
  }
  return require(ROOT)
}

function copies() {
  const first = require(ROOT)
  // A copy loads these when they are first read, from require.cache as it is then: read before
  // the cache is cleared, they are the first copy's own.
  const own = { uuidv7: first.uuidv7, Flake128: first.Flake128 }
  const second = fresh()
  const flakes = [new own.Flake128({ worker: 7 }), new second.Flake128({ worker: 7 })]
  let uuids = 0
  let uuidsNotIncreasing = 0
  let flakesNotIncreasing = 0
  let last = ''
  let lastFlake = Buffer.alloc(16)
  const bytes = Buffer.alloc(16)
  for (let round = 0; round < 10_000; round++) {
    for (const [k, { uuidv7 }] of [own, second].entries()) {
      const ids = [uuidv7(), uuidv7.stringify(uuidv7(undefined, bytes)), uuidv7.stringify(uuidv7.batch(1))]
      for (const id of ids) {
        uuids++
        if (id <= last) uuidsNotIncreasing++
        last = id
      }
      const flake = flakes[k].next()
      if (Buffer.compare(flake, lastFlake) <= 0) flakesNotIncreasing++
      lastFlake = flake
    }
  }
  return {
    distinct: own.uuidv7 !== second.uuidv7 && own.Flake128 !== second.Flake128,
    uuids,
    uuidsNotIncreasing,
    flakesNotIncreasing,
  }
}

if (job.mode === 'take') take()
else if (job.mode === 'nomac') console.log(JSON.stringify(nomac()))
else if (job.mode === 'copies') console.log(JSON.stringify(copies()))
else throw new Error(`unknown mode ${job.mode}`)

'use strict'
// A process of sigbus-handlers.test.js: truncates its state file under a generator and touches
// the mapping at once, with a SIGBUS listener of Node's added (process.on) in the order MODE says:
//
//   node sigbus-child.js MODE DIR   (DIR: where to make its state directories)
//
//   before   added before the first host-scope generator; prints how the truncation ended
//   removed  added before it, then removed after it (Node then puts back the default action)
//   after    added after it; the truncation is touched in a worker thread, so that the main
//            thread is free to run the listener, which prints and ends the process
//
// The touch must come within the 20 ms in which a generator issues without looking at the
// file again; an attempt that missed it (the generator looked, and saw the file truncated)
// prints nothing and is made again on a fresh directory, with another generator id: one id
// issues from one state directory in a process.

const fs = require('node:fs')
const path = require('node:path')
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads')
const FlakeId = require('../..')

const ATTEMPTS = 20

// Under the test's directory, which it removes: this process may end by a signal.
const [mode, parent] = process.argv.slice(2)

const freshDir = () => {
  const dir = fs.mkdtempSync(path.join(parent, 'attempt-'))
  fs.chmodSync(dir, 0o700)
  return dir
}

/**
 * Truncates `dir`'s state file under generator `id` and issues: `faulted`, `looked` or `issued`.
 */
function attempt(dir, id) {
  const generator = new FlakeId({ id, stateDir: dir })
  generator.next()
  fs.truncateSync(path.join(dir, 'epoch-0.state'), 0)
  try {
    generator.next()
    return 'issued'
  } catch (error) {
    // Marked by our SIGBUS handler, or seen by the generator looking at the file.
    return error.message.includes('truncated while mapped') ? 'faulted' : 'looked'
  }
}

function main(mode) {
  const listener = () => {
    fs.writeSync(1, 'listener\n')
    // process.exit() would wait for the faulting thread, which never returns.
    process.kill(process.pid, 'SIGKILL')
  }
  if (mode !== 'after') {
    process.on('SIGBUS', listener)
    // Our handler is installed with the first state file mapped, over Node's.
    new FlakeId({ id: 6, stateDir: freshDir() }).next()
    if (mode === 'removed') process.off('SIGBUS', listener)
    for (let i = 0; i < ATTEMPTS; i++) {
      const outcome = attempt(freshDir(), 100 + i)
      if (outcome !== 'looked') return fs.writeSync(1, `${outcome}\n`)
    }
    return fs.writeSync(1, 'never touched\n')
  }
  // Our handler is installed with the first state file mapped: then Node's listener.
  new FlakeId({ id: 6, stateDir: freshDir() }).next()
  process.on('SIGBUS', listener)
  let left = ATTEMPTS
  const next = () => {
    if (left-- === 0) return fs.writeSync(1, 'never touched\n')
    const worker = new Worker(__filename, { workerData: { dir: freshDir(), id: 100 + left } })
    worker.on('message', (outcome) => (outcome === 'looked' ? next() : fs.writeSync(1, `worker: ${outcome}\n`)))
  }
  next()
}

if (isMainThread) main(mode)
else parentPort.postMessage(attempt(workerData.dir, workerData.id))

'use strict'
// The devDependencies' runtimes (deno, bun) that the client tests run their code in.

const { execFileSync } = require('node:child_process')
const path = require('node:path')

const BIN = path.join(__dirname, '..', '..', 'node_modules', '.bin')
const found = new Map()

/** `{ binary }`, the devDependency's binary of `runtime`, or `{ skip }`, why it does not run here. */
function devRuntime(runtime) {
  if (!found.has(runtime)) {
    const binary = path.join(BIN, runtime)
    try {
      execFileSync(binary, ['--version'], { stdio: 'pipe', timeout: 60_000 })
      found.set(runtime, { binary })
    } catch (error) {
      found.set(runtime, { skip: `no ${runtime} that runs here: ${String(error.message).split('\n')[0]}` })
    }
  }
  return found.get(runtime)
}

module.exports = { devRuntime }

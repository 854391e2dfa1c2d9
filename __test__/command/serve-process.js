'use strict'
// `flake-idgen serve` as a child process, for the serve*.test.js files: started on a free loopback
// port with a token file of its own, its listening line read, killed when the test ends.

const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const readline = require('node:readline')

const BIN = path.join(__dirname, '..', '..', 'bin', 'flake-idgen.js')
const TOKEN = 'serve-test-token-0123456789'

/** A temp directory holding a token file (mode 0600); removed by cleanup(). */
function tokenDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-serve-m2-'))
  const tokenFile = path.join(dir, 'token')
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 })
  return { dir, tokenFile, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/** `flake-idgen serve ARGS` run to its end (a refusal): status, stdout, stderr. */
function runServe(args) {
  return spawnSync(process.execPath, [BIN, 'serve', ...args], { encoding: 'utf8', timeout: 20_000 })
}

/**
 * `flake-idgen serve --port 0 ARGS` started: its child, port, node id, what it wrote on stderr
 * so far, and its exit status (a promise). Rejects, with its stderr, if it exits before listening.
 */
async function startServe(args, options = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  })
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = new Promise((resolve) => child.once('exit', (status, signal) => resolve(status ?? signal)))
  const line = await Promise.race([
    new Promise((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve)),
    exited.then((status) => {
      throw new Error(`serve exited (${status}) before listening: ${stderr}`)
    }),
  ])
  const [, port, node] = /listening on http:\/\/127\.0\.0\.1:(\d+)\/ as node id (\d+)$/.exec(line) ?? []
  if (port === undefined) throw new Error(`not a listening line: ${line}`)
  return {
    child,
    port: Number(port),
    url: `http://127.0.0.1:${port}/`,
    node: Number(node),
    exited,
    stderr: () => stderr,
    kill: () => child.kill('SIGKILL'),
  }
}

module.exports = { BIN, TOKEN, tokenDir, runServe, startServe }

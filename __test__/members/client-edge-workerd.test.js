'use strict'
// Issue 50: a client kept at module scope in Cloudflare's workerd (npm's `workerd`), the Workers
// recipe of docs/clients.md bundled as written, against a real member on loopback. Before, request
// 51 and every later one answered 500 ("Cannot perform I/O on behalf of a different request") with
// nodejs_compat, and without it the bundle failed at load ("Dynamic require of node:buffer").
// Each run: 1,100 requests, 8 at a time (callers of several requests waiting on one refill), 11+
// batches; every request answered, all ids distinct, none older than the validity.

const { describe, it, before, after } = require('node:test')
const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { TOKEN, startMember, bundled, freePort, answering, manyRequests, BIN } = require('./client-edge-helpers.js')

const WORKERD = path.join(BIN, process.platform === 'win32' ? 'workerd.cmd' : 'workerd')
// workerd's npm package ships binaries for Linux, macOS and Windows on x64 and arm64.
const skip = fs.existsSync(WORKERD) ? false : 'npm installed no workerd binary for this platform'

/** workerd's config: the bundle as the one module, the member's URL and token as text bindings. */
function config({ port, members, flags }) {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # The members are on loopback, which workerd's default outbound (public addresses) refuses.
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "dist/worker.js")],
  # The date nodejs_compat v2 came: its globals (process, Buffer) come with the flag, not without.
  compatibilityDate = "2024-09-23",
  compatibilityFlags = [${flags.map((flag) => JSON.stringify(flag)).join(', ')}],
  globalOutbound = "loopback",
  bindings = [(name = "ID_MEMBERS", text = ${JSON.stringify(members)}), (name = "ID_TOKEN", text = ${JSON.stringify(TOKEN)})],
);
`
}

/** workerd serving `dir`'s bundle with `flags` on a free port: { url, output, stop }. */
async function serve(dir, members, flags) {
  const port = await freePort()
  fs.writeFileSync(path.join(dir, 'config.capnp'), config({ port, members, flags }))
  const child = spawn(WORKERD, ['serve', 'config.capnp'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise((resolve) => child.on('exit', resolve))
  const url = `http://127.0.0.1:${port}/`
  await Promise.race([
    answering(url, 'workerd'),
    exited.then((code) => Promise.reject(new Error(`workerd exited (${code}): ${output}`))),
  ])
  return {
    url,
    output: () => output,
    async stop() {
      child.kill()
      await exited
    },
  }
}

describe('a client kept at module scope in workerd', { skip, timeout: 120_000 }, () => {
  let member
  let dir
  before(async () => {
    member = await startMember(31)
    dir = bundled()
  })
  after(() => member?.close())

  for (const flags of [['nodejs_compat'], []]) {
    it(`answers 1,100 requests from 11+ batches, ${flags.length ? 'with' : 'without'} nodejs_compat`, async (t) => {
      const workerd = await serve(dir, member.url, flags)
      t.after(() => workerd.stop())
      try {
        await manyRequests(workerd.url, member, 31)
      } catch (error) {
        error.message += `\nworkerd said: ${workerd.output().slice(-2000)}`
        throw error
      }
    })
  }
})

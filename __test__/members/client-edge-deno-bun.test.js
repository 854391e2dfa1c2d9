'use strict'
// Issue 50: the Workers recipe of docs/clients.md, bundled as written, served by Deno
// (`Deno.serve`, as on Deno Deploy) and Bun (`Bun.serve`) from the devDependencies, a client kept
// at module scope against a real member on loopback: 1,100 requests, 8 at a time, 11+ batches;
// every request answered, all ids distinct, none older than the validity.

const { describe, it, before, after } = require('node:test')
const { spawn } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { TOKEN, startMember, bundled, answering, manyRequests } = require('./client-edge-helpers.js')
const { devRuntime } = require('../support/dev-runtime.js')

// A server of the bundle's handler on a free loopback port, which prints its port. The bindings
// are given as Workers give them, in the handler's `env`.
const SERVERS = {
  deno: `import worker from './dist/worker.js'
const env = JSON.parse(Deno.args[0])
Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(port) }, (request) => worker.fetch(request, env))
`,
  bun: `import worker from './dist/worker.js'
const env = JSON.parse(Bun.argv[2])
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => worker.fetch(request, env) })
console.log(server.port)
`,
}
const ARGS = { deno: ['run', '--allow-net=127.0.0.1', 'serve.mjs'], bun: ['serve.mjs'] }

describe('a client kept at module scope in Deno and Bun', { timeout: 120_000 }, () => {
  let member
  let dir
  before(async () => {
    member = await startMember(35)
    dir = bundled()
  })
  after(() => member?.close())

  for (const runtime of ['deno', 'bun']) {
    const { binary, skip } = devRuntime(runtime)
    it(`${runtime}: answers 1,100 requests from 11+ batches`, { skip: skip ?? false }, async (t) => {
      fs.writeFileSync(path.join(dir, 'serve.mjs'), SERVERS[runtime])
      const env = JSON.stringify({ ID_MEMBERS: member.url, ID_TOKEN: TOKEN })
      const child = spawn(binary, [...ARGS[runtime], env], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      })
      const exited = new Promise((resolve) => child.on('exit', resolve))
      t.after(async () => {
        child.kill()
        await exited
      })
      let output = ''
      child.stderr.on('data', (chunk) => (output += chunk))
      const port = await Promise.race([
        new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(Number.parseInt(chunk, 10)))),
        exited.then((code) => Promise.reject(new Error(`${runtime} exited (${code}): ${output}`))),
      ])
      const url = `http://127.0.0.1:${port}/`
      await answering(url, runtime)
      try {
        await manyRequests(url, member, 35)
      } catch (error) {
        error.message += `\n${runtime} said: ${output.slice(-2000)}`
        throw error
      }
    })
  }
})

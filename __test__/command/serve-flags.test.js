'use strict'
// Issue 50, part 4: `flake-idgen serve`'s flags. Without --id it served as node id 0, silently (two
// such members on two hosts repeat each other's ids); its --help was the general one; a token file
// no client can match started a member answering 401 to everyone; --allowed-future-ms was missing.

const assert = require('node:assert/strict')
const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')
const { describe, it, after } = require('node:test')
const { assertUsageErrors } = require('../support/helpers.js')
const { BIN, TOKEN, tokenDir, runServe, startServe } = require('./serve-process.js')

describe('flake-idgen serve: flags', { timeout: 60_000 }, () => {
  const { dir, tokenFile, cleanup } = tokenDir()
  after(cleanup)
  const token = ['--token-file', tokenFile]

  it('needs --id or --lease: no silent node id 0; and checks --allowed-future-ms', () => {
    assertUsageErrors(runServe, [
      [
        ['--port', '0', ...token],
        'serve needs --id N, --id-from SOURCE [--id-offset N] or --lease URL --namespace N: each member needs a node id of its own',
      ],
      [
        ['--port', '0', '--id', '1', '--allowed-future-ms', '-5', ...token],
        '--allowed-future-ms must be a whole number of ms, got "-5"',
      ],
      [
        ['--port', '0', '--id', '1', '--max-queued', '0', ...token],
        '--max-queued must be an integer from 1 to 100000, got "0"',
      ],
      [
        ['--port', '0', '--id', '1', '--allowed-future-ms', '1.5', ...token],
        '--allowed-future-ms must be a whole number of ms, got "1.5"',
      ],
      [
        ['--port', '0', '--id', '1', '--allowed-future-ms', '1001', ...token],
        /^--allowed-future-ms must be an integer number of ms from 0 to 1000, got "1001"$/,
      ],
    ])
  })

  it('serve --help is its own: the flags, their defaults and an example', () => {
    const { status, stdout, stderr } = runServe(['--help'])
    assert.equal(status, 0, stderr)
    for (const flag of [
      '--port',
      '--host',
      '--id',
      '--lease',
      '--namespace',
      '--token-file',
      '--max-count',
      '--max-queued',
    ])
      assert.match(stdout, new RegExp(`^  ${flag} `, 'm'), flag)
    assert.match(stdout, /^ {2}--allowed-future-ms N +.*\(default 0/m)
    assert.match(stdout, /default 127\.0\.0\.1/)
    assert.match(stdout, /default 100000/)
    assert.match(stdout, /^Example:\n {2}flake-idgen serve --port \d+ --id \d+ --token-file \S+$/m)
    assert.match(stdout, /GET \/healthz/)
    assert.match(stdout, /GET \/metrics/)
    // Not the general help: none of the other commands.
    assert.doesNotMatch(stdout, /decompose|flake128|lease list/)
  })

  it('refuses at start a token no client can send as it is, saying why and never quoting it', () => {
    const cases = [
      ['space', `${TOKEN} x\n`, /holds a space at character 28 of 29/],
      ['tab', `\t${TOKEN}\n`, /holds a tab at character 1 of 28/],
      ['bom', `\uFEFF${TOKEN}\n`, /holds a byte-order mark \(BOM\) at character 1 of 28/],
      ['cr', `${TOKEN}\rmore\n`, /holds a carriage return \(CR\) at character 28 of 32/],
      ['lines', `${TOKEN}\n${TOKEN}\n`, /holds a line break at character 28 of 55/],
      ['accent', `${TOKEN}é\n`, /holds a character that is not printable ASCII at character 28 of 28/],
      ['trailing-space', `${TOKEN} \n`, /holds a space at character 28 of 28/],
      ['empty', '', /must hold the token on one line, not empty/],
    ]
    for (const [name, text, why] of cases) {
      const file = path.join(dir, name)
      fs.writeFileSync(file, text, { mode: 0o600 })
      const { status, stdout, stderr } = runServe(['--port', '0', '--id', '1', '--token-file', file])
      assert.equal(status, 1, `${name}: ${stderr}`)
      assert.equal(stdout, '', name)
      assert.match(stderr, /^flake-idgen: --token-file "[^"]+" [^\n]+\n$/, name)
      assert.match(stderr, why, name)
      assert.ok(!stderr.includes(TOKEN), `${name}: the token is not printed: ${stderr}`)
    }
  })

  it('warns, once on stderr, of a token file every user may read; not of a group-readable one', {
    skip: process.platform === 'win32' && 'Windows files have no mode bits for others',
  }, async () => {
    for (const [mode, warned] of [
      [0o644, true],
      [0o666, true],
      [0o640, false],
      [0o600, false],
    ]) {
      const file = path.join(dir, `mode-${mode.toString(8)}`)
      fs.writeFileSync(file, `${TOKEN}\n`)
      fs.chmodSync(file, mode)
      const member = await startServe(['--id', '2', '--token-file', file])
      try {
        // It serves: a warning, not a refusal. (And its stderr, written before it listened, is read
        // by the time an answer came back.)
        const res = await fetch(`${member.url}?count=1`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}` },
        })
        assert.equal(res.status, 200)
        await res.arrayBuffer()
        const lines = member.stderr().split('\n').filter(Boolean)
        if (warned) {
          assert.equal(lines.length, 1, member.stderr())
          assert.match(
            lines[0],
            /^flake-idgen serve: warning: --token-file "[^"]+" is readable by every user \(mode 0\d{3}\)/,
          )
          assert.ok(!lines[0].includes(TOKEN))
        } else {
          assert.deepEqual(lines, [], `mode ${mode.toString(8)}`)
        }
      } finally {
        member.kill()
        await member.exited
      }
    }
  })

  it('--allowed-future-ms reaches the generator: a burst is answered at once, with ids ahead of the clock', async () => {
    // 4 ids a millisecond: 3,600 ids span 900 ms. Without run-ahead, the answer comes after its
    // last id's millisecond; with 1,000 ms of it, before (unless this machine stalls 900 ms).
    const layout = '{"timeBits":51,"nodeBits":10,"sequenceBits":2}'
    // Process scope: on host scope borrowing stops 20 ms ahead, whatever the flag (docs/api.md).
    const flags = ['--id', '3', '--scope', 'process', '--layout', layout, '--allowed-future-ms', '1000']
    const member = await startServe([...flags, ...token])
    try {
      const res = await fetch(`${member.url}?count=3600`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
      })
      const batch = await res.json()
      const received = Date.now()
      assert.equal(res.status, 200, JSON.stringify(batch))
      assert.equal(batch.node, 3)
      const last = Math.max(...batch.ranges.map(([time]) => time))
      assert.ok(last > received, `the last id's ms ${last} is ahead of the answer's arrival ${received}`)
    } finally {
      member.kill()
      await member.exited
    }
  })

  it('--max-queued reaches the handler: past it, a request is refused with 503 and Retry-After', async () => {
    // 4 ids a millisecond: a request of 2,000 is served over 500 ms, the second meanwhile refused.
    const layout = '{"timeBits":51,"nodeBits":10,"sequenceBits":2}'
    const flags = ['--id', '4', '--scope', 'process', '--layout', layout, '--max-queued', '1']
    const member = await startServe([...flags, ...token])
    try {
      const ask = () =>
        fetch(`${member.url}?count=2000`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
        }).then(async (res) => ({
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          body: await res.json(),
        }))
      const answers = await Promise.all([ask(), ask()])
      const statuses = answers.map((answer) => answer.status).sort()
      assert.deepEqual(statuses, [200, 503], JSON.stringify(answers))
      const busy = answers.find((answer) => answer.status === 503)
      assert.equal(busy.body.error.code, 'ERR_FLAKE_MEMBER_BUSY')
      assert.match(busy.retryAfter, /^[1-9][0-9]*$/)
    } finally {
      member.kill()
      await member.exited
    }
  })

  it('the general help names --allowed-future-ms, which no other command takes, and points to serve --help', () => {
    const run = (args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 20_000 })
    const { stdout } = run(['--help'])
    assert.match(stdout, /--allowed-future-ms N/)
    assert.match(stdout, /serve --help/)
    assertUsageErrors(run, [[['--allowed-future-ms', '5'], '--allowed-future-ms applies to serve only']])
  })
})

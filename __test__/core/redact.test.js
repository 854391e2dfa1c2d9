'use strict'
// Issue 33: no password from any connection form (a URL, libpq keywords, a client's options
// object) reaches a message. lib/errors/redact.js is where every message shows one.

const test = require('node:test')
const assert = require('node:assert/strict')
const { redact, secretsOf, scrub } = require('../../lib/errors/redact.js')
const FlakeId = require('../..')

const SECRET = 'hunter2'

test('libpq keyword strings: password values hidden, quoted or bare; the rest kept', () => {
  assert.equal(redact(`host=127.0.0.1 port=5432 password=${SECRET}`), 'host=127.0.0.1 port=5432 password=***')
  assert.equal(redact(`host=h password = '${SECRET} \\' x' user=u`), 'host=h password = *** user=u')
  assert.equal(redact(`sslpassword=${SECRET} host=h`), 'sslpassword=*** host=h')
  assert.deepEqual(secretsOf(`host=h password='${SECRET} \\' x'`), [`'${SECRET} \\' x'`, `${SECRET} ' x`])
})

test('URLs: the password in the user part and in the query hidden, parsed or not', () => {
  assert.equal(
    redact(`postgres://u:${SECRET}@h:5432/db?sslmode=require&password=${SECRET}`),
    'postgres://u:***@h:5432/db?sslmode=require&password=***',
  )
  assert.equal(redact(`redis://:${SECRET}@[::1`), 'redis://***@[::1')
  assert.equal(redact(new URL(`redis://u:${SECRET}@h`)), 'redis://u:***@h')
})

test('options objects: secret fields and URL fields hidden, nested ones too; nothing else changed', () => {
  const options = {
    host: 'db',
    port: 5432,
    password: SECRET,
    ssl: { rejectUnauthorized: true, passphrase: SECRET },
    connectionString: `postgres://u:${SECRET}@h/db`,
  }
  const shown = redact(options)
  assert.doesNotMatch(JSON.stringify(shown), new RegExp(SECRET))
  assert.deepEqual(shown, {
    host: 'db',
    port: 5432,
    password: '***',
    ssl: { rejectUnauthorized: true, passphrase: '***' },
    connectionString: 'postgres://u:***@h/db',
  })
  assert.equal(options.password, SECRET, 'the original is not changed')
  assert.ok(secretsOf(options).includes(SECRET))
})

test('scrub(): what a client says back loses every secret it was given, encoded or not', () => {
  const secrets = secretsOf(`postgres://u:p%40ss${SECRET}@h/db`)
  assert.equal(
    scrub(`bad url postgres://u:p%40ss${SECRET}@h/db for p@ss${SECRET}`, secrets),
    'bad url postgres://u:***@h/db for ***',
  )
})

test('FlakeId.lease() given a connection string for a store refuses it without its password', async () => {
  for (const store of [`redis://:${SECRET}@127.0.0.1:6379`, `host=127.0.0.1 password=${SECRET}`]) {
    await assert.rejects(FlakeId.lease({ store, namespace: 'n' }), (error) => {
      assert.equal(error.code, 'ERR_FLAKE_INVALID_OPTION')
      assert.match(error.message, /^option `store` must be/)
      assert.doesNotMatch(error.message, new RegExp(SECRET))
      return true
    })
  }
})

test("mysql2's JSON query values (`?ssl={...}`): passphrase, key and pfx hidden, the rest kept", () => {
  const ssl = {
    ca: 'PUBLIC-CA',
    key: `-----BEGIN KEY-----\n${SECRET}-key\n-----END KEY-----`,
    passphrase: SECRET,
    pfx: `${SECRET}-pfx`,
  }
  const url = `mysql://u:${SECRET}-pw@127.0.0.1:3306/db?ssl=${encodeURIComponent(JSON.stringify(ssl))}`
  const shown = redact(url)
  assert.doesNotMatch(decodeURIComponent(shown), new RegExp(SECRET))
  const query = JSON.parse(new URL(shown).searchParams.get('ssl'))
  assert.deepEqual(query, { ca: 'PUBLIC-CA', key: '***', passphrase: '***', pfx: '***' })
  // Written unencoded, as a shell user types it.
  assert.doesNotMatch(redact(`mysql://u@h/db?ssl={"passphrase":"${SECRET}"}`), new RegExp(SECRET))
  const secrets = secretsOf(url)
  for (const secret of [`${SECRET}-pw`, SECRET, ssl.key, ssl.pfx]) assert.ok(secrets.includes(secret), secret)
  assert.equal(scrub(`bad decrypt with ${SECRET}`, secrets), 'bad decrypt with ***')
  // A TLS key given as a Buffer's JSON or a list of { pem, passphrase }: hidden whole.
  const options = { ssl: { key: { type: 'Buffer', data: [1, 2] }, pfx: [{ buf: `${SECRET}-b`, passphrase: SECRET }] } }
  assert.deepEqual(redact(options), { ssl: { key: '***', pfx: '***' } })
  assert.ok(secretsOf(options).includes(`${SECRET}-b`))
  assert.ok(!secretsOf(options).includes('1'), "a Buffer's bytes are no secret to scrub")
})

'use strict'
// The documentation as a user reads it: every ```js block of README.md and docs/*.md runs as
// written against this checkout (`require('flake-idgen-rs')`, `require('flake-idgen')` and
// `import ... from 'flake-idgen-rs'` resolve to it) and exits, unless an HTML comment right
// before it says `<!-- not run: why -->`. A block that imports a store's client (ioredis, pg)
// runs against a real server the harness starts, its URL in REDIS_URL or DATABASE_URL, as a
// user's environment would give it; a server's block (one that waits for SIGINT) is stopped
// with SIGINT once it prints, and must then exit cleanly. The set-up commands stay at the top
// of the README; the commands shown for `flake-idgen` run; and every relative link, anchors
// included, points at something that exists.

const test = require('node:test')
const assert = require('node:assert/strict')
const { spawn, spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { linkPackage } = require('../support/package-copy.js')
const { noServers, startPostgres, startRedis } = require('../support/servers.js')

const ROOT = path.join(__dirname, '..', '..')
const BIN = path.join(ROOT, 'bin', 'flake-idgen.js')
const DOCS = fs
  .readdirSync(path.join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`)
// The pages a user may paste code from: the README and the guides (the architecture is the
// maintainers').
const PAGES = ['README.md', ...DOCS.filter((file) => file !== 'docs/ARCHITECTURE.md')]
// The pages whose links must resolve.
const LINKED = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', ...DOCS]
const JS = new Set(['js', 'javascript'])
const NOT_RUN = /^<!-- not run: (\S.*\S) -->$/

/** The fenced code blocks of a markdown file: `{ file, line, lang, code, marker }`. */
function blocks(file) {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split(/\r?\n/)
  const found = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)\s*$/.exec(lines[i])
    if (!open) continue
    const [, indent, fence, lang] = open
    let end = i + 1
    while (end < lines.length && lines[end].trim() !== fence) end++
    assert.ok(end < lines.length, `${file}:${i + 1}: a code block that never closes`)
    let before = i - 1
    while (before >= 0 && lines[before].trim() === '') before--
    const marker = before >= 0 ? NOT_RUN.exec(lines[before].trim()) : null
    const code = lines
      .slice(i + 1, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n')
    found.push({ file, line: i + 1, lang, code: `${code}\n`, marker: marker?.[1] })
    i = end
  }
  return found
}

const ALL = PAGES.flatMap(blocks)

// The store clients the blocks import, each with the server it needs and the variable that
// gives the server's URL.
const CLIENTS = { ioredis: ['REDIS_URL', startRedis, 'Redis'], pg: ['DATABASE_URL', startPostgres, 'PostgreSQL'] }
const needs = (block) => Object.keys(CLIENTS).filter((name) => new RegExp(`from '${name}'`).test(block.code))

// A project of the user's: this checkout installed as flake-idgen-rs, and as flake-idgen (the
// migration's alias), with the store clients it uses; and the servers they reach.
let project
const env = { ...process.env }
const servers = []
test.before(async () => {
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'flake-idgen-docs-'))
  fs.mkdirSync(path.join(project, 'node_modules'))
  for (const name of ['flake-idgen-rs', 'flake-idgen']) linkPackage(project, name)
  // The blocks that need a server are skipped where none can start.
  const used = noServers ? [] : new Set(ALL.filter((block) => JS.has(block.lang) && !block.marker).flatMap(needs))
  for (const name of used) {
    linkPackage(project, name, path.join(ROOT, 'node_modules', name))
    const [variable, start] = CLIENTS[name]
    const server = await start()
    servers.push(server)
    env[variable] = server.url
  }
})
test.after(async () => {
  for (const server of servers) await server.stop()
  fs.rmSync(project, { recursive: true, force: true })
})

test('every code block names its language, so that none of JS escapes the runs below', () => {
  const unnamed = ALL.filter((block) => block.lang === '').map((block) => `${block.file}:${block.line}`)
  assert.deepEqual(unnamed, [])
})

test('a "not run" marker stands only before a JS block, and says why', () => {
  for (const file of PAGES) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
    const markers = text.split(/\r?\n/).filter((line) => line.includes('<!-- not run'))
    const marked = ALL.filter((block) => block.file === file && block.marker)
    assert.equal(markers.length, marked.length, `${file}: a marker not right before a code block`)
    for (const block of marked) assert.ok(JS.has(block.lang), `${file}:${block.line} is marked but is not JS`)
  }
})

test('the pages hold the JS blocks this test runs', () => {
  const run = ALL.filter((block) => JS.has(block.lang) && !block.marker)
  assert.ok(run.length >= 15, `only ${run.length} blocks found to run`)
  for (const file of ['README.md', 'docs/api.md', 'docs/layouts.md', 'docs/128-bit-ids.md']) {
    assert.ok(
      run.some((block) => block.file === file),
      `no block of ${file} runs`,
    )
  }
})

// Long enough for a lease's first id in a new namespace (11 s with the defaults) on a busy machine.
const RUN_TIMEOUT_MS = 90_000

/** Writes the block into the project as the file a user would paste it into; returns its path. */
function write(block) {
  // ESM when it imports, as a user's .mjs file would; CommonJS otherwise.
  const esm = /^\s*(import|export)\s/m.test(block.code)
  const file = path.join(project, `example-${path.basename(block.file, '.md')}-${block.line}.${esm ? 'mjs' : 'cjs'}`)
  fs.writeFileSync(file, block.code)
  return file
}

/**
 * Runs node on the block; resolves to how it ended and what it printed. A server's block is sent
 * SIGINT once it has printed its first line.
 */
function runNode(block, args) {
  const server = /process\.on\('SIGINT'/.test(block.code)
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...args, write(block)], { cwd: project, env })
    let stdout = ''
    let stderr = ''
    let interrupted = false
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS)
    child.stdout.on('data', (chunk) => {
      stdout += chunk
      if (server && !interrupted && stdout.includes('\n')) {
        interrupted = true
        child.kill('SIGINT')
      }
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      resolve({ status, signal, stdout, stderr, interrupted: server ? interrupted : undefined })
    })
  })
}

for (const block of ALL.filter((each) => JS.has(each.lang))) {
  const where = `${block.file}:${block.line}`
  if (block.marker) {
    // Not run, but still code a user can paste: it parses.
    test(`${where} is not run (${block.marker}), and parses`, async () => {
      const { status, stderr } = await runNode(block, ['--check'])
      assert.equal(status, 0, stderr)
    })
    continue
  }
  const servers = needs(block).map((name) => CLIENTS[name][2])
  const skip = servers.length > 0 && noServers
  test(`${where} runs as written and exits${servers.length > 0 ? ` (a real ${servers.join(' and ')} server)` : ''}`, {
    skip,
  }, async () => {
    const { status, signal, stdout, stderr, interrupted } = await runNode(block, [])
    assert.equal(stderr, '', `stderr of ${where}, stdout:\n${stdout}`)
    assert.equal(signal, null, `${where} did not exit by itself within ${RUN_TIMEOUT_MS} ms`)
    assert.equal(status, 0)
    if (interrupted !== undefined) assert.ok(interrupted, `${where} printed nothing before it exited`)
  })
}

test('the README shows the set-up commands, and the command they lead to prints ids', () => {
  const shell = blocks('README.md').filter((block) => block.lang === 'sh')
  const commands = (block) =>
    block.code
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean)
  const setUp = shell.findIndex((block) => commands(block).join('\n') === 'npm install\nnpm test')
  assert.ok(setUp >= 0, 'a block of exactly `npm install` and `npm test`')
  assert.deepEqual(commands(shell[setUp + 1]), ['npx flake-idgen -n 3'], 'the main job, right under them')
  const { status, stdout } = spawnSync(process.execPath, [BIN, '-n', '3'], { encoding: 'utf8' })
  assert.equal(status, 0)
  const ids = stdout.split('\n').filter(Boolean)
  assert.equal(ids.length, 3)
  for (const id of ids) assert.match(id, /^[0-9]+$/)
  assert.ok(BigInt(ids[0]) < BigInt(ids[1]) && BigInt(ids[1]) < BigInt(ids[2]), stdout)
})

test("the README's set-up names the servers `npm test` needs, and the run that needs none", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('\n### In a clone')
  const clone = readme.slice(start, readme.indexOf('\n## ', start))
  assert.match(clone, /apt-get install redis-server postgresql mariadb-server/)
  assert.match(clone, /`npm run test:unit`/)
  assert.match(clone, /\d+ min/, 'how long the runs take')
  assert.ok(require('../../package.json').scripts['test:unit'], 'package.json has test:unit')
})

test("every Node.js version the pages require is engines' (a dev tool's may be newer)", () => {
  const engines = Number(/^>= (\d+)$/.exec(require('../../package.json').engines.node)[1])
  let checked = 0
  for (const file of LINKED) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
    for (const [, major, minor] of text.matchAll(/Node(?:\.js)? (?:≥|>=) (\d+)(\.\d+)?/g)) {
      if (minor === undefined) assert.equal(Number(major), engines, `${file}: Node.js ≥ ${major}`)
      else assert.ok(Number(major) >= engines, `${file}: Node.js ≥ ${major}${minor}`)
      checked++
    }
  }
  assert.ok(checked >= 3, `only ${checked} checked`)
})

test("bench/README.md holds the method and today's results in at most 20 KB (the history is git's)", () => {
  const size = fs.statSync(path.join(ROOT, 'bench', 'README.md')).size
  assert.ok(size <= 20_000, `${size} bytes`)
})

/** Splits a shell line as the shell would for the simple quoting the pages use. */
function argv(line) {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3])
}

test('the `flake-idgen` sessions shown run: each id command prints as many lines, each decompose the same', () => {
  let checked = 0
  for (const block of ALL.filter((each) => each.lang === 'sh')) {
    const lines = block.code.split('\n')
    for (const [i, line] of lines.entries()) {
      const prompt = /^\$ npx flake-idgen(.*?)(?:\s+#.*)?$/.exec(line)
      if (!prompt) continue
      const shown = []
      for (let j = i + 1; j < lines.length && lines[j] !== '' && !lines[j].startsWith('$ '); j++) shown.push(lines[j])
      const args = argv(prompt[1])
      // A pipe, a store to reach, a reset shown refused while another process runs, and a
      // server (serve runs until stopped; __test__/members/ runs it): not here.
      if (line.includes('|') || args[0] === 'lease' || args[0] === 'serve' || args.includes('--reset')) continue
      const where = `${block.file}:${block.line + 1 + i}: ${line}`
      const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' })
      assert.equal(status, 0, `${where}\n${stderr}`)
      const printed = stdout.split('\n').filter(Boolean)
      if (args[0] === 'decompose') assert.deepEqual(printed, shown, where)
      else if (args[0] === 'state') assert.match(printed[0], /^state file: /, where)
      else assert.equal(printed.length, shown.length, where)
      checked++
    }
  }
  assert.ok(checked >= 10, `only ${checked} commands checked`)
})

test("the README's speed claims are ratios its Performance section shows from one bench run, the machine named", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const performance = readme.slice(readme.indexOf('\n## Performance'), readme.indexOf('\n## License'))
  // The bench's own first line (bench/index.js) for the run the section shows.
  const line = /^flake-idgen-rs \S+, node v[\d.]+, [\w-]+, (.+?), \d+ cores, \d{4}-\d\d-\d\dT[\d:.]+Z, /m.exec(
    performance,
  )
  assert.ok(line, "the Performance section quotes the bench's line for its run")
  const machine = line[1]
    .replace(/\((?:R|TM)\)/g, '')
    .replace(/\b(?:Processor|CPU)\b.*$/, '')
    .trim()
  const fast = /^- \*\*Fast\.\*\*[\s\S]*?(?=\n- \*\*)/m.exec(readme)[0]
  assert.ok(fast.includes(machine), `the headline names the machine, ${machine}`)
  assert.doesNotMatch(fast, /\babout\b/, 'a ratio the bench printed, not an estimate')
  const ratios = fast.match(/\b\d+\.\d+\b/g)
  assert.ok(ratios.length >= 3, fast)
  for (const ratio of ratios) assert.ok(performance.includes(ratio), `${ratio} is not in the Performance section`)
})

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(file) {
  const seen = new Map()
  const text = fs.readFileSync(file, 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '')
  const result = new Set()
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    result.add(count ? `${slug}-${count}` : slug)
  }
  return result
}

test('every relative link of the docs points at a file that exists, and at an anchor it has', () => {
  let checked = 0
  for (const file of LINKED) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue
      const [where, anchor] = target.split('#')
      const linked = where === '' ? path.join(ROOT, file) : path.join(ROOT, path.dirname(file), where)
      assert.ok(fs.existsSync(linked), `${file}: ${target}: no such file`)
      if (anchor !== undefined) {
        assert.ok(linked.endsWith('.md'), `${file}: ${target}: an anchor into a file that is not markdown`)
        assert.ok(anchors(linked).has(anchor), `${file}: ${target}: no such heading`)
      }
      checked++
    }
  }
  assert.ok(checked >= 30, `only ${checked} links checked`)
})

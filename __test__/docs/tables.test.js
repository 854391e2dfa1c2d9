'use strict'
// The docs' tables of options, error codes and command flags against the code's own lists, both
// ways: a row the code lacks is a promise it does not keep, and an option, code or flag with no
// row is one users cannot find. The lists are read from the source where the code keeps them
// (not exported), so a new entry on either side alone fails here. And the prose stays short
// enough to read: say a thing once, and link to it.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const ROOT = path.join(__dirname, '..', '..')
const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8')

/** Every table of a markdown file: `{ heading, header, rows }`, cells trimmed, code blocks skipped. */
function tables(file) {
  const lines = read(file)
    .replace(/^\s*```[\s\S]*?^\s*```/gm, '')
    .split(/\r?\n/)
  const found = []
  let heading = ''
  for (let i = 0; i < lines.length; i++) {
    if (/^#{1,6} /.test(lines[i])) heading = lines[i]
    if (!lines[i].startsWith('|')) continue
    const rows = []
    while (i < lines.length && lines[i].startsWith('|')) rows.push(cells(lines[i++]))
    found.push({ heading, header: rows[0], rows: rows.slice(2) })
  }
  return found
}

/** A table row's cells; a `|` escaped as `\|` stays in its cell. */
function cells(line) {
  return line
    .slice(1, line.endsWith('|') ? -1 : undefined)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim())
}

/** The one table of `file` under a heading that includes `heading`, whose first header cell is `first`. */
function table(file, heading, first) {
  const matches = tables(file).filter((each) => each.heading.includes(heading) && each.header[0] === first)
  assert.equal(matches.length, 1, `${file}: one table "${first}" under a heading with ${heading}`)
  return matches[0]
}

/** The names a table's first column gives: the identifier opening each `code span`, sorted. */
function names(found, pattern = /`([A-Za-z_][\w]*)/g) {
  return [...new Set(found.rows.flatMap((row) => [...row[0].matchAll(pattern)].map((match) => match[1])))].sort()
}

/** The quoted strings of the array literal `const NAME = [...]` (or `NAME: [&str; N] = [...]`) in `file`. */
function listIn(file, name, spreads = {}) {
  const source = read(file)
  const literal = new RegExp(`\\b${name}(?::[^=]*)? = \\[([\\s\\S]*?)\\]`).exec(source)
  assert.ok(literal, `${file} has ${name}`)
  const items = []
  for (const item of literal[1].split(',').map((each) => each.trim())) {
    if (item === '') continue
    const quoted = /^['"]([^'"]+)['"]$/.exec(item)
    const spread = /^\.\.\.(\w+)$/.exec(item)
    if (quoted) items.push(quoted[1])
    else if (spread && spreads[spread[1]]) items.push(...spreads[spread[1]])
    else assert.fail(`${file}: ${name} holds ${item}, which this test does not read`)
  }
  return items
}

/** Compares what the docs list with what the code does, naming what either side lacks. */
function same(documented, coded, where) {
  const missing = coded.filter((name) => !documented.includes(name))
  const extra = documented.filter((name) => !coded.includes(name))
  assert.deepEqual(
    { 'in the code, not in the docs': missing, 'in the docs, not in the code': extra },
    { 'in the code, not in the docs': [], 'in the docs, not in the code': [] },
    where,
  )
}

const { STATE_OPTIONS } = require('../../lib/options/options.js')
const { FLAKE_ID_OPTIONS, LEASE_OPTIONS, CLIENT_OPTIONS } = require('../../lib/id-sources/index.js')
const { BATCH_HANDLER_OPTIONS } = require('../../lib/member/options.js')

// Each table: what it documents, where, the heading it is under, its first header cell, and the
// code's list (the native side keeps FlakeId's too, to name an unknown option).
const OPTION_TABLES = [
  ['new FlakeId', 'docs/api.md', '`new FlakeId(options?)`', 'option', () => FLAKE_ID_OPTIONS],
  [
    'new FlakeId (the native side)',
    'docs/api.md',
    '`new FlakeId(options?)`',
    'option',
    () => listIn('src/options/unknown.rs', 'FLAKE_ID_OPTIONS'),
  ],
  ['batchHandler', 'docs/api.md', '`batchHandler(options)`', 'option', () => BATCH_HANDLER_OPTIONS],
  ['FlakeId.client', 'docs/api.md', '`FlakeId.client(options)`', 'option', () => CLIENT_OPTIONS],
  ['FlakeId.lease', 'docs/fleets.md', '`FlakeId.lease(options)', 'option', () => LEASE_OPTIONS],
  [
    'new Flake128',
    'docs/128-bit-ids.md',
    '`new Flake128(options?)`',
    'option',
    () => listIn('lib/kinds/flake128.js', 'OPTIONS', { STATE_OPTIONS }),
  ],
  ['uuidv7.create', 'docs/128-bit-ids.md', '`uuidv7()`', '`uuidv7.create` option', () => STATE_OPTIONS],
]

for (const [what, file, heading, first, coded] of OPTION_TABLES) {
  test(`${file}: the options of ${what} are the code's, no more and no fewer`, () => {
    const documented = names(table(file, heading, first))
    same(documented, [...new Set(coded())].sort(), `${what}'s options`)
  })
}

/** Every `ERR_FLAKE_...` code the package's code makes: quoted in its JS or Rust (tests aside). */
function codesInCode() {
  const files = []
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) {
        if (file !== path.join('src', 'tests')) walk(file)
      } else if (/\.(js|rs)$/.test(entry.name)) files.push(file)
    }
  }
  for (const dir of ['lib', 'src', 'bin']) walk(dir)
  files.push('index.js', 'client.js')
  const codes = new Set()
  for (const file of files) for (const [, code] of read(file).matchAll(/['"](ERR_FLAKE_[A-Z_]+)['"]/g)) codes.add(code)
  return [...codes].sort()
}

test("docs/api.md's error codes are the codes the code makes, no more and no fewer", () => {
  const coded = codesInCode()
  assert.ok(coded.length >= 30, `only ${coded.length} codes found in the code`)
  same(names(table('docs/api.md', 'Error codes', '`error.code`'), /`(ERR_FLAKE_[A-Z_]+)`/g), coded, 'error codes')
})

/** The command's flags: the keys of OPTIONS in bin/flake-idgen.js (with the store flags) and SHORT. */
function flagsInCode() {
  const source = read('bin/flake-idgen.js')
  const options = /^const OPTIONS = \{\n([\s\S]*?)\n\}/m.exec(source)
  assert.ok(options, 'bin/flake-idgen.js has OPTIONS')
  const flags = []
  for (const line of options[1].split('\n').map((each) => each.trim())) {
    const key = /^'?([a-z][a-z-]*)'?: (?:true|false),$/.exec(line)
    if (key) flags.push(`--${key[1]}`)
    else if (line.startsWith('...Object.fromEntries(STORE_FLAGS.'))
      flags.push(...require('../../lib/cli/store-flags.js').STORE_FLAGS.map((name) => `--${name}`))
    else assert.fail(`bin/flake-idgen.js: OPTIONS holds ${line}, which this test does not read`)
  }
  const short = /^const SHORT = \{([^}]*)\}/m.exec(source)
  assert.ok(short, 'bin/flake-idgen.js has SHORT')
  for (const [, letter] of short[1].matchAll(/(\w+):/g)) flags.push(`-${letter}`)
  return flags.sort()
}

test("docs/command.md's flags are the command's, no more and no fewer", () => {
  const found = tables('docs/command.md').filter((each) => each.header[0] === 'option')
  assert.ok(found.length >= 1, 'docs/command.md has a table of options')
  const documented = [...new Set(found.flatMap((each) => names(each, /`(-{1,2}[a-z][a-z-]*)/g)))].sort()
  same(documented, flagsInCode(), 'the command flags')
})

const PROSE_LIMIT = 150_000

test(`the prose (README.md, CONTRIBUTING.md, bench/README.md, docs/*.md) stays within ${PROSE_LIMIT} bytes`, () => {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
  const files = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', ...docs]
  const sizes = files.map((file) => [file, fs.statSync(path.join(ROOT, file)).size])
  const total = sizes.reduce((sum, [, size]) => sum + size, 0)
  assert.ok(total <= PROSE_LIMIT, `${total} bytes: ${sizes.map(([file, size]) => `${file} ${size}`).join(', ')}`)
})

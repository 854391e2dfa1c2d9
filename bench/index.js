'use strict'
// `npm run bench`: this package against flake-idgen, other snowflake generators and the floor,
// all in one process: interleaved rounds, the order rotated each round, medians, ratios.
//
// Shorter runs: BENCH_ROUNDS (per-call rounds, default 31), BENCH_BURST_ROUNDS (default 7, also
// the layouts' batches), BENCH_BURST (ids per burst, default 1,000,000), BENCH_LAYOUT_ROUNDS
// (the layouts' next() rounds, default 21). BENCH_BEFORE=<checkout>: that build's next() rows
// beside these, for a change's cost against the build before it (see per-call.js), and issue
// 40's shape in processes alternating with it (see alternating.js; BENCH_ALTERNATING_PAIRS
// pairs of processes, default 40).
// BENCH_ONLY=<parts>: some of the parts only, comma-separated: 64-bit (per call and bursts),
// layouts, 128-bit (uuidv7 and Flake128, issue 24), cold-start (a fresh process to its first
// id, issue 32; BENCH_COLD_ROUNDS, default 21), leases (each lease store's time per acquire
// beside the pool's size, on real servers: BENCH_LEASE_SAMPLES acquires a row, default 1,000);
// clients (a client of members beside a local generator, and a member's throughput and latency
// over loopback, issue 41: BENCH_CLIENT_ROUNDS, default 21); formats (nextString(format) in each
// fixed-width form beside decimal and ulid's strings, issue 53: BENCH_ROUNDS rounds); wasm (the WebAssembly build's next()
// beside flake-idgen's in a process of its own, issue 42: BENCH_ROUNDS rounds; a full run skips it
// when no WebAssembly build is there, see wasm.js); all by default.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const perCall = require('./per-call.js')
const bursts = require('./bursts.js')
const layouts = require('./layouts.js')
const coldStart = require('./cold-start.js')
const alternating = require('./alternating.js')
const { median } = require('./stats.js')

const ROUNDS = setting('BENCH_ROUNDS', 31)
const BURST_ROUNDS = setting('BENCH_BURST_ROUNDS', 7)
const BURST = setting('BENCH_BURST', 1_000_000)
const LAYOUT_ROUNDS = setting('BENCH_LAYOUT_ROUNDS', 21)
const COLD_ROUNDS = setting('BENCH_COLD_ROUNDS', 21)
const ALTERNATING_PAIRS = setting('BENCH_ALTERNATING_PAIRS', 40)
const LIMIT_PER_MS = 4096 // the 12-bit counter's ids per millisecond
const PARTS = ['64-bit', 'layouts', '128-bit', 'formats', 'cold-start', 'wasm', 'leases', 'clients']
const ONLY = (process.env.BENCH_ONLY || PARTS.join(',')).split(',')
for (const part of ONLY) {
  if (!PARTS.includes(part)) throw new RangeError(`BENCH_ONLY must name parts of ${PARTS.join(', ')}, got ${part}`)
}
const runs = (part) => ONLY.includes(part)
// Loaded only when run: its module makes generators of its own as it loads.
const wide = runs('128-bit') ? require('./wide.js') : undefined
const formats = runs('formats') ? require('./formats.js') : undefined
const leases = runs('leases') ? require('./leases.js') : undefined
const clients = runs('clients') ? require('./clients.js') : undefined
const wasm = runs('wasm') ? require('./wasm.js') : undefined
// Asked for by name, a missing WebAssembly build fails the run; a full run skips it, saying so.
const wasmAsked = (process.env.BENCH_ONLY || '').split(',').includes('wasm')

function setting(name, fallback) {
  const value = Number(process.env[name] || fallback)
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`)
  return value
}

/** The version in a package's own package.json, which its `exports` may not let us require. */
function versionOf(name) {
  if (name === 'flake-idgen-rs') return require('../package.json').version
  for (let dir = path.dirname(require.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json')
    if (!fs.existsSync(file)) continue
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'))
    if (manifest.name === name) return manifest.version
  }
  return '?'
}

const label = (candidate) => (candidate.pkg ? `${candidate.pkg} ${versionOf(candidate.pkg)} ` : '') + candidate.call
const format = (n) => n.toLocaleString('en')
const plural = (n, what) => `${format(n)} ${what}${n === 1 ? '' : 's'}`
const progress = () => process.stderr.isTTY && process.stderr.write('.')

/** samples[key][round]: `measure(candidate)` for each round, in an order that changes each round. */
async function rounds(candidates, count, measure) {
  const samples = Object.fromEntries(candidates.map((candidate) => [candidate.key, []]))
  for (let round = 0; round < count; round++) {
    // Rotated, and reversed every other round: rotation alone keeps each candidate behind the
    // same one, and a burst runs faster or slower by the garbage its predecessor left.
    for (let i = 0; i < candidates.length; i++) {
      const k = round % 2 === 0 ? i : candidates.length - 1 - i
      const candidate = candidates[(k + round) % candidates.length]
      samples[candidate.key].push(await measure(candidate))
    }
    progress()
  }
  return samples
}

// Ratios are taken within each round, then the median: on a shared machine, candidates timed
// seconds apart may see a different machine, neighbours timed side by side see the same one.
const ratio = (samples, a, b) => median(samples[a].map((x, round) => x / samples[b][round]))

async function main() {
  // Timing garbage is worse than no bench: check every candidate's ids once, first.
  const checks = []
  if (runs('64-bit')) {
    for (const candidate of perCall.candidates) checks.push([candidate, perCall.check(candidate)])
    for (const candidate of bursts.candidates) checks.push([candidate, await bursts.check(candidate)])
  }
  if (runs('layouts')) {
    for (const candidate of [...layouts.perCall, ...layouts.batches]) {
      checks.push([candidate, await layouts.check(candidate)])
    }
  }
  if (runs('128-bit')) {
    for (const candidate of wide.candidates) checks.push([candidate, wide.check(candidate)])
    for (const batch of wide.batches) checks.push([batch, wide.checkBatch(batch)])
  }
  if (runs('formats')) {
    for (const candidate of formats.candidates) checks.push([candidate, formats.check(candidate)])
  }
  if (runs('cold-start')) {
    for (const candidate of coldStart.candidates) checks.push([candidate, coldStart.check(candidate)])
  }
  const failed = checks.filter(([, why]) => why !== null)
  for (const [candidate, why] of failed) console.error(`sanity check failed: ${label(candidate)}: ${why}`)
  if (failed.length > 0) {
    process.exitCode = 1
    return
  }

  const run = (count) => (candidate) => candidate.run(candidate.make(), Math.ceil(count * candidate.share))
  let calls, ms, alternated, layoutCalls, layoutMs, wideCalls, wideMs, formatCalls, cold
  if (runs('64-bit')) {
    // One round untimed, so that no candidate's first round pays for compiling it.
    await rounds(perCall.candidates, 1, perCall.sample)
    calls = await rounds(perCall.candidates, ROUNDS, perCall.sample)
    await rounds(bursts.candidates, 1, run(Math.ceil(BURST / 10)))
    ms = await rounds(bursts.candidates, BURST_ROUNDS, run(BURST))
    if (process.env.BENCH_BEFORE) alternated = alternating.run(process.env.BENCH_BEFORE, ALTERNATING_PAIRS, progress)
  }
  if (runs('layouts')) {
    layoutCalls = {}
    for (const group of layouts.groups) {
      await rounds(group, 1, layouts.sample)
      Object.assign(layoutCalls, await rounds(group, LAYOUT_ROUNDS, layouts.sample))
    }
    const runLayout = (count) => (candidate) => candidate.run(candidate.make(), candidate.size(count))
    await rounds(layouts.batches, 1, runLayout(Math.ceil(BURST / 10)))
    layoutMs = await rounds(layouts.batches, BURST_ROUNDS, runLayout(BURST))
  }
  if (runs('128-bit')) {
    await rounds(wide.candidates, 1, wide.sample)
    wideCalls = await rounds(wide.candidates, ROUNDS, wide.sample)
    const runBatch = (count) => (batch) => wide.runBatch(batch, batch.size(count))
    await rounds(wide.batches, 1, runBatch(Math.ceil(BURST / 10)))
    wideMs = await rounds(wide.batches, BURST_ROUNDS, runBatch(BURST))
  }
  if (runs('formats')) {
    await rounds(formats.candidates, 1, formats.sample)
    formatCalls = await rounds(formats.candidates, ROUNDS, formats.sample)
  }
  if (runs('cold-start')) {
    await rounds(coldStart.candidates, 1, coldStart.sample)
    cold = await rounds(coldStart.candidates, COLD_ROUNDS, coldStart.sample)
  }
  // In a process of its own (its build is another), timed alone. A failure fails this part only.
  let wasmResults
  if (runs('wasm') && (wasmAsked || wasm.built())) {
    wasmResults = await wasm.run().catch((error) => error)
  }
  // Last: its servers start and stop within it, and time nothing of the parts above.
  // A missing server fails this part alone, after the others are printed.
  const leaseResults = runs('leases') ? await leases.run().catch((error) => error) : undefined
  const clientResults = runs('clients') ? await clients.run() : undefined
  if (process.stderr.isTTY) process.stderr.write('\n')

  const cpus = os.cpus()
  const header = [
    `flake-idgen-rs ${versionOf('flake-idgen-rs')}`,
    `node ${process.version}`,
    `${process.platform}-${process.arch}`,
    cpus[0].model,
    `${cpus.length} cores`,
    new Date().toISOString(),
    runs('64-bit') && `per call: ${plural(ROUNDS, 'round')} of ${perCall.BATCHES} × ${format(perCall.BATCH)} calls`,
    runs('64-bit') && `bursts: ${plural(BURST_ROUNDS, 'round')} of n = ${format(BURST)} ids`,
    alternated && `against the build before: ${plural(ALTERNATING_PAIRS, 'pair')} of processes`,
    runs('layouts') &&
      `layouts: ${plural(LAYOUT_ROUNDS, 'round')} per call, ${plural(BURST_ROUNDS, 'round')} of batches`,
    runs('128-bit') &&
      `128-bit: ${plural(ROUNDS, 'round')} of ${wide.BATCHES} × ${format(wide.BATCH)} calls, ${plural(BURST_ROUNDS, 'round')} of batches`,
    runs('formats') && `formats: ${plural(ROUNDS, 'round')} of ${formats.BATCHES} × ${format(formats.BATCH)} calls`,
    runs('cold-start') && `cold start: ${plural(COLD_ROUNDS, 'round')} of a fresh process each`,
    wasmResults !== undefined && `wasm: ${plural(ROUNDS, 'round')} of 200 × 1,000 calls in a process of its own`,
    'medians, ratios taken within each round',
  ]
  console.log(`${header.filter(Boolean).join(', ')}\n`)
  if (runs('64-bit')) print64(calls, ms, alternated)
  if (runs('layouts')) printLayouts(layoutCalls, layoutMs)
  if (runs('128-bit')) printWide(wideCalls, wideMs)
  if (runs('formats')) printFormats(formatCalls)
  if (runs('cold-start')) printColdStart(cold)
  if (wasmResults instanceof Error) {
    console.error(`\nwasm: ${wasmResults.message}`)
    process.exitCode = 1
  } else if (wasmResults !== undefined) wasm.print(wasmResults, printTable)
  else if (runs('wasm')) console.log('\nwasm: skipped, no WebAssembly build here (`npm run build:wasm` makes one)')
  if (leaseResults instanceof Error) {
    console.error(`\nleases: ${leaseResults.message}`)
    process.exitCode = 1
  } else if (runs('leases')) leases.print(leaseResults, printTable)
  if (runs('clients')) clients.print(clientResults, printTable)
}

const percent = (x) => `${(x * 100).toFixed(0)} %`
const perMs = (n) => (n >= 100 ? format(Math.round(n)) : n.toFixed(1))

/** The table of per-call candidates and bursts, and their targets. */
function print64(calls, ms, alternated) {
  const shareOf = Object.fromEntries(bursts.candidates.map((c) => [c.key, c.share]))
  const share = (key) => (BURST * shareOf[key]) / median(ms[key]) / LIMIT_PER_MS
  const rows = [
    ['what', 'ns/call or ms', '× flake-idgen', '× floor or share of 4.096 M ids/s'],
    ...perCall.candidates.map((c) => [
      label(c),
      `${median(calls[c.key]).toFixed(1)} ns`,
      ratio(calls, c.key, 'flakeIdgen').toFixed(2),
      ratio(calls, c.key, 'floor').toFixed(2),
    ]),
    ...bursts.candidates.map((c) => [
      label(c),
      `${median(ms[c.key]).toFixed(0)} ms`,
      c.of ? ratio(ms, c.key, c.of).toFixed(2) : '',
      c.key === 'closuresFloor' ? '' : percent(share(c.key)),
    ]),
  ]
  printTable(rows)

  // The targets of bench/README.md.
  const targets = [
    ['`next()` ≤ 0.65 × flake-idgen `next()`', ratio(calls, 'next', 'flakeIdgen'), 0.65, 'max'],
    ['`next()` ≤ 1.25 × the floor, 1 generator', ratio(calls, 'next', 'floor'), 1.25, 'max'],
    ["`next()` (host scope) ≤ 1.1 × `next()` with scope: 'process'", ratio(calls, 'next', 'nextProcess'), 1.1, 'max'],
    ['`next()` ≤ 1.25 × the floor, 3 generators round-robin', ratio(calls, 'next3', 'floor'), 1.25, 'max'],
    ['`next()` ≤ 1.05 × the floor, 64 generators (ids 0–63) round-robin', ratio(calls, 'next64', 'floor'), 1.05, 'max'],
    ['`nextBigInt()` ≤ 0.6 × @sapphire/snowflake `generate()`', ratio(calls, 'nextBigInt', 'sapphire'), 0.6, 'max'],
    // Issue 40: the 64 generators lost 10–15 ns a call to one change, and no number said so.
    // Timed in processes of their own (alternating.js): in one, the two builds differ by more.
    ...(alternated
      ? [['`next()`, 64 generators, ≤ 1.02 × the build before (processes alternating)', alternated.ratio, 1.02, 'max']]
      : []),
    ['`next(cb)` burst, shared callback, ≥ 75 % of 4.096 M ids/s', share('burst'), 0.75, 'min'],
    ['`next(cb)` burst, shared callback, ≥ 3 × flake-idgen', ratio(ms, 'flakeIdgenBurst', 'burst'), 3, 'times'],
    ['`next(cb)` burst, fresh closures, ≥ 50 % of 4.096 M ids/s', share('closures'), 0.5, 'min'],
    ['`next(cb)` burst, fresh closures, ≥ 3 × flake-idgen', ratio(ms, 'flakeIdgenClosures', 'closures'), 3, 'times'],
    ['`nextBatch(n)` ≥ 95 % of 4.096 M ids/s', share('batch'), 0.95, 'min'],
  ]
  console.log()
  for (const [what, value, target, kind] of targets) {
    const met = kind === 'max' ? value <= target : value >= target
    const shown = kind === 'min' ? percent(value) : `${value.toFixed(2)}${kind === 'times' ? ' ×' : ''}`
    console.log(`target: ${what}: ${shown} ${met ? 'met' : 'MISSED'}`)
  }
  console.log(`floor of the fresh-closure burst: ${percent(share('closuresFloor'))} of 4.096 M ids/s`)
  if (alternated) {
    const [q1, q3] = alternated.quartiles.map((q) => q.toFixed(3))
    console.log(
      `64 generators × the floor, processes alternating: ${alternated.mine.toFixed(2)} here, ${alternated.before.toFixed(2)} the build before; here ÷ before ${alternated.ratio.toFixed(3)} (pairs' quartiles ${q1}–${q3})`,
    )
  }
}

/** The layouts' table and targets. */
function printLayouts(layoutCalls, layoutMs) {
  // Layouts: each preset's next() against the default layout's in batches of the same shape,
  // and its batches against its own limit (2^sequenceBits ids per time unit).
  // A batch that starts as a unit starts has that unit's ids at once: n ids take at least the
  // units after the first, (ceil(n / idsPerUnit) - 1) units, the time the limit allows them.
  const allowedMs = (c) => (Math.ceil(c.size(BURST) / c.layout.idsPerUnit) - 1) * c.layout.timeUnitMs
  const layoutShare = (c) => allowedMs(c) / median(layoutMs[c.key])
  console.log()
  printTable([
    ['layouts', 'ns/call or ms', '× default layout', 'ids/ms (limit): share'],
    ...layouts.perCall.map((c) => [
      c.call,
      `${median(layoutCalls[c.key]).toFixed(1)} ns`,
      c.of ? ratio(layoutCalls, c.key, c.of).toFixed(2) : '',
      '',
    ]),
    ...layouts.batches.map((c) => [
      `${c.call}, n = ${format(c.size(BURST))}`,
      `${median(layoutMs[c.key]).toFixed(0)} ms`,
      '',
      `${perMs(c.size(BURST) / median(layoutMs[c.key]))} (${perMs(c.perMs)}): ${percent(layoutShare(c))}`,
    ]),
  ])
  console.log()
  for (const c of layouts.perCall.filter((c) => c.of)) {
    const value = ratio(layoutCalls, c.key, c.of)
    const what = `\`layout: '${c.key}'\` \`next()\` ≤ 1.05 × the default layout's`
    // Three decimals: a ratio just past the target would print as the target at two.
    console.log(`target: ${what}: ${value.toFixed(3)} ${value <= 1.05 ? 'met' : 'MISSED'}`)
  }
  for (const c of layouts.batches) {
    const value = layoutShare(c)
    console.log(`target: ${c.call} ≥ 95 % of the layout's limit: ${percent(value)} ${value >= 0.95 ? 'met' : 'MISSED'}`)
  }
}

/** 128-bit ids (issue 24): uuidv7 and Flake128 per call and in batches, and their targets. */
function printWide(calls, ms) {
  const share = (b) => b.allowedMs(b.size(BURST)) / median(ms[b.key])
  console.log()
  printTable([
    ['128-bit ids', 'ns/call or ms', '× crypto.randomUUID()', '× 64-bit `next()`', 'ids/ms (limit): share'],
    ...wide.candidates.map((c) => [
      label(c),
      `${median(calls[c.key]).toFixed(1)} ns`,
      ratio(calls, c.key, c.of).toFixed(2),
      ratio(calls, c.key, 'next64').toFixed(2),
      '',
    ]),
    ...wide.batches.map((b) => [
      `${label(b)}, n = ${format(b.size(BURST))}`,
      `${median(ms[b.key]).toFixed(0)} ms`,
      '',
      '',
      `${perMs(b.size(BURST) / median(ms[b.key]))} (${perMs(b.perMs)}): ${percent(share(b))}`,
    ]),
  ])
  const targets = [
    ['`uuidv7()` ≤ 1.0 × `crypto.randomUUID()`', ratio(calls, 'uuidv7', 'randomUUID'), 1, 'max'],
    [
      '`uuidv7()` ≤ 1.0 × `crypto.randomUUID()`, as users call it (every id kept)',
      ratio(calls, 'uuidv7Kept', 'randomUUIDKept'),
      1,
      'max',
    ],
    ["`uuidv7()` ≥ 10 × faster than uuid's `v7()`", ratio(calls, 'uuidPkg', 'uuidv7'), 10, 'times'],
    [
      "`uuidv7()` ≥ 10 × faster than uuid's `v7()`, as users call it (every id kept)",
      ratio(calls, 'uuidPkgKept', 'uuidv7Kept'),
      10,
      'times',
    ],
    [
      '`uuidv7(undefined, Buffer.alloc(16), 0)` ≤ 1.25 × the 64-bit `next()` (a fresh Buffer of its own each call, as `next()` makes)',
      ratio(calls, 'uuidv7Fresh', 'next64'),
      1.25,
      'max',
    ],
    [
      '`uuidv7(undefined, buf, 0)`, one buf reused, ≤ 1.25 × the 64-bit `next()`',
      ratio(calls, 'uuidv7Reused', 'next64'),
      1.25,
      'max',
    ],
    ...wide.batches
      .filter((b) => b.perMs !== LIMIT_PER_MS)
      .map((b) => [`${b.call} ≥ 95 % of the host's ${format(b.perMs)} ids per ms`, share(b), 0.95, 'min']),
  ]
  console.log()
  for (const [what, value, target, kind] of targets) {
    const met = kind === 'max' ? value <= target : value >= target
    const shown = kind === 'min' ? percent(value) : `${value.toFixed(2)}${kind === 'times' ? ' ×' : ''}`
    console.log(`target: ${what}: ${shown} ${met ? 'met' : 'MISSED'}`)
  }
}

/** Text ids (issue 53): nextString(format) in each form beside decimal and ulid's, and the targets. */
function printFormats(calls) {
  console.log()
  printTable([
    ['text ids', 'ns/call', '× `nextString()`', "× ulid's"],
    ...formats.candidates.map((c) => [
      label(c),
      `${median(calls[c.key]).toFixed(1)} ns`,
      ratio(calls, c.key, 'default').toFixed(2),
      ratio(calls, c.key, 'ulid').toFixed(2),
    ]),
  ])
  console.log()
  for (const [what, value, target] of [
    ["`nextString('base32')` ≤ 1.2 × `nextString()` (decimal)", ratio(calls, 'base32', 'default'), 1.2],
    ["`nextString('base32')` ≤ 0.5 × ulid's `monotonicFactory()()`", ratio(calls, 'base32', 'ulid'), 0.5],
  ]) {
    console.log(`target: ${what}: ${value.toFixed(2)} ${value <= target ? 'met' : 'MISSED'}`)
  }
}

/**
 * Cold start: each candidate's fresh processes, by the process's own timer (its script's start
 * to `require` done, and to its first id) and by ours (spawn to exit), and the targets.
 */
function printColdStart(cold) {
  // samples of one figure of each process: { key: [ms per round] }.
  const figure = (name) =>
    Object.fromEntries(Object.entries(cold).map(([key, runs]) => [key, runs.map((x) => x[name])]))
  const [required, first, whole] = ['required', 'first', 'whole'].map(figure)
  const ms = (samples, key) => `${median(samples[key]).toFixed(1)} ms`
  const times = (samples, key) => ratio(samples, key, 'coldTheirs').toFixed(2)
  console.log()
  printTable([
    [
      'cold start: a fresh process to its first id',
      'require',
      '× flake-idgen',
      'to first id',
      '× flake-idgen',
      'whole process',
      '× flake-idgen',
    ],
    ...coldStart.candidates.map((c) => [
      label(c),
      ms(required, c.key),
      times(required, c.key),
      ms(first, c.key),
      times(first, c.key),
      ms(whole, c.key),
      times(whole, c.key),
    ]),
  ])
  console.log()
  // Issue 32's targets are times: the process's own, from its script's first line; issue 51's, a
  // ratio to flake-idgen's first id, taken within each round.
  const targets = [
    ['`require` ≤ 6 ms', median(required.coldOurs), 6, ' ms'],
    ['first id ≤ 10 ms after the script starts', median(first.coldOurs), 10, ' ms'],
    ["first id ≤ 2 × flake-idgen's", ratio(first, 'coldOurs', 'coldTheirs'), 2, ' ×'],
  ]
  for (const [what, value, target, unit] of targets) {
    console.log(
      `target: ${what}: ${value.toFixed(unit === ' ms' ? 1 : 2)}${unit} ${value <= target ? 'met' : 'MISSED'}`,
    )
  }
}

/** A markdown table, padded so that it reads as well in a terminal; numbers to the right. */
function printTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  const line = (cells) => `| ${cells.join(' | ')} |`
  console.log(line(rows[0].map((cell, column) => cell.padEnd(widths[column]))))
  console.log(line(widths.map((width, column) => (column === 0 ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`))))
  for (const row of rows.slice(1)) {
    console.log(
      line(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))),
    )
  }
}

main()

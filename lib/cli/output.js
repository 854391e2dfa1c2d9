'use strict'

// What the command prints, and how: stdout written at the pace the reader takes it, tables
// and times as every command shows them.

/** Writes `text` to stdout; resolves once it is written or buffered, waiting while the pipe is full. */
function write(text) {
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve()
    else process.stdout.once('drain', resolve)
  })
}

// Enough ids per write to keep the pipe busy, few enough to keep memory flat for any count.
const IDS_PER_WRITE = 65_536

/**
 * Prints `count` ids, one per line, `IDS_PER_WRITE` at a time: `batch(n)` gives a Buffer of `n`
 * ids of `size` bytes each, `line(ids, offset)` the line of the id at `offset`.
 */
async function writeIds(count, size, batch, line) {
  for (let left = count; left > 0; ) {
    const ids = batch(Math.min(left, IDS_PER_WRITE))
    left -= ids.length / size
    const lines = []
    for (let offset = 0; offset < ids.length; offset += size) lines.push(line(ids, offset))
    await write(`${lines.join('\n')}\n`)
  }
}

/**
 * Ends the process, successfully, when stdout's reader goes away: `flake-idgen -n 1000000 |
 * head` is done once head has its lines, it is not an error.
 */
function exitOnClosedPipe() {
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0)
    throw error
  })
}

/** Rows of cells as lines, each column as wide as its widest cell, two spaces between. */
function table(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/** Ms since 1970 as an ISO date; a number no Date holds (another process wrote it) as it is. */
const iso = (ms) => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms))

/**
 * A token another process wrote (an owner, a meta) as a table cell: as it is if it is printable
 * ASCII without spaces, else quoted, so that it cannot break a line or a column.
 */
const cell = (text) => (/^[\x21-\x7e]+$/.test(text) ? text : JSON.stringify(text))

module.exports = { IDS_PER_WRITE, write, writeIds, exitOnClosedPipe, table, iso, cell }

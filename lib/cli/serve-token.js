'use strict'

// serve's --token-file: the bearer token its clients send, refused at start when no client could
// send it as it is, and a warning when every user of the host may read it.

const fs = require('node:fs')
const { CommandError } = require('./command-errors.js')

// What an Authorization header carries as it was written: HTTP trims spaces and tabs around a
// value, clients refuse CR, LF and what is not Latin-1 (a BOM), and a space inside is read by
// some servers as the end of the token. A token of printable ASCII with no space reaches the
// member whole from every client; anything else starts a member that answers 401 to everyone.
const NAMES = {
  ' ': 'a space',
  '\t': 'a tab',
  '\r': 'a carriage return (CR)',
  '\n': 'a line break',
  '\uFEFF': 'a byte-order mark (BOM)',
}

/** Why `token` cannot be sent as it is, or undefined. The token itself is never quoted. */
function flaw(token) {
  if (token.length === 0) return 'must hold the token on one line, not empty'
  const at = token.search(/[^\x21-\x7E]/)
  if (at === -1) return undefined
  const what = NAMES[token[at]] ?? 'a character that is not printable ASCII'
  return `holds ${what} at character ${at + 1} of ${token.length}: a token is printable ASCII with no spaces, on one line`
}

/**
 * The token in `file`: its content without one trailing newline (LF or CRLF), as `echo` or an
 * editor leaves it, and a warning to print once the member starts (or undefined); a CommandError
 * saying why it is unusable, never quoting the token.
 */
function readToken(file) {
  // The path in full, not cut as values are: a user finds the file by it.
  const named = JSON.stringify(file)
  let text
  let mode
  try {
    text = fs.readFileSync(file, 'utf8')
    mode = fs.statSync(file).mode
  } catch (error) {
    throw new CommandError(`cannot read --token-file ${named}: ${error.code ?? error.message}`)
  }
  const token = text.replace(/\r?\n$/, '')
  const why = flaw(token)
  if (why !== undefined) throw new CommandError(`--token-file ${named} ${why}`)
  // World-readable only: a group's read (0640, root:ids) is how a secret is shared with the
  // service's group on purpose, where "others" is every account on the host. Windows has no
  // such bits (Node reports 0666 for any writable file).
  const warning =
    process.platform !== 'win32' && (mode & 0o004) !== 0
      ? `flake-idgen serve: warning: --token-file ${named} is readable by every user (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): chmod o-r it`
      : undefined
  return { token, warning }
}

module.exports = { readToken }

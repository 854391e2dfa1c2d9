'use strict'

// Why a member's answer that is not a 200 was refused, as the error a client fails over with. What
// it quotes is the member's, and a member may be anything the URL reaches: an 8 MB body copied
// into a message would travel into every log line and error tracker that shows it, and escape
// codes in it would rewrite the terminal that prints it. So a short excerpt, escaped.

const codedError = require('../errors/coded-error.js')

/** How much of what a member said an error quotes. */
const EXCERPT = 200

// What JSON.stringify leaves as it is but a terminal or a reader would not: DEL and C1 controls
// (CSI, U+009B, starts an escape sequence as ESC [ does), line and paragraph separators, and
// the marks that reorder text on screen (bidi overrides and isolates).
const UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g

/** `text` as a quoted string of at most EXCERPT characters (and `…`), every control escaped. */
function quote(text) {
  const cut = text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text
  return JSON.stringify(cut).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

// A member's code is shown as it is, so only what one of ours looks like is taken as a code.
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/

/**
 * Why `response` ({ status, statusText, body, location, opaqueRedirect }, not a 200) was refused: a redirect as
 * ERR_FLAKE_REDIRECT_REFUSED (never followed: its target is no member the client was given); else
 * the member's coded JSON error, or its status, with at most an excerpt of what it said.
 */
function refusalOf(response) {
  const { status } = response
  const text = new TextDecoder().decode(response.body)
  // The status line's reason is the member's too: escaped, unquoted (`401 Unauthorized`).
  const statusText = quote(String(response.statusText ?? '')).slice(1, -1)
  // fetch's `redirect: 'manual'` in a browser-like runtime: status 0, no location to show.
  if ((status >= 300 && status < 400) || response.opaqueRedirect) {
    const to = response.location ? ` to ${quote(response.location)}` : ''
    return codedError(
      Error,
      'ERR_FLAKE_REDIRECT_REFUSED',
      `${status} ${statusText}: a redirect${to}, refused: a client asks only the members it was given`,
    )
  }
  let error
  try {
    error = JSON.parse(text)?.error
  } catch {}
  const code = typeof error?.code === 'string' && CODE.test(error.code) ? error.code : `HTTP ${status}`
  const said = typeof error?.message === 'string' ? error.message : text
  return codedError(Error, code, `${status} ${statusText}${said === '' ? '' : ` ${quote(said)}`}`)
}

module.exports = { refusalOf, quote, EXCERPT }

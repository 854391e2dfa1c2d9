'use strict'

// Connection forms shown without their secrets: a URL, a libpq keyword string ("host=h
// password=p"), a client's options object. Every message that shows a user's connection form
// shows it through here, and what a client says back is scrubbed of the secrets it was given:
// a password must never reach a terminal, a log or an error tracker.

const HIDDEN = '***'

// Names whose values are secrets: `password`, `sslpassword`, `passphrase`, `secret`, `token`,
// `auth` (a name of its own: not `rejectUnauthorized`), in any case, alone or in a longer name;
// and TLS's private `key` and `pfx` (names of their own: not `keyPrefix`).
const SECRET_NAME = /pass|secret|token|^auth$|^key$|^pfx$/i
// Names whose values are connection URLs in an options object.
const URL_NAME = /^(?:url|uri|connectionString)$/i

// A libpq keyword/value pair: the value bare, or single-quoted with \' and \\ escapes.
const KEYWORD = /([A-Za-z_][\w-]*)(\s*=\s*)('(?:[^'\\]|\\[\s\S])*'?|[^\s']*)/g

// In text that does not parse as a URL (or parses without a host): everything between the
// scheme and the last `@` (a user and password, whatever they hold), and every query value.
const USER_PART = /^([a-z][a-z0-9+.-]*:(?:\/\/)?|\/\/)?[\s\S]*@/i
const QUERY_VALUES = /([?&][^=&#]*=)[^&#]*/g

/** A URL's text, or null for text that is not one with a host. */
function parsed(text) {
  try {
    const url = new URL(text)
    return url.host === '' ? null : url
  } catch {
    return null
  }
}

/** Whether `text` reads as libpq keyword/value pairs (`host=h port=5432`), not as a URL. */
const isKeywords = (text) => !/^[a-z][a-z0-9+.-]*:/i.test(text) && /^\s*[A-Za-z_][\w-]*\s*=/.test(text)

/** The unquoted value of a libpq keyword pair. */
const unquote = (value) =>
  value.startsWith("'") ? value.slice(1, value.endsWith("'") ? -1 : undefined).replace(/\\([\s\S])/g, '$1') : value

/** `text` (a URL, keyword pairs or anything else) without its secrets. */
function redactText(text) {
  if (isKeywords(text)) {
    return text.replace(KEYWORD, (pair, name, equals, value) =>
      SECRET_NAME.test(name) && value !== '' ? `${name}${equals}${HIDDEN}` : pair,
    )
  }
  const url = parsed(text)
  if (url === null) return text.replace(USER_PART, `$1${HIDDEN}@`).replace(QUERY_VALUES, `$1${HIDDEN}`)
  if (url.password !== '') url.password = HIDDEN
  for (const [key, value] of [...url.searchParams]) {
    if (SECRET_NAME.test(key)) url.searchParams.set(key, HIDDEN)
    else if (jsonOf(value) !== undefined) url.searchParams.set(key, JSON.stringify(redact(jsonOf(value))))
  }
  return url.href
}

/**
 * A query value that is a JSON object or array, as mysql2 reads every value of a URL's query
 * (`?ssl={"key":"…","passphrase":"…"}` is its TLS options), or undefined.
 */
function jsonOf(value) {
  if (!/^\s*[[{]/.test(value)) return undefined
  try {
    const parsed = JSON.parse(value)
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined
  } catch {
    return undefined
  }
}

/** The secrets in `text` (a URL, keyword pairs or anything else), decoded and as written. */
function textSecrets(text) {
  const found = []
  if (isKeywords(text)) {
    for (const [, name, , value] of text.matchAll(KEYWORD)) {
      if (SECRET_NAME.test(name) && value !== '') found.push(value, unquote(value))
    }
    return found
  }
  const url = parsed(text)
  if (url === null) {
    const user = USER_PART.exec(text)
    if (user !== null) {
      const info = user[0].slice((user[1] ?? '').length, -1)
      found.push(info, info.slice(info.indexOf(':') + 1))
    }
    for (const [pair] of text.matchAll(QUERY_VALUES)) found.push(pair.slice(pair.indexOf('=') + 1))
    return found
  }
  if (url.password !== '') found.push(url.password, decode(url.password))
  for (const [key, value] of url.searchParams) {
    if (SECRET_NAME.test(key)) found.push(value)
    else if (jsonOf(value) !== undefined) found.push(...secretsOf(jsonOf(value)))
  }
  return found
}

/** `text` percent-decoded, as a client reads a URL's password; as it is if it does not decode. */
function decode(text) {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * `form` without its secrets: a string (URL, libpq keywords) as text, an options object as a
 * copy with each secret field hidden and each URL field redacted (nested objects too, such as
 * `ssl` or `socket`). Anything else is returned as it is.
 */
function redact(form, depth = 0) {
  if (typeof form === 'string') return redactText(form)
  if (form instanceof URL) return redactText(form.href)
  if (form === null || typeof form !== 'object' || depth > 4) return form
  const copy = Array.isArray(form) ? [] : {}
  for (const [key, value] of Object.entries(form)) {
    // A secret's value whole, whatever it is: TLS's `key` may be a Buffer's JSON or a list of { pem, passphrase }.
    if (SECRET_NAME.test(key) && value != null) copy[key] = HIDDEN
    else if (URL_NAME.test(key) && (typeof value === 'string' || value instanceof URL)) copy[key] = redact(value)
    else copy[key] = typeof value === 'object' ? redact(value, depth + 1) : value
  }
  return copy
}

/** `value` as text if it is not an object, else the strings in it at any depth (a Buffer's bytes are no text to scrub). */
function leaves(value, depth = 0) {
  if (value === null || depth > 4) return []
  if (typeof value !== 'object') return depth === 0 || typeof value === 'string' ? [String(value)] : []
  return Object.values(value).flatMap((item) => leaves(item, depth + 1))
}

/** Every secret in `form` (a string, URL or options object), to scrub from what a client says. */
function secretsOf(form, depth = 0) {
  if (typeof form === 'string') return textSecrets(form).filter((secret) => secret.length > 0)
  if (form instanceof URL) return secretsOf(form.href)
  if (form === null || typeof form !== 'object' || depth > 4) return []
  const found = []
  for (const [key, value] of Object.entries(form)) {
    if (SECRET_NAME.test(key) && value != null) found.push(...leaves(value))
    else if (typeof value === 'string' || value instanceof URL) found.push(...secretsOf(value))
    else if (typeof value === 'object') found.push(...secretsOf(value, depth + 1))
  }
  return found.filter((secret) => secret.length > 0)
}

/** `text` with every one of `secrets` in it hidden, longest first (one may hold another). */
function scrub(text, secrets) {
  let result = String(text)
  for (const secret of [...new Set(secrets)].sort((a, b) => b.length - a.length)) {
    result = result.split(secret).join(HIDDEN)
    const encoded = encodeURIComponent(secret)
    if (encoded !== secret) result = result.split(encoded).join(HIDDEN)
  }
  return result
}

module.exports = { redact, secretsOf, scrub }

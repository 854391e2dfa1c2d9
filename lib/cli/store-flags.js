'use strict'

// The command's store flags (`lease list --redis URL`...), its options and its usage lines, built
// from the rows of lib/lease/stores.js: a new store's row is its flag, with no line of bin/ to add.

const { STORES } = require('../lease/stores.js')

const NAMES = STORES.map((store) => store.name)

/** `a, b or c` */
function either(words) {
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words[0]
}

/** `text` in lines of at most `width` characters, each but the first indented by `indent`. */
function wrap(text, indent, width) {
  const lines = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && indent + line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else {
      line = line === '' ? word : `${line} ${word}`
    }
  }
  lines.push(line)
  return lines.join(`\n${' '.repeat(indent)}`)
}

/** The usage of `lease list`: its synopsis, then what it prints and with which clients, wrapped. */
function leaseListUsage() {
  const clients = STORES.map(({ clients: [first, ...rest] }) =>
    rest.length === 0 ? first.name : `${first.name} (else ${rest.map(({ name }) => name).join(', else ')})`,
  )
  const flags = STORES.map(({ name, value = 'URL' }) => `--${name} ${value}`)
  const synopsis = `  flake-idgen lease list ${wrap(`(${flags.join(' | ')}) --namespace N`, 25, 92)}`
  const text = `list namespace N's settings (its layout's key, epoch, ttl, skew) and leases of node ids: holder, expiry and ceiling of each, with ${either(clients)} from the current directory's project`
  return `${synopsis}\n${' '.repeat(39)}${wrap(text, 39, 92)}`
}

/** What serve's description says of `--lease URL`, wrapped: the store URLs it takes are the rows'. */
function serveLeaseUsage() {
  const text = `a member: serve batches of ids over HTTP to clients (FlakeId.client) holding the token in file F, on node id N or one leased from the store at URL (a ${either(STORES.map(({ schemes }) => schemes[0]))} URL, its client from the current directory's project); SIGTERM or SIGINT drains it (serve --help)`
  return `${' '.repeat(39)}${wrap(text, 39, 92)}`
}

/** The options' lines of the store flags, one each. */
function storeOptionsUsage() {
  return STORES.map(({ name, schemes, value = 'URL', form }) => {
    const flag = `--${name} ${value}`
    return `  ${flag.padEnd(19)}  lease list: ${form ?? `a ${schemes.map((scheme) => `${scheme}//`).join(' or ')} URL`}`
  }).join('\n')
}

module.exports = { STORE_FLAGS: NAMES, leaseListUsage, serveLeaseUsage, storeOptionsUsage, wrap }

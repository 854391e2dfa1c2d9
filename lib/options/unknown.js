'use strict'

// Options a constructor or factory does not take: one policy for every JS one (FlakeId.lease(),
// generator.batchHandler(), FlakeId.client(), uuidv7.create(), uuidv7()'s uuid options, new Flake128()), worded as
// src/options/unknown.rs words new FlakeId()'s and naming the option a typo most likely meant by
// its rules. Each is refused: only new FlakeId() ignores one (with a warning, from the native
// side), because flake-idgen does. Pure JS: the client loads no binary.

const codedError = require('../errors/coded-error.js')
const { debugQuoted, codePoints } = require('./wording.js')

/** How much of a name a message quotes (src/options/unknown.rs). */
const MAX_QUOTED_CHARS = 64

/** Names people use for the node id's parts (a trailing `id` dropped): the option each means. */
const ALIASES = { node: 'id', machine: 'id', generator: 'id', dc: 'datacenter' }

/** Levenshtein distance between two arrays of characters. */
function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 0; i < a.length; i++) {
    let diagonal = row[0]
    row[0] = i + 1
    for (let j = 0; j < b.length; j++) {
      const above = row[j + 1]
      row[j + 1] = Math.min(above + 1, row[j] + 1, diagonal + (a[i] === b[j] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]
}

/**
 * The option of `known` that `name` most likely meant, or undefined: the same name but for
 * case, `_`, `-` or a trailing `id` (`workerId`), a common alias (`nodeId`), or at most two
 * edits away (`wokrer`). src/options/unknown.rs's nearest(), which the tests hold this to.
 */
function nearest(name, known) {
  const folded = name.replace(/[_-]/g, '').toLowerCase()
  const stem = folded.endsWith('id') && folded.length > 2 ? folded.slice(0, -2) : folded
  for (const candidate of [folded, stem]) {
    const same = known.find((option) => option.toLowerCase() === candidate)
    if (same !== undefined) return same
    if (Object.hasOwn(ALIASES, candidate)) return known.find((option) => option === ALIASES[candidate])
  }
  const chars = codePoints(folded)
  let best
  let fewest = Number.POSITIVE_INFINITY
  for (const option of known) {
    const edits = distance(chars, codePoints(option.toLowerCase()))
    if (edits <= 2 && edits < Math.min(option.length, chars.length) && edits < fewest) {
      best = option
      fewest = edits
    }
  }
  return best
}

/** `name` as a report shows it: quoted, escaped, and cut short. */
function quotedName(name) {
  const chars = codePoints(name)
  return debugQuoted(chars.length > MAX_QUOTED_CHARS ? [...chars.slice(0, MAX_QUOTED_CHARS), '...'] : chars)
}

/**
 * What to say of option `name`, which `owner` does not take: the option of `known` it most
 * likely meant, else the options `owner` takes (`taken`: `known` by default). new FlakeId()'s
 * warning (src/options/unknown.rs) starts with the same words.
 */
function unknownOption(owner, name, known, taken = known) {
  const meant = nearest(name, known)
  const hint = meant === undefined ? `it takes ${taken.join(', ')}` : `did you mean ${debugQuoted([meant])}?`
  return `${owner} has no option ${quotedName(name)} (${hint})`
}

/**
 * The own enumerable keys of `options`, once all are among `known`; else refuses the first that
 * is not, as unknownOption() words it: a TypeError coded ERR_FLAKE_INVALID_OPTION. No value is
 * read (a getter is not called); symbol keys are no option's, and never a misspelt one.
 */
function refuseUnknown(options, owner, known, taken = known) {
  const names = Object.keys(options)
  for (const name of names) {
    if (!known.includes(name)) {
      throw codedError(TypeError, 'ERR_FLAKE_INVALID_OPTION', unknownOption(owner, name, known, taken))
    }
  }
  return names
}

module.exports = { nearest, unknownOption, refuseUnknown }

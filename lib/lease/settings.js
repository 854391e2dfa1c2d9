'use strict'
// What the SQL stores decide in JS about a namespace's settings (its marker's meta): Redis's
// scripts decide the same in Lua (redis.js).

/** Whether settings `from` may become `to` once no lease is live: both ours, of one layout. */
function changeable(from, to) {
  try {
    const [a, b] = [JSON.parse(from), JSON.parse(to)]
    return a?.layout === b?.layout && typeof a?.epoch === 'number' && typeof b?.epoch === 'number'
  } catch {
    return false
  }
}

module.exports = { changeable }

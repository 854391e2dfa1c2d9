'use strict'

/**
 * Spins until Date.now() enters a new time unit of `unitMs` (a millisecond by default; 10 ms in
 * sonyflake's layout), so that what runs next starts at a unit's start, with all of its ids.
 */
module.exports = function freshMillisecond(unitMs = 1) {
  if (unitMs === 1) {
    const start = Date.now()
    while (Date.now() === start);
    return
  }
  const start = Math.floor(Date.now() / unitMs)
  while (Math.floor(Date.now() / unitMs) === start);
}

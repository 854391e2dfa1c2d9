'use strict'

/** Spins until Date.now() moves on, so that what runs next starts at a millisecond's start. */
module.exports = function freshMillisecond() {
  const start = Date.now()
  while (Date.now() === start);
}

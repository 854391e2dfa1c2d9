'use strict'

const { decode, MET_OVERFLOW, MET_CLOCK_BEHIND, MET_WAITED } = require('../binding/native.js')

/**
 * One instance's counters, for stats(). Kept in JS: instances of one configuration share their
 * native generator, which reports what each call met (see native.js) for these to count.
 */
class Counts {
  ids = 0
  overflows = 0
  clockBackwards = 0
  waits = 0

  /** Counts what a call that issued ids met, from its report. */
  met(report) {
    const met = decode.met(report)
    if (met === MET_OVERFLOW) this.overflows++
    else if (met === MET_CLOCK_BEHIND) this.clockBackwards++
    else if (met === MET_WAITED) {
      // Other generators' ids used the millisecond up: next() waited for the next one.
      this.overflows++
      this.waits++
    }
  }

  /** Counts a call refused with `error`. */
  refused(error) {
    const code = error == null ? undefined : error.code
    if (code === 'ERR_FLAKE_SEQUENCE_OVERFLOW') this.overflows++
    else if (code === 'ERR_FLAKE_CLOCK_BACKWARDS') this.clockBackwards++
  }

  /** Adds what a batch met. */
  add({ overflows, clockBackwards, waits }) {
    this.overflows += overflows
    this.clockBackwards += clockBackwards
    this.waits += waits
  }

  snapshot() {
    return { ids: this.ids, overflows: this.overflows, clockBackwards: this.clockBackwards, waits: this.waits }
  }
}

module.exports = Counts

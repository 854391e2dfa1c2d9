'use strict'

// next(cb): callbacks answered strictly in call order, each asynchronously, with ids that
// increase in that order; a call that finds no id waits for the clock instead of failing. The
// promises of nextAsync() wait in the same line, but are rejected when the system clock stands
// still (wait.js): next(cb) waits on, as flake-idgen's does.

const { tryIssue, issueRun, IdRun, decode } = require('../binding/native.js')
const Queue = require('./queue.js')
const { waitForClock, watchClock } = require('./wait.js')

/** An id-less answer: what the clock threw, say. A class, since a clock may throw anything. */
class FailedCall {
  constructor(error) {
    this.error = error
  }
}

/** Runs `job` as a promise job: after the current one, held by no fake timers. */
const promiseJob = (job) => {
  Promise.resolve().then(job)
}

/** The next(cb) calls of one instance. */
class Callbacks {
  // The generator's fields (see native.js); kept here, since calls may still wait when their
  // instance is gone.
  #fields
  #clock
  #counts
  // Every call not yet called back, in call order; the first #answered of them have their
  // answers in #answers, in the same order: an IdRun per run of ids, a FailedCall per failed call.
  #calls = new Queue()
  #answered = 0
  #answers = new Queue()
  // A timer is set for when the clock may allow an id.
  #waiting = false
  // The first unanswered call waits, and is counted already.
  #waitCounted = false
  // That wait's watch, on the system clock (wait.js).
  #watch
  // The clock was given up on, and the calls wait on: polled by a timer, never a spin.
  #stalled = false
  // Promises were given up on, and none made since: the next one made waits afresh, its bound
  // counted from its own call (docs/api.md), not from the give-up.
  #afresh = false
  // The settle functions of nextAsync()'s promises, made on the first: the calls a stall rejects.
  #promises = null
  // True while the native side is asked for ids: a clock of the user's may call next(cb).
  #taking = false
  // A nextTick is queued to deliver the answers.
  #tickQueued = false
  // True while answers are delivered: a call a callback makes is delivered by the same loop.
  #delivering = false

  constructor(fields, clock, counts) {
    this.#fields = fields
    this.#clock = clock
    this.#counts = counts
  }

  /** No call waits for an answer: a call made now is first in line. */
  get idle() {
    return this.#calls.length === 0
  }

  /**
   * Queues `cb`; answered in this turn, it is called back on the nextTick queue, as flake-idgen
   * does, or by `soon` if given (nextAsync's: a promise job, which no fake timers hold).
   */
  push(cb, soon) {
    const calls = this.#calls.push(cb)
    // Only a call that finds nobody ahead of it is answered at once. The others queue behind,
    // and are answered when the queue is delivered. In a long synchronous burst nothing is
    // delivered until it ends, so every 256th waiting call also takes the ids that the system
    // clock allows by now: otherwise each millisecond of the burst would go unused. (A user's
    // clock is not read for it: a scripted one would lose readings to it.)
    const answerNow = calls === 1 || ((calls - this.#answered) % 256 === 0 && this.#clock === undefined)
    if (!answerNow || this.#taking) return
    this.#take()
    if (this.#answered > 0 && !this.#tickQueued) {
      // Answered in the turn of the call itself: delivered on the nextTick queue, as flake-idgen
      // does. One tick delivers everything ready, which in a burst costs less than a tick each.
      this.#tickQueued = true
      // Not a default parameter: one reads `process.nextTick` on every call, and that made a
      // next(cb) burst 1.7 times as slow (issue 40).
      if (soon === undefined) process.nextTick(this.#onTick)
      else soon(this.#onTick)
    }
  }

  /**
   * Queues nextAsync()'s `settle` (called once, as a callback is), answered as `push` answers:
   * by a promise job, which no fake timers hold. A stall rejects it (`settle(error)`); so it
   * must ignore any later answer, whose id is then never handed out.
   */
  pushAsync(settle) {
    this.#promise(settle)
    this.push(settle, promiseJob)
  }

  #promise(settle) {
    this.#promises ??= new WeakSet()
    this.#promises.add(settle)
    if (this.#afresh) {
      this.#afresh = false
      this.#watch?.restart()
    }
  }

  /**
   * Queues nextAsync()'s `settle` first in line (the queue is idle) when its caller's own try just met `report`, a
   * wait: it waits from there, without reading the clock again (a scripted one would lose a
   * reading to a second look).
   */
  pushWaiting(settle, report) {
    this.#promise(settle)
    this.#calls.push(settle)
    this.#waitCounted = true
    this.#counts.waits++
    this.#counts.met(report)
    const waitMs = decode.waitMs(report)
    this.#watch = watchClock(this.#clock, waitMs)
    this.#wait(waitMs)
  }

  #onTick = () => {
    this.#tickQueued = false
    this.#deliver()
  }

  #onClock = () => {
    this.#waiting = false
    this.#deliver()
  }

  /** Answers the unanswered calls as far as the clock allows; sets a timer for the rest. */
  #take() {
    const fields = this.#fields
    const clock = this.#clock
    const counts = this.#counts
    this.#taking = true
    try {
      for (;;) {
        const unanswered = this.#calls.length - this.#answered
        if (unanswered <= 0) break
        let report
        try {
          // On the system clock, several waiting calls take a run of ids in one native call.
          report = clock === undefined && unanswered > 1 ? issueRun(fields, unanswered) : tryIssue(fields, clock)
        } catch (error) {
          this.#answers.push(new FailedCall(error))
          this.#answered++
          continue
        }
        const waitMs = decode.waitMs(report)
        if (waitMs > 0) {
          // Counted once per waiting call, however often it polls.
          if (!this.#waitCounted) {
            this.#waitCounted = true
            counts.waits++
            counts.met(report)
            this.#watch = watchClock(clock, waitMs)
          } else {
            const given = this.#watch?.check(waitMs)
            if (given !== undefined) {
              this.#stalled = true
              this.#rejectPromises(given)
              this.#watch = watchClock(clock, waitMs)
              this.#afresh = true
            }
          }
          this.#wait(waitMs)
          return
        }
        this.#waitCounted = false
        this.#watch = undefined
        this.#stalled = false
        this.#afresh = false
        const count = decode.count(report)
        counts.ids += count
        counts.met(report)
        this.#answers.push(new IdRun(count, this.#fields.step))
        this.#answered += count
      }
    } finally {
      this.#taking = false
    }
  }

  /**
   * Calls back every answered call, and takes ids for the others while the clock allows: all
   * of them were made on an earlier turn, so they are asynchronous already.
   */
  #deliver() {
    if (this.#delivering) return
    this.#delivering = true
    const calls = this.#calls
    const answers = this.#answers
    try {
      for (let delivered = 1; ; ) {
        while (this.#answered > 0) {
          // Delivering takes time too: every 256 calls, take the ids its milliseconds allow.
          if (delivered++ % 256 === 0 && this.#clock === undefined && calls.length > this.#answered) this.#take()
          const answer = answers.peek()
          const cb = calls.shift()
          this.#answered--
          if (answer instanceof FailedCall) {
            answers.shift()
            cb(answer.error)
            continue
          }
          const id = answer.take()
          if (answer.left === 0) answers.shift()
          cb(null, id)
        }
        if (calls.length === 0) break
        this.#take()
        if (this.#answered === 0) break
      }
    } finally {
      this.#delivering = false
      // Should a callback throw, the rest are delivered on the next tick, still first.
      const more = this.#answered > 0 || (calls.length > 0 && !this.#waiting)
      if (more && !this.#tickQueued) {
        this.#tickQueued = true
        process.nextTick(this.#onTick)
      }
    }
  }

  /**
   * Rejects every promise waiting in line with `error`, out of line: a rejection hands out no
   * id, so the ids still increase in call order; each settle ignores the id it is answered with
   * later. The callbacks wait on.
   */
  #rejectPromises(error) {
    if (this.#promises === null) return
    for (const call of this.#calls.items(this.#answered)) if (this.#promises.has(call)) call(error)
  }

  #wait(ms) {
    if (this.#waiting) return
    this.#waiting = true
    waitForClock(this.#stalled ? Math.max(ms, 2) : ms, this.#clock, this.#onClock, this.#watch)
  }
}

module.exports = Callbacks

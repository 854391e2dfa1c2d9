//! The state a lease drives: a leased generator's shared state (the host's or the process's
//! word of its id, with `SLOT_FENCED`), raised above a predecessor's ceiling, and the time of
//! the instance's own last id; or a private state's word (a lease on a clock of the user's),
//! which JS keeps between calls, started above that ceiling and read back. Not on the per-id
//! path.

use napi::{Env, Result};
use napi_derive::napi;

use crate::js::seam::calls::with_generator;
use crate::js::seam::protocol::PRIVATE_SLOT;
use crate::js::seam::thread::Thread;
use crate::js::values::error::unusable;
use crate::number::whole;
use crate::sequencer::{last_issued, word_above, NOTHING_ISSUED};

/// Starts the state of the call in the scratch above `time` (ms since 1970): its next id is in
/// a later time unit, whatever its clock reads. For a lease, whose ids must all be above its
/// predecessor's ceiling. A private state is set there; a shared one is only raised (see
/// `Generator::raise_above`): every other generator of its id just issues later.
#[napi]
pub fn start_above(env: Env, time: f64) -> Result<()> {
  let thread = Thread::of(&env)?;
  if thread.scratch.slot() != PRIVATE_SLOT {
    let time = whole(time).ok_or_else(unusable)?;
    // Its ids under the lease are counted from none: `last_issued_at` says the last of them.
    return with_generator(thread, |generator, tally| {
      tally.restart();
      generator.raise_above(time)
    })
    .flatten()
    .ok_or_else(unusable);
  }
  let settings = thread.private_settings().ok_or_else(unusable)?;
  let layout = settings.layout();
  let word = whole(time)
    .and_then(|time| match time >= settings.epoch {
      true => word_above(settings.shape.word(), layout.time_of(time)),
      // A time before the epoch: nothing before the epoch can be issued anyway.
      false => Some(NOTHING_ISSUED),
    })
    .ok_or_else(unusable)?;
  thread.scratch.set_private_state(word);
  Ok(())
}

/// The time (ms since 1970) of the last id the instance of the call in the scratch issued
/// (where its time unit starts), or `undefined` if it issued none: on a shared state, the
/// instance's own (its tally's), not the state's, which others move on, unless another leased
/// generator of its configuration took ids since (see `CallTally::last_taken_ms`); a private
/// state's ids are all the instance's.
#[napi]
pub fn last_issued_at(env: Env) -> Result<Option<f64>> {
  let thread = Thread::of(&env)?;
  if thread.scratch.slot() != PRIVATE_SLOT {
    return with_generator(thread, |generator, tally| tally.last_taken_ms(generator))
      .ok_or_else(unusable)
      .map(|last| last.map(|ms| ms as f64));
  }
  let settings = thread.private_settings().ok_or_else(unusable)?;
  let word = thread.scratch.private_state().word();
  let last = last_issued(settings.shape.word(), word);
  Ok(last.map(|(delta, _)| settings.layout().ms_of(delta) as f64))
}

/// The system clock, in ms since 1970, as the id functions read it. A lease on the system clock
/// fences its ids by this reading, not by `Date.now()`, which fake timers replace (and stop).
#[napi]
pub fn system_now_ms() -> f64 {
  crate::clock::system_now_ms() as f64
}

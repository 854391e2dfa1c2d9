//! A private state's word, which JS keeps between calls and a lease drives: started above a
//! predecessor's ceiling, and read back for the time of its last id. Not on the per-id path.

use napi::{Env, Result};
use napi_derive::napi;

use super::error::unusable;
use super::thread::Thread;
use crate::number::whole;
use crate::sequencer::{last_issued, word_above, NOTHING_ISSUED};

/// Starts the private state of the call in the scratch above `time` (ms since 1970): its next id
/// is in a later time unit, whatever its clock reads. For a lease, whose ids must all be
/// above its predecessor's ceiling.
#[napi]
pub fn start_above(env: Env, time: f64) -> Result<()> {
  let thread = Thread::of(&env)?;
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

/// The time (ms since 1970) of the last id the private state of the call in the scratch issued
/// (where its time unit starts), or `undefined` if it issued none.
#[napi]
pub fn last_issued_at(env: Env) -> Result<Option<f64>> {
  let thread = Thread::of(&env)?;
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

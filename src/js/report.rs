//! What the id functions return to `index.js` besides the ids they write, as one number, so
//! the per-id path creates no objects. `index.js` keeps each instance's counters from these
//! (see `stats()`), since instances share their id functions.
//!
//! - `count * 4 + met`: `count` ids were issued; `met` says why they were borrowed ahead of the
//!   clock, if they were. `fill`/`tryFill` return `undefined` instead of `1 * 4 + NONE`.
//! - `-(wait_ms * 4 + met)`: no id; the clock must advance `wait_ms` first.
//!
//! `met` is `NONE`, `OVERFLOW` (the millisecond's ids were used up) or `CLOCK_BEHIND` (the
//! clock reads earlier than ids already issued).

use crate::error::FlakeError;
use crate::sequencer::Met;

const NONE: u64 = 0;
const OVERFLOW: u64 = 1;
const CLOCK_BEHIND: u64 = 2;

/// `count` ids issued, borrowed ahead of the clock because of `met`, if set.
pub fn issued(count: u16, met: Option<Met>) -> f64 {
  let met = match met {
    None => NONE,
    Some(Met::Overflow) => OVERFLOW,
    Some(Met::ClockBehind) => CLOCK_BEHIND,
  };
  (u64::from(count) * 4 + met) as f64
}

/// `refusal` must be waited out for `wait_ms`.
pub fn waits(refusal: &FlakeError, wait_ms: u64) -> f64 {
  let met = match refusal {
    FlakeError::SequenceOverflow { .. } => OVERFLOW,
    FlakeError::ClockBackwards { .. } => CLOCK_BEHIND,
    _ => NONE,
  };
  -(wait_ms.saturating_mul(4).saturating_add(met) as f64)
}

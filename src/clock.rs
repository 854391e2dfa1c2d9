//! Clock readings: the system clock, and values returned by a user's `clock` function; and the
//! one bounded way this crate waits for the system clock (`wait_for`).

use std::time::Instant;

use crate::error::FlakeError;
use crate::input::Input;
use crate::number::whole_part;

/// Milliseconds since 1970 by the system clock, the same clock as `Date.now()`.
#[inline(always)]
pub fn system_now_ms() -> u64 {
  crate::os::now_ms()
}

/// Validates what a `clock` function returned; a fraction is dropped (see `whole_part`).
pub fn from_js_ms(ms: f64) -> Result<u64, FlakeError> {
  match whole_part(ms) {
    Some(ms) => Ok(ms),
    None => Err(FlakeError::ClockRange {
      got: Input::Number(ms),
    }),
  }
}

/// Real ms a wait goes on, past the time the clock should have taken to reach its target,
/// before it gives up on a clock that does not move (`ClockStalled`). A thread descheduled
/// meanwhile reads a clock that moved with real time, and never gives up for that.
pub const STALL_GRACE_MS: u64 = 100;

/// The longest wait, in ms past a reading, that a synchronous call spends spinning for a 1 ms
/// time unit: the end of the reading's millisecond. A longer one says the state is ahead of the
/// clock (another process borrowed with `allowedFutureMs`, or the clock stepped back), and the
/// event loop must not block for it: the call fails as `next()` does. A coarser unit spins to
/// the end of the reading's unit.
pub const MAX_SPIN_MS: u64 = 1;

/// Time as a waiting call sees it: the clock ids are issued by, and the real time passing.
/// The system's (`SystemClock`) in use; a fake one in tests, so they never sleep.
pub trait Time {
  /// ms since 1970 by the clock ids are issued by.
  fn now_ms(&mut self) -> u64;
  /// ms of real time since any origin, by a clock that never steps (monotonic).
  fn real_ms(&mut self) -> u64;
  /// Lets a little time pass on the way to `now_ms()` reading `target_ms` from `now_ms`.
  fn pause(&mut self, now_ms: u64, target_ms: u64);
}

/// The longest sleep of a wait between two readings of the clock: a clock stepped during a
/// wait of a coarse unit is seen this soon, not at the wait's end.
pub const MAX_SLEEP_MS: u64 = 10;

/// The system clock, and real time by `Instant` (monotonic: a step of the system clock does
/// not move it).
pub struct SystemClock(Instant);

impl SystemClock {
  /// Real time counted from now.
  pub fn new() -> Self {
    Self(Instant::now())
  }
}

impl Default for SystemClock {
  fn default() -> Self {
    Self::new()
  }
}

impl Time for SystemClock {
  fn now_ms(&mut self) -> u64 {
    system_now_ms()
  }

  fn real_ms(&mut self) -> u64 {
    self.0.elapsed().as_millis() as u64
  }

  /// Sleeps through all but the last millisecond (a coarse unit's wait), `MAX_SLEEP_MS` at a
  /// time, then spins: a sleep can overshoot by a millisecond or more, and a batch loses 4,096
  /// ids for each millisecond it oversleeps.
  fn pause(&mut self, now_ms: u64, target_ms: u64) {
    match target_ms.saturating_sub(now_ms) {
      0 | 1 => std::hint::spin_loop(),
      ms => std::thread::sleep(std::time::Duration::from_millis((ms - 1).min(MAX_SLEEP_MS))),
    }
  }
}

/// Waits until `time` reads `target_ms` or later, from a reading of `from_ms`: every wait of
/// the crate for the system clock is this one, so none is unbounded. Gives up
/// - as `ClockBackwards` (measured from `from_ms`, to be waited for up to `target_ms`) once the
///   clock reads earlier than `from_ms`: it stepped back, and would keep the caller for as long
///   as the step;
/// - as `ClockStalled` once real time has passed the wait by `grace_ms`: the clock does not
///   move, or moves slower than real time.
///
/// So it blocks at most `target_ms - from_ms + grace_ms` ms of real time (and a pause's
/// overshoot), whatever the clock does.
pub fn wait_for(
  time: &mut impl Time,
  from_ms: u64,
  target_ms: u64,
  grace_ms: u64,
) -> Result<(), FlakeError> {
  let start = time.real_ms();
  let give_up = start + target_ms.saturating_sub(from_ms) + grace_ms;
  loop {
    // Real time first: a pause between the two readings then shows as a clock that moved,
    // never as one that stood still.
    let real = time.real_ms();
    let now = time.now_ms();
    if now >= target_ms {
      return Ok(());
    }
    if now < from_ms {
      return Err(FlakeError::ClockBackwards {
        ms: from_ms - now,
        wait_ms: target_ms - now,
      });
    }
    if real > give_up {
      return Err(FlakeError::ClockStalled {
        waited_ms: real.saturating_sub(start),
      });
    }
    // Never past the bound: a clock frozen or slowed meanwhile is seen by then.
    time.pause(now, target_ms.min(now + (give_up - real) + 1));
  }
}

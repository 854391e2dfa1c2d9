//! Clock readings: the system clock, and values returned by a user's `clock` function.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::FlakeError;
use crate::input::Input;
use crate::number::whole_part;

/// Milliseconds since 1970 by the system clock, the same clock as `Date.now()`.
pub fn system_now_ms() -> u64 {
  SystemTime::now()
    .duration_since(UNIX_EPOCH)
    .map_or(0, |since| {
      since.as_secs() * 1000 + u64::from(since.subsec_millis())
    })
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

/// Blocks until the system clock reads at least `target_ms`: sleeps through all but the last
/// millisecond, then spins, since a sleep can overshoot by a millisecond or more and a batch
/// loses 4,096 ids for each millisecond it oversleeps.
pub fn wait_until(target_ms: u64) {
  loop {
    let now = system_now_ms();
    if now >= target_ms {
      return;
    }
    if target_ms - now > 1 {
      std::thread::sleep(std::time::Duration::from_millis(target_ms - now - 1));
    } else {
      std::hint::spin_loop();
    }
  }
}

/// Time as opening a state file sees it: readings, and a way to let time pass. The system's in
/// use (`SystemClock`); a fake one in tests, so they never sleep.
pub trait Time {
  /// Milliseconds since 1970.
  fn now_ms(&mut self) -> u64;
  /// Returns once `now_ms()` reads at least `target_ms`.
  fn wait_until(&mut self, target_ms: u64);
}

/// The system clock, as `Time`.
pub struct SystemClock;

impl Time for SystemClock {
  fn now_ms(&mut self) -> u64 {
    system_now_ms()
  }

  fn wait_until(&mut self, target_ms: u64) {
    wait_until(target_ms);
  }
}

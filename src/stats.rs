//! What one batch met, for `stats()`: `Counts` (`lib/generator/flake-id.js`) adds it to the
//! instance's counters (JS keeps them, since instances of one configuration share their native
//! side).

use crate::error::FlakeError;
use crate::sequencer::Met;

/// Calls counted on the way to a batch's ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
  /// Millisecond runs that found every id of the clock's millisecond used: they waited or
  /// borrowed, or ended the batch.
  pub overflows: u64,
  /// Millisecond runs that found the clock behind an earlier reading: likewise.
  pub clock_backwards: u64,
  /// Waits for the clock.
  pub waits: u64,
}

impl Counts {
  /// Counts what ids met: borrowed ahead of the clock, or waited for.
  pub fn met(&mut self, met: Option<Met>) {
    match met {
      None => {}
      Some(Met::Overflow) => self.overflows += 1,
      Some(Met::ClockBehind) => self.clock_backwards += 1,
      Some(Met::Waited) => {
        self.overflows += 1;
        self.waits += 1;
      }
    }
  }

  /// Counts a refusal.
  pub fn refused(&mut self, err: &FlakeError) {
    match err {
      FlakeError::SequenceOverflow { .. } => self.overflows += 1,
      FlakeError::ClockBackwards { .. } => self.clock_backwards += 1,
      _ => {}
    }
  }

  /// Counts a wait for the clock.
  pub fn waited(&mut self) {
    self.waits += 1;
  }
}

//! Counters of one generator instance (`stats()` in JS). Relaxed atomics: a batch on libuv's
//! pool may count overflows and waits while the JS thread issues single ids.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use crate::error::FlakeError;
use crate::generator::Ids;
use crate::sequencer::Met;

#[derive(Debug, Default)]
pub struct Stats {
  ids: AtomicU64,
  overflows: AtomicU64,
  clock_backwards: AtomicU64,
  waits: AtomicU64,
  /// The call at the head of the instance's `next(cb)` queue was refused and waits; the JS
  /// layer retries it until answered, and only its first refusal counts.
  waiting: AtomicBool,
}

/// The counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
  /// Ids issued.
  pub ids: u64,
  /// Calls that found every id of the clock's millisecond used: they threw, waited or borrowed.
  pub overflows: u64,
  /// Calls that found the clock behind an earlier reading: they threw, waited or borrowed.
  pub clock_backwards: u64,
  /// Calls that had to wait for the clock.
  pub waits: u64,
}

impl Stats {
  /// Counts ids handed out on the instance's JS thread, the one thread that adds to `ids`: a
  /// plain load and store, not a locked add, on the per-id path.
  pub fn issued(&self, ids: &Ids) {
    self.add_ids(u64::from(ids.count));
    self.met(ids.met);
  }

  /// Adds to `ids`; on the instance's JS thread only (see `issued`).
  pub fn add_ids(&self, count: u64) {
    self.ids.store(self.ids.load(Relaxed) + count, Relaxed);
  }

  /// Counts what borrowed ids met, from any thread.
  pub fn met(&self, met: Option<Met>) {
    match met {
      None => {}
      Some(Met::Overflow) => _ = self.overflows.fetch_add(1, Relaxed),
      Some(Met::ClockBehind) => _ = self.clock_backwards.fetch_add(1, Relaxed),
    }
  }

  /// Counts a refusal.
  pub fn refused(&self, err: &FlakeError) {
    match err {
      FlakeError::SequenceOverflow { .. } => _ = self.overflows.fetch_add(1, Relaxed),
      FlakeError::ClockBackwards { .. } => _ = self.clock_backwards.fetch_add(1, Relaxed),
      _ => {}
    }
  }

  /// Counts a call that waits for the clock.
  pub fn waited(&self) {
    self.waits.fetch_add(1, Relaxed);
  }

  /// Counts a refusal that makes the waiting call wait, unless that call was counted already.
  pub fn waiting(&self, err: &FlakeError) {
    if !self.waiting.swap(true, Relaxed) {
      self.refused(err);
      self.waited();
    }
  }

  /// The waiting call got its id: a refusal after this is a new wait.
  pub fn answered(&self) {
    self.waiting.store(false, Relaxed);
  }

  pub fn counts(&self) -> Counts {
    Counts {
      ids: self.ids.load(Relaxed),
      overflows: self.overflows.load(Relaxed),
      clock_backwards: self.clock_backwards.load(Relaxed),
      waits: self.waits.load(Relaxed),
    }
  }
}

//! A configured generator: turns a clock reading into an id, or says why it cannot.

use std::sync::Arc;

use crate::error::FlakeError;
use crate::layout::{compose, MAX_DELTA};
use crate::options::Config;
use crate::registry;
use crate::sequencer::{Refusal, Sequencer};

/// A generator's configuration and the (possibly shared) state it issues from.
#[derive(Debug, Clone)]
pub struct Generator {
  node: u16,
  epoch: u64,
  seq_mask: u16,
  sequencer: Arc<Sequencer>,
}

impl Generator {
  /// Generators on the system clock share their state process-wide; one with its own clock
  /// keeps a private state, since its time is not the process's time.
  pub fn new(config: &Config) -> Self {
    let sequencer = if config.custom_clock {
      Arc::new(Sequencer::new())
    } else {
      registry::shared(config.id, config.epoch)
    };
    Self {
      node: config.id,
      epoch: config.epoch,
      seq_mask: config.seq_mask,
      sequencer,
    }
  }

  /// The next id by a clock it may read again. A thread descheduled between reading the clock
  /// and taking its turn at a shared state can find that other threads have since issued ids
  /// in later milliseconds: its reading is stale, not the clock wrong. So a refusal is retried
  /// with a fresh reading for as long as the clock has moved on since the refused one.
  pub fn next_id_by(&self, mut read_clock: impl FnMut() -> u64) -> Result<u64, FlakeError> {
    let mut now_ms = read_clock();
    loop {
      let refusal = match self.next_id(now_ms) {
        Err(err @ (FlakeError::ClockBackwards { .. } | FlakeError::SequenceOverflow)) => err,
        issued_or_final => return issued_or_final,
      };
      let fresh = read_clock();
      if fresh <= now_ms {
        return Err(refusal);
      }
      now_ms = fresh;
    }
  }

  /// The next id for a clock reading of `now_ms` milliseconds since 1970.
  pub fn next_id(&self, now_ms: u64) -> Result<u64, FlakeError> {
    let delta = now_ms
      .checked_sub(self.epoch)
      .ok_or(FlakeError::ClockBeforeEpoch {
        now: now_ms,
        epoch: self.epoch,
      })?;
    if delta > MAX_DELTA {
      return Err(FlakeError::TimestampOverflow { delta });
    }
    match self.sequencer.next(delta, self.seq_mask) {
      Ok((delta, sequence)) => Ok(compose(delta, self.node, sequence)),
      Err(Refusal::Overflow) => Err(FlakeError::SequenceOverflow),
      Err(Refusal::Backwards { ms }) => Err(FlakeError::ClockBackwards { ms }),
    }
  }
}

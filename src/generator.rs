//! A configured generator: turns a clock reading into ids, or says why it cannot.

use std::sync::Arc;

use crate::error::FlakeError;
use crate::layout::{compose, MAX_DELTA};
use crate::options::{Config, Scope};
use crate::registry;
use crate::sequencer::{Met, Refusal, Run, Sequencer};

/// A generator's configuration and the (possibly shared) state it issues from. Clones are the
/// same generator.
#[derive(Debug, Clone)]
pub struct Generator {
  node: u16,
  epoch: u64,
  seq_mask: u16,
  allowed_future_ms: u64,
  state: State,
}

/// Where a generator's state word lives.
#[derive(Debug, Clone)]
pub enum State {
  /// In this process: shared by its threads, or private to a generator with its own clock.
  Process(Arc<Sequencer>),
  /// In a state file mapped for the rest of the process's life, shared by the host's processes.
  Host(&'static Sequencer),
}

impl State {
  #[inline(always)]
  fn sequencer(&self) -> &Sequencer {
    match self {
      Self::Process(sequencer) => sequencer,
      Self::Host(sequencer) => sequencer,
    }
  }
}

/// Consecutive ids: `first ..= first + count - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ids {
  pub first: u64,
  pub count: u16,
  /// Set when the ids were borrowed ahead of the clock, and why.
  pub met: Option<Met>,
}

impl Ids {
  /// Writes the ids big-endian into the first `count * 8` bytes of `out`.
  pub fn write_be(&self, out: &mut [u8]) {
    for (id, slot) in (self.first..).zip(out.chunks_exact_mut(8).take(usize::from(self.count))) {
      slot.copy_from_slice(&id.to_be_bytes());
    }
  }
}

impl Generator {
  /// Generators on the system clock share their state host-wide or process-wide, as their
  /// scope says; one with its own clock keeps a private state, since its time is not the
  /// process's time. A host scope that was not asked for falls back to the process's state when
  /// its directory cannot be used (noted for the one warning); one that was asked for fails.
  pub fn new(config: &Config) -> Result<Self, FlakeError> {
    let state = match &config.scope {
      _ if config.custom_clock => State::Process(Arc::new(Sequencer::new())),
      Scope::Process => State::Process(registry::shared(config.id, config.epoch)),
      Scope::Host { dir, required } => match registry::host(dir, config.id, config.epoch) {
        Ok(sequencer) => State::Host(sequencer),
        Err(err) if !required => {
          registry::fell_back(&err);
          State::Process(registry::shared(config.id, config.epoch))
        }
        Err(err) => return Err(err),
      },
    };
    Ok(Self::with_state(config, state))
  }

  /// A generator configured by `config` on `state`.
  pub fn with_state(config: &Config, state: State) -> Self {
    Self {
      node: config.id,
      epoch: config.epoch,
      seq_mask: config.seq_mask,
      allowed_future_ms: config.allowed_future_ms,
      state,
    }
  }

  /// Whether its state is shared with the host's other processes.
  pub fn is_host(&self) -> bool {
    matches!(self.state, State::Host(_))
  }

  /// The next id for a clock reading of `now_ms` milliseconds since 1970.
  #[cfg(test)]
  pub fn next_id(&self, now_ms: u64) -> Result<u64, FlakeError> {
    self.take(now_ms, 1).map(|ids| ids.first)
  }

  /// Up to `max` ids by a clock it may read again. A thread descheduled between reading the
  /// clock and taking its turn at a shared state can find that other threads have since issued
  /// ids in later milliseconds: its reading is stale, not the clock wrong. So a refusal is
  /// retried with a fresh reading for as long as the clock has moved on since the refused one.
  #[inline]
  pub fn take_by(
    &self,
    mut read_clock: impl FnMut() -> Result<u64, FlakeError>,
    max: u16,
  ) -> Result<Ids, FlakeError> {
    let now_ms = read_clock()?;
    match self.take(now_ms, max) {
      Err(refusal @ (FlakeError::ClockBackwards { .. } | FlakeError::SequenceOverflow { .. })) => {
        self.retake(read_clock, max, now_ms, refusal)
      }
      taken_or_final => taken_or_final,
    }
  }

  /// `take_by` after a refusal for a reading of `now_ms`; out of line, off the per-id path.
  #[cold]
  #[inline(never)]
  fn retake(
    &self,
    mut read_clock: impl FnMut() -> Result<u64, FlakeError>,
    max: u16,
    mut now_ms: u64,
    mut refusal: FlakeError,
  ) -> Result<Ids, FlakeError> {
    loop {
      let fresh = read_clock()?;
      if fresh <= now_ms {
        return Err(refusal);
      }
      now_ms = fresh;
      refusal = match self.take(now_ms, max) {
        Err(err @ (FlakeError::ClockBackwards { .. } | FlakeError::SequenceOverflow { .. })) => err,
        taken_or_final => return taken_or_final,
      };
    }
  }

  /// Up to `max` (≥ 1) consecutive ids, all in one millisecond, for a clock reading of `now_ms`.
  #[inline]
  pub fn take(&self, now_ms: u64, max: u16) -> Result<Ids, FlakeError> {
    let delta = now_ms
      .checked_sub(self.epoch)
      .ok_or(FlakeError::ClockBeforeEpoch {
        now: now_ms,
        epoch: self.epoch,
      })?;
    if delta > MAX_DELTA {
      return Err(FlakeError::TimestampOverflow { delta });
    }
    match self
      .state
      .sequencer()
      .take(delta, self.seq_mask, max, self.allowed_future_ms)
    {
      Ok(Run {
        delta,
        first,
        count,
        met,
      }) => Ok(Ids {
        first: compose(delta, self.node, first),
        count,
        met,
      }),
      Err(Refusal::Overflow { wait }) => Err(FlakeError::SequenceOverflow { wait_ms: wait }),
      Err(Refusal::Backwards { ms, wait }) => Err(FlakeError::ClockBackwards { ms, wait_ms: wait }),
      Err(Refusal::PastMaxDelta { delta }) => Err(FlakeError::TimestampOverflow { delta }),
    }
  }
}

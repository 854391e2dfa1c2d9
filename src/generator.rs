//! A configured generator: turns a clock reading into ids, or says why it cannot.

use crate::error::FlakeError;
use crate::host::file::HORIZON_MS;
use crate::host::HostFile;
use crate::layout::{compose, MAX_DELTA};
use crate::options::{Config, Scope};
use crate::registry::{self, Warning};
use crate::sequencer::{Met, Refusal, Sequencer, Taken};

/// A generator: its configuration and the state it issues from. Cheap to make and to copy: the
/// id functions make one per call from what JS wrote into the scratch.
#[derive(Debug, Clone, Copy)]
pub struct Generator<'s> {
  node: u16,
  epoch: u64,
  seq_mask: u16,
  allowed_future_ms: u64,
  state: &'s Sequencer,
  /// The mapped state file `state` is a word of (host scope), whose fence every id passes.
  file: Option<&'static HostFile>,
  clock: Clock,
  /// The highest timestamp (ms since 1970) it may issue: a lease's ceiling; `u64::MAX` for none,
  /// `CLOSED` for a closed lease.
  ceiling: u64,
}

/// The ceiling of a closed lease: nothing at all may be issued.
pub const CLOSED: u64 = 0;

/// A generator id's shared state: a word of the process's, or of a mapped state file (host
/// scope), which says how long it may be issued from (see `host::file`).
#[derive(Debug, Clone, Copy)]
pub struct SharedState {
  pub sequencer: &'static Sequencer,
  pub file: Option<&'static HostFile>,
}

/// What a generator is, besides its state: all a call needs to say (see `js::protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Settings {
  /// The 10-bit generator id.
  pub node: u16,
  pub epoch: u64,
  pub seq_mask: u16,
  pub allowed_future_ms: u64,
}

impl From<&Config> for Settings {
  fn from(config: &Config) -> Self {
    Self {
      node: config.id,
      epoch: config.epoch,
      seq_mask: config.seq_mask,
      allowed_future_ms: config.allowed_future_ms,
    }
  }
}

/// What the state's timestamps count from, which says who may share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clock {
  /// Ms since 1970 by the system clock: the process's (or the host's) state of a generator id,
  /// shared by its generators of every epoch, so that however many epochs come and go the
  /// process keeps one state per id (an epoch no longer costs a state, or a file).
  System,
  /// Ms since the epoch, by a clock of the generator's own: a state private to one instance.
  Own,
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

/// The shared state a system-clock configuration issues from: the host's (in a state file) or
/// the process's. When its directory cannot be used, the default directory's next candidates
/// are tried in order (a warning noted if one is used); when none can, a host scope that was
/// not asked for falls back to the process's state (a warning noted), one that was asked for
/// fails with the first directory's error.
pub fn shared_state(config: &Config) -> Result<(SharedState, bool), FlakeError> {
  match &config.scope {
    Scope::Process => Ok((registry::process(config.id), false)),
    Scope::Host {
      dir,
      alternatives,
      required,
    } => match registry::host(dir, config.id) {
      Ok(sequencer) => Ok((sequencer, true)),
      // Another directory, or process scope, would be a second state for the id.
      Err(err @ FlakeError::StateDirTaken { .. }) => Err(err),
      Err(err) => fall_back(config, alternatives, *required, err),
    },
  }
}

/// `shared_state` once the first directory failed with `err`. A directory's failure is kept by
/// the registry, so every generator of the process lands in the same place.
#[cold]
fn fall_back(
  config: &Config,
  alternatives: &[std::path::PathBuf],
  required: bool,
  err: FlakeError,
) -> Result<(SharedState, bool), FlakeError> {
  let mut reasons = vec![err];
  for dir in alternatives {
    match registry::host(dir, config.id) {
      Ok(sequencer) => {
        registry::warn(Warning::OtherDirectory {
          dir: dir.clone(),
          reasons,
        });
        return Ok((sequencer, true));
      }
      Err(err @ FlakeError::StateDirTaken { .. }) => return Err(err),
      Err(err) => reasons.push(err),
    }
  }
  if required {
    return Err(reasons.swap_remove(0));
  }
  registry::warn(Warning::ProcessScope { reasons });
  Ok((registry::process(config.id), false))
}

#[cfg(test)]
impl Generator<'static> {
  /// The generator `config` configures, on the state a call for it would use: the shared one
  /// (`shared_state`), or with a `clock` a private one of its own (leaked: tests only).
  pub fn new(config: &Config) -> Result<Self, FlakeError> {
    let settings = Settings::from(config);
    if config.custom_clock {
      let state = Box::leak(Box::new(Sequencer::new()));
      return Ok(Self::private(&settings, state, u64::MAX));
    }
    Ok(Self::shared(&settings, shared_state(config)?.0))
  }
}

impl<'s> Generator<'s> {
  /// A generator on the system clock issuing from `shared`, a generator id's shared state.
  pub fn shared(settings: &Settings, shared: SharedState) -> Self {
    Self {
      file: shared.file,
      ..Self::with(settings, shared.sequencer, Clock::System, u64::MAX)
    }
  }

  /// A generator with a clock of its own (or a lease's fence) issuing from `state`, which no
  /// other generator uses, and never past `ceiling` (ms since 1970).
  pub fn private(settings: &Settings, state: &'s Sequencer, ceiling: u64) -> Self {
    Self::with(settings, state, Clock::Own, ceiling)
  }

  fn with(settings: &Settings, state: &'s Sequencer, clock: Clock, ceiling: u64) -> Self {
    Self {
      node: settings.node,
      epoch: settings.epoch,
      seq_mask: settings.seq_mask,
      allowed_future_ms: settings.allowed_future_ms,
      state,
      file: None,
      clock,
      ceiling,
    }
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
  #[inline(always)]
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
  #[inline(always)]
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
    // A shared state's word holds ms since 1970 in its 42 bits; a private one counts from the
    // epoch, and stops at the ceiling.
    if self.clock == Clock::Own {
      return self.take_private(delta, max);
    }
    if now_ms > MAX_DELTA {
      return Err(self.past(now_ms, 0));
    }
    match self.file {
      None => self.run(now_ms, max, MAX_DELTA, 0),
      Some(file) => self.take_fenced(file, now_ms, max),
    }
  }

  /// Takes from a mapped state file's word, within the horizon after the file was last seen in
  /// place (or for a reading before that: the clock stepped back); else looks again first.
  #[inline(always)]
  fn take_fenced(&self, file: &HostFile, now_ms: u64, max: u16) -> Result<Ids, FlakeError> {
    let verified_at = file.verified_at();
    // One comparison for both ends: a reading before `verified_at` wraps around to a large one.
    if now_ms.wrapping_sub(verified_at) <= HORIZON_MS {
      let taken = self.state.take(
        now_ms,
        self.seq_mask,
        max,
        self.allowed_future_ms,
        verified_at + HORIZON_MS,
      );
      match taken {
        Err(Refusal::PastLimit { .. }) => {}
        // A refusal of spent words (a truncated file) is the loss, which the renewal reports.
        Err(_) if file.is_lost() => {}
        taken => return self.issued(taken, 0),
      }
    }
    self.renew_and_take(file, now_ms, max)
  }

  /// `take_fenced` past the horizon: out of line, once per `HORIZON_MS` at most while issuing.
  #[cold]
  #[inline(never)]
  fn renew_and_take(&self, file: &HostFile, now_ms: u64, max: u16) -> Result<Ids, FlakeError> {
    let horizon = file.renew(now_ms)? + HORIZON_MS;
    // Borrowing reaches no further than the horizon on host scope: within it, a refusal is the
    // clock's (behind, or every id of the allowed milliseconds used), with its wait.
    let allowed = self.allowed_future_ms.min(horizon - now_ms);
    let taken = self
      .state
      .take(now_ms, self.seq_mask, max, allowed, MAX_DELTA);
    match taken {
      // Lost since the renewal: the words are spent.
      Err(_) if file.is_lost() => Err(file.lost_error()),
      taken => self.issued(taken, 0),
    }
  }

  #[inline(never)]
  fn take_private(&self, delta: u64, max: u16) -> Result<Ids, FlakeError> {
    let limit = match self.ceiling.checked_sub(self.epoch) {
      Some(ceiling) if self.ceiling != CLOSED && delta <= ceiling => ceiling.min(MAX_DELTA),
      _ => return Err(self.past(delta, self.epoch)),
    };
    self.run(delta, max, limit, self.epoch)
  }

  /// Takes from the state for `now` (counted from `origin`), never past `limit`.
  #[inline(always)]
  fn run(&self, now: u64, max: u16, limit: u64, origin: u64) -> Result<Ids, FlakeError> {
    let taken = self
      .state
      .take(now, self.seq_mask, max, self.allowed_future_ms, limit);
    self.issued(taken, origin)
  }

  /// The ids `taken` (timestamps counted from `origin`), or why none were.
  #[inline(always)]
  fn issued(&self, taken: Result<Taken, Refusal>, origin: u64) -> Result<Ids, FlakeError> {
    match taken {
      Ok(Taken {
        delta: time,
        first,
        count,
        met,
      }) => Ok(Ids {
        // Every timestamp taken is at or after the reading, so after the epoch.
        first: compose(time + origin - self.epoch, self.node, first),
        count,
        met,
      }),
      Err(Refusal::Overflow { wait }) => Err(FlakeError::SequenceOverflow { wait_ms: wait }),
      Err(Refusal::Backwards { ms, wait }) => Err(FlakeError::ClockBackwards { ms, wait_ms: wait }),
      Err(Refusal::PastLimit { delta: time }) => Err(self.past(time, origin)),
    }
  }

  /// Why nothing at `time` (counted from `origin`) can be issued: past the ceiling, or past 42
  /// bits.
  #[cold]
  fn past(&self, time: u64, origin: u64) -> FlakeError {
    let since_1970 = time + origin;
    if self.ceiling == CLOSED {
      FlakeError::LeaseClosed
    } else if self.ceiling != u64::MAX && since_1970 > self.ceiling {
      FlakeError::LeaseExpired {
        ceiling: self.ceiling,
      }
    } else {
      FlakeError::TimestampOverflow {
        delta: since_1970.saturating_sub(self.epoch),
      }
    }
  }
}

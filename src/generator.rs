//! A configured generator: turns a clock reading into ids, or says why it cannot.

use crate::error::FlakeError;
use crate::host::file::HORIZON_MS;
use crate::host::HostFile;
use crate::kinds::layout::{Layout, Shape};
use crate::options::Config;
use crate::registry::SharedState;
use crate::sequencer::{last_issued, Floor, Met, Refusal, Sequencer, Taken};

/// A generator: its configuration and the state it issues from. Cheap to make and to copy: the
/// id functions make one per call from what JS wrote into the scratch.
#[derive(Debug, Clone, Copy)]
pub struct Generator<'s> {
  node: u16,
  epoch: u64,
  seq_mask: u16,
  allowed_future_ms: u64,
  shape: Shape,
  state: &'s Sequencer,
  /// The mapped state file `state` is a word of (host scope), whose fence every id passes.
  file: Option<&'static HostFile>,
  /// The last id the process took from `state`, when it is a mapped file's (see `Floor`).
  floor: Option<&'static Floor>,
  clock: Clock,
  /// The highest timestamp (ms since 1970) it may issue: a lease's ceiling; `u64::MAX` for none,
  /// `CLOSED` for a closed lease.
  ceiling: u64,
  /// The last time unit since 1970 it may issue ids of on a shared state: its ceiling's
  /// (`fenced`), `u64::MAX` for none. Kept apart, so that a plain generator's take checks it
  /// without a branch.
  last_unit: u64,
  /// Whether a clock behind its shared state goes on from the state's time (see `counting_on`).
  counts_on: bool,
}

/// The ceiling of a closed lease: nothing at all may be issued.
pub const CLOSED: u64 = 0;

/// How many times a generator `counting_on` starts again from the shared state's time when
/// other takers keep moving it on (each try is two takes).
const COUNT_ON_TRIES: usize = 64;

/// What a generator is, besides its state: all a call needs to say (see `js::protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Settings {
  /// The node id (generator id).
  pub node: u16,
  pub epoch: u64,
  pub seq_mask: u16,
  /// At most 15 s (`Shape::max_allowed_future_ms`): 32 bits, so that a thread's configuration
  /// (`js::slots`) is one cache line.
  pub allowed_future_ms: u32,
  /// The layout's bits; its epoch is `epoch`.
  pub shape: Shape,
}

impl Settings {
  /// Its layout, as far as ids tell: the shape and the epoch.
  pub const fn layout(&self) -> Layout {
    Layout {
      shape: self.shape,
      epoch: self.epoch,
      preset: None,
    }
  }
}

impl From<&Config> for Settings {
  fn from(config: &Config) -> Self {
    Self {
      node: config.id,
      epoch: config.epoch,
      seq_mask: config.seq_mask,
      // At most 15 s: `options` checked it.
      allowed_future_ms: config.allowed_future_ms as u32,
      shape: config.layout.shape,
    }
  }
}

/// What the state's timestamps count from, which says who may share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clock {
  /// Time units since 1970 by the system clock: the process's (or the host's) state of a
  /// shape's node id, shared by its generators of every epoch, so that however many epochs come
  /// and go the process keeps one state per id (an epoch no longer costs a state, or a file).
  System,
  /// Time units since the epoch, by a clock of the generator's own: a state private to one
  /// instance.
  Own,
}

/// Consecutive ids of one time unit: `first + k * step` for `k` in `0..count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ids {
  pub first: u64,
  pub count: u32,
  /// How far apart consecutive sequence numbers are as ids (`Shape::step`).
  pub step: u64,
  /// Their time unit in the state's count (since 1970 for a shared state, since the epoch for
  /// a private one): what a `Tally` counts by.
  pub time: u64,
  /// Set when the ids were borrowed ahead of the clock, or waited for, and why.
  pub met: Option<Met>,
}

impl Ids {
  /// The ids, in order.
  pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
    (0..u64::from(self.count)).map(|k| self.first + k * self.step)
  }

  /// Writes the ids big-endian into the first `count * 8` bytes of `out`.
  pub fn write_be(&self, out: &mut [u8]) {
    let mut id = self.first;
    for slot in out.chunks_exact_mut(8).take(self.count as usize) {
      slot.copy_from_slice(&id.to_be_bytes());
      id += self.step;
    }
  }
}

/// Bits of a `Tally` that count ids (a unit has at most 2^16).
const COUNT_BITS: u32 = 20;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

/// The ids one generator instance took in the last time unit it took ids in (of its state's
/// count: `Ids::time`): `time << COUNT_BITS | count`, 0 (the default) before any. JS keeps it
/// with the instance (see `js::protocol`): instances of one configuration share all else. A
/// time has at most 42 bits (`Word::max_time`), so the top two bits stay clear, which JS relies
/// on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally(pub u64);

impl Tally {
  /// The tally once `ids` are taken too.
  #[inline(always)]
  pub fn add(self, ids: &Ids) -> Self {
    let count = u64::from(ids.count);
    if self.0 >> COUNT_BITS == ids.time {
      Self(self.0 & !COUNT_MASK | ((self.0 & COUNT_MASK) + count).min(COUNT_MASK))
    } else {
      Self(ids.time << COUNT_BITS | count)
    }
  }

  /// Whether it counts at least `ids` ids of unit `time`.
  pub const fn holds(self, time: u64, ids: u32) -> bool {
    self.0 >> COUNT_BITS == time && self.0 & COUNT_MASK >= ids as u64
  }

  /// The unit it counts ids of: the instance's last, `None` before any.
  pub const fn time(self) -> Option<u64> {
    match self.0 {
      0 => None,
      tally => Some(tally >> COUNT_BITS),
    }
  }
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
    Ok(Self::shared(
      &settings,
      crate::registry::shared_state(config)?.0,
    ))
  }
}

impl<'s> Generator<'s> {
  /// A generator on the system clock issuing from `shared`, a generator id's shared state.
  pub fn shared(settings: &Settings, shared: SharedState) -> Self {
    Self {
      file: shared.file,
      floor: shared.floor,
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
      allowed_future_ms: u64::from(settings.allowed_future_ms),
      shape: settings.shape,
      state,
      file: None,
      floor: None,
      clock,
      ceiling,
      last_unit: u64::MAX,
      counts_on: false,
    }
  }

  /// The same generator on a shared state, leased: it issues no id whose time is past
  /// `ceiling` (ms since 1970; `CLOSED`: none at all), while the others of its state go on.
  #[inline(always)]
  pub fn fenced(&self, ceiling: u64) -> Self {
    Self {
      ceiling,
      last_unit: self.units(ceiling, 0).0,
      ..*self
    }
  }

  /// Raises its shared state so that its next id is in a later time unit than `ms` (ms since
  /// 1970), whatever the clock reads: a lease's ids are all above its floor. Only ever raised:
  /// the others that share the state just issue later. `None` past what the word holds.
  pub fn raise_above(&self, ms: u64) -> Option<()> {
    let word = self.shape.word();
    let above = match self.clock {
      Clock::System => crate::sequencer::word_above(word, self.units(ms, 0).0)?,
      // A private state starts where its owner says (see `js::private_state`).
      Clock::Own => return None,
    };
    self.state.raise(word, above);
    Some(())
  }

  /// The time (ms since 1970) of the last ids the instance whose ids `tally` counts took from a
  /// shared state (where their time unit starts), if it took any.
  pub fn last_taken_ms(&self, tally: Tally) -> Option<u64> {
    match self.clock {
      Clock::System => tally
        .time()
        .map(|time| time.saturating_mul(self.shape.unit())),
      Clock::Own => None,
    }
  }

  /// The time (ms since 1970) of the last ids any generator took from its shared state (where
  /// their time unit starts), if one took any: never before the last of any one instance.
  pub fn last_issued_ms(&self) -> Option<u64> {
    match self.clock {
      Clock::System => last_issued(self.shape.word(), self.state.word())
        .map(|(time, _)| time.saturating_mul(self.shape.unit())),
      Clock::Own => None,
    }
  }

  /// The same generator, for a kind whose ids go on from the shared state's time when the
  /// system clock reads behind it (UUIDv7 and Flake128, as RFC 9562 §6.2 and `uuid`'s `v7()`
  /// do), rather than refuse: another process's clock ahead must not stop every process's ids
  /// until the clock catches up. Ids then run ahead of the clock by as much as the furthest
  /// clock that issued from the state. A clock of the generator's own keeps refusing.
  pub fn counting_on(&self) -> Self {
    Self {
      counts_on: self.clock == Clock::System,
      ..*self
    }
  }

  /// Whether the instance whose ids `tally` counts took every id of its state's last time unit
  /// itself (all `seqMask + 1`), as flake-idgen's counter, its instance's own, refuses on.
  /// Always, for a private state: no other generator takes from it.
  pub fn took_all(&self, tally: Tally) -> bool {
    self.clock == Clock::Own
      || last_issued(self.shape.word(), self.state.word())
        .is_some_and(|(last, _)| tally.holds(last, u32::from(self.seq_mask) + 1))
  }

  /// How many ids it issues per time unit at most.
  pub const fn ids_per_unit(&self) -> u32 {
    self.shape.ids_per_unit()
  }

  /// The shape of its ids.
  #[inline(always)]
  pub const fn shape(&self) -> Shape {
    self.shape
  }

  /// Its time unit, in ms.
  pub const fn unit_ms(&self) -> u64 {
    self.shape.unit()
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
    max: u32,
  ) -> Result<Ids, FlakeError> {
    let now_ms = read_clock()?;
    let taken = self.take(now_ms, max);
    // Tested, not matched: a match moves the whole result (an error is large) on every id.
    if matches!(
      taken,
      Err(FlakeError::ClockBackwards { .. } | FlakeError::SequenceOverflow { .. })
    ) {
      return self.retake(read_clock, max, now_ms, taken);
    }
    taken
  }

  /// `take_by` after `refused`, a refusal for a reading of `now_ms`; out of line, off the
  /// per-id path.
  #[cold]
  #[inline(never)]
  fn retake(
    &self,
    mut read_clock: impl FnMut() -> Result<u64, FlakeError>,
    max: u32,
    mut now_ms: u64,
    refused: Result<Ids, FlakeError>,
  ) -> Result<Ids, FlakeError> {
    let Err(mut refusal) = refused else {
      return refused;
    };
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

  /// Up to `max` (≥ 1) consecutive ids, all in one time unit, for a clock reading of `now_ms`.
  #[inline(always)]
  pub fn take(&self, now_ms: u64, max: u32) -> Result<Ids, FlakeError> {
    // Branched on before the take, not matched after it: a match moves the whole result (an
    // error is large), 30 instructions more on every id (issue 40).
    if self.counts_on {
      return self.take_counting_on(now_ms, max);
    }
    self.take_at(now_ms, max)
  }

  /// `take` of a generator `counting_on`.
  #[inline(never)]
  fn take_counting_on(&self, now_ms: u64, max: u32) -> Result<Ids, FlakeError> {
    match self.take_at(now_ms, max) {
      Err(FlakeError::ClockBackwards { .. }) => self.count_on(now_ms, max),
      taken => taken,
    }
  }

  /// `take` for a clock behind the shared state, of a generator `counting_on`: the ids after
  /// the state's last, in its time unit or the next ones.
  #[cold]
  #[inline(never)]
  fn count_on(&self, now_ms: u64, max: u32) -> Result<Ids, FlakeError> {
    let unit = self.shape.unit();
    let mut refusal = None;
    // Other threads and processes move the state on meanwhile: each try starts from its time.
    for _ in 0..COUNT_ON_TRIES {
      let Some((last, _)) = last_issued(self.shape.word(), self.state.word()) else {
        return self.take_at(now_ms, max);
      };
      let from_ms = last.saturating_mul(unit).max(now_ms);
      for at in [from_ms, from_ms.saturating_add(unit)] {
        match self.take_at(at, max) {
          Err(err @ (FlakeError::ClockBackwards { .. } | FlakeError::SequenceOverflow { .. })) => {
            refusal = Some(err);
          }
          taken => return taken,
        }
      }
    }
    Err(refusal.expect("tried at least once"))
  }

  /// `take`, refusing a clock behind the state.
  #[inline(always)]
  fn take_at(&self, now_ms: u64, max: u32) -> Result<Ids, FlakeError> {
    if now_ms < self.epoch {
      return Err(FlakeError::ClockBeforeEpoch {
        now: now_ms,
        epoch: self.epoch,
      });
    }
    // Time units since 1970, and the epoch's: units count from 1970, as sonyflake's do.
    let (now, epoch) = self.units(now_ms, self.epoch);
    let delta = now - epoch;
    if delta > self.shape.max_time() {
      return Err(self.overflow(delta));
    }
    // A shared state's word holds units since 1970; a private one counts from the epoch, and
    // stops at the ceiling.
    if self.clock == Clock::Own {
      return self.take_private(now_ms, delta, max);
    }
    // A lease's ceiling too: ids of its time unit are the last it issues.
    let limit = self
      .shape
      .word()
      .max_time()
      .min(epoch + self.shape.max_time())
      .min(self.last_unit);
    if now > limit {
      return Err(self.past(now, 0));
    }
    match self.file {
      None => self.run(now_ms, now, max, limit, 0),
      Some(file) => self.take_fenced(file, now_ms, now, max, limit),
    }
  }

  /// `ms` and `epoch_ms` in time units since 1970.
  #[inline(always)]
  fn units(&self, ms: u64, epoch_ms: u64) -> (u64, u64) {
    match self.shape.unit() {
      1 => (ms, epoch_ms),
      unit => (ms / unit, epoch_ms / unit),
    }
  }

  /// `allowedFutureMs` in whole time units.
  #[inline(always)]
  fn allowed(&self) -> u64 {
    match self.shape.unit() {
      1 => self.allowed_future_ms,
      unit => self.allowed_future_ms / unit,
    }
  }

  /// Takes from a mapped state file's word, within the horizon after the file was last seen in
  /// place (or for a reading before that: the clock stepped back); else looks again first.
  #[inline(always)]
  fn take_fenced(
    &self,
    file: &HostFile,
    now_ms: u64,
    now: u64,
    max: u32,
    limit: u64,
  ) -> Result<Ids, FlakeError> {
    let verified_at = file.verified_at();
    // One comparison for both ends: a reading before `verified_at` wraps around to a large one.
    if now_ms.wrapping_sub(verified_at) <= HORIZON_MS {
      let horizon = self.units(verified_at + HORIZON_MS, 0).0;
      let taken = self.state.take_above(
        self.shape.word(),
        now,
        self.seq_mask,
        max,
        self.allowed(),
        horizon.min(limit),
        self.floor,
      );
      match taken {
        Err(Refusal::PastLimit { .. }) => {}
        Err(Refusal::Reverted) => return Err(file.reverted()),
        // A refusal of spent words (a truncated file) is the loss, which the renewal reports.
        Err(_) if file.is_lost() => {}
        taken => return self.issued(taken, now_ms, 0),
      }
    }
    self.renew_and_take(file, now_ms, now, max, limit)
  }

  /// `take_fenced` past the horizon: out of line, once per `HORIZON_MS` at most while issuing.
  #[cold]
  #[inline(never)]
  fn renew_and_take(
    &self,
    file: &HostFile,
    now_ms: u64,
    now: u64,
    max: u32,
    limit: u64,
  ) -> Result<Ids, FlakeError> {
    let horizon = self.units(file.renew(now_ms)? + HORIZON_MS, 0).0;
    // Borrowing reaches no further than the horizon on host scope: within it, a refusal is the
    // clock's (behind, or every id of the allowed units used), with its wait.
    let allowed = self.allowed().min(horizon.saturating_sub(now));
    let taken = self.state.take_above(
      self.shape.word(),
      now,
      self.seq_mask,
      max,
      allowed,
      limit,
      self.floor,
    );
    match taken {
      Err(Refusal::Reverted) => Err(file.reverted()),
      // Lost since the renewal: the words are spent.
      Err(_) if file.is_lost() => Err(file.lost_error()),
      taken => self.issued(taken, now_ms, 0),
    }
  }

  #[inline(never)]
  fn take_private(&self, now_ms: u64, delta: u64, max: u32) -> Result<Ids, FlakeError> {
    // The ceiling in units after the epoch: ids of its unit are issued only up to it.
    let ceiling = match self.ceiling {
      CLOSED => None,
      u64::MAX => Some(u64::MAX),
      ceiling if ceiling < self.epoch => None,
      ceiling => {
        let (ceiling, epoch) = self.units(ceiling, self.epoch);
        Some(ceiling - epoch)
      }
    };
    let limit = match ceiling {
      Some(ceiling) if delta <= ceiling && now_ms <= self.ceiling => ceiling
        .min(self.shape.max_time())
        .min(self.shape.word().max_time()),
      _ => return Err(self.past(delta, self.epoch)),
    };
    // Past what a state word holds (2109 for a 1 ms unit), though not past the time bits.
    if delta > limit {
      return Err(self.past(delta, self.epoch));
    }
    self.run(now_ms, delta, max, limit, self.epoch)
  }

  /// Takes from the state for `now` (units counted from `origin`, ms since 1970), never past
  /// `limit`.
  #[inline(always)]
  fn run(
    &self,
    now_ms: u64,
    now: u64,
    max: u32,
    limit: u64,
    origin: u64,
  ) -> Result<Ids, FlakeError> {
    let taken = self.state.take(
      self.shape.word(),
      now,
      self.seq_mask,
      max,
      self.allowed(),
      limit,
    );
    self.issued(taken, now_ms, origin)
  }

  /// The ids `taken` (times in units counted from `origin`, ms since 1970: 0 or the epoch) for
  /// a reading of `now_ms`, or why none were.
  #[inline(always)]
  fn issued(
    &self,
    taken: Result<Taken, Refusal>,
    now_ms: u64,
    origin: u64,
  ) -> Result<Ids, FlakeError> {
    match taken {
      Ok(Taken {
        delta: time,
        first,
        count,
        met,
      }) => {
        // Every time taken is at or after the reading, so after the epoch.
        let (origin, epoch) = self.units(origin, self.epoch);
        Ok(Ids {
          first: self.shape.compose(time + origin - epoch, self.node, first),
          count,
          step: self.shape.step(),
          time,
          met,
        })
      }
      Err(Refusal::Overflow { wait }) => Err(FlakeError::SequenceOverflow {
        wait_ms: self.wait_ms(wait, now_ms),
      }),
      Err(Refusal::Backwards { ms, wait }) => Err(FlakeError::ClockBackwards {
        ms: ms * self.shape.unit(),
        wait_ms: self.wait_ms(wait, now_ms),
      }),
      Err(Refusal::PastLimit { delta: time }) => Err(self.past(time, origin)),
      // Only a mapped file's word goes back, and `take_fenced` answers for it before this.
      Err(Refusal::Reverted) => Err(match self.file {
        Some(file) => file.reverted(),
        None => FlakeError::StateLost {
          path: String::new(),
          reason: "its state went back".into(),
        },
      }),
    }
  }

  /// How many ms after `now_ms` the clock is `wait` units later: at the next unit's start.
  #[inline(always)]
  fn wait_ms(&self, wait: u64, now_ms: u64) -> u64 {
    match self.shape.unit() {
      1 => wait,
      unit => wait * unit - now_ms % unit,
    }
  }

  /// Past the time bits: `delta` units after the epoch.
  #[cold]
  fn overflow(&self, delta: u64) -> FlakeError {
    FlakeError::TimestampOverflow {
      delta,
      bits: self.shape.time_bits,
      unit_ms: self.shape.unit_ms,
    }
  }

  /// Why nothing at `time` (units counted from `origin`, ms since 1970: 0 or the epoch) can be
  /// issued: past the ceiling, or past the time bits.
  #[cold]
  fn past(&self, time: u64, origin: u64) -> FlakeError {
    let (origin, epoch) = self.units(origin, self.epoch);
    let since_1970 = time
      .saturating_add(origin)
      .saturating_mul(self.shape.unit());
    if self.ceiling == CLOSED {
      FlakeError::LeaseClosed
    } else if self.ceiling != u64::MAX && since_1970 > self.ceiling {
      FlakeError::LeaseExpired {
        ceiling: self.ceiling,
      }
    } else {
      self.overflow((time + origin).saturating_sub(epoch))
    }
  }
}

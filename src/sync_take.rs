//! A synchronous call's take from a shared state. flake-idgen's counter is its instance's own,
//! so its `next()` throws the overflow only when that instance took every id of the
//! millisecond. Here a generator id's state is shared by every generator of that id in the
//! process (threads) or on the host (processes), and the time unit a call finds used up may
//! hold none of its ids: a neighbour's unit is waited out (it ends at most one unit later), and
//! only a generator that took the unit's ids itself (its `Tally`) throws, as flake-idgen's does.

use std::time::{Duration, Instant};

use crate::batch::MAX_SPIN_MS;
use crate::clock::system_now_ms;
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};
use crate::sequencer::Met;

/// How long a call waits while other generators take every id of each unit before it could
/// take one, before it gives up (`SequenceBusy`): at least this many ms of real time, and
/// `BUSY_UNITS` units (so 100 units of 1 ms, 10 of 10 ms, 3 of a second). At the start of a
/// unit every waiting taker races for its ids: one that loses this often is starved, not
/// unlucky.
pub const BUSY_MS: u64 = 100;

/// The fewest units a call waits for before it gives up (`SequenceBusy`), however long that
/// took: one descheduled for long still gets its races.
pub const BUSY_UNITS: u32 = 3;

/// Real ms a call waits, past the time the clock should have taken to reach the next unit,
/// before it gives up on a clock that does not move (`ClockStalled`). A thread descheduled
/// meanwhile reads a clock that moved with real time, and never gives up for that.
pub const STALL_GRACE_MS: u64 = 100;

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

/// Time as a waiting synchronous call sees it: the clock ids are issued by and the real time
/// passing. The system's (`SystemWait`) in use; a fake one in tests, so they never sleep.
pub trait Wait {
  /// ms since 1970 by the clock ids are issued by.
  fn now_ms(&mut self) -> u64;
  /// ms of real time since any origin, by a clock that never steps (monotonic).
  fn real_ms(&mut self) -> u64;
  /// Lets a little time pass on the way to `now_ms()` reading `target_ms` from `now_ms`.
  fn pause(&mut self, now_ms: u64, target_ms: u64);
}

/// The system clock, and real time by `Instant`.
pub struct SystemWait(Instant);

impl SystemWait {
  /// Real time counted from now.
  pub fn new() -> Self {
    Self(Instant::now())
  }
}

impl Wait for SystemWait {
  fn now_ms(&mut self) -> u64 {
    system_now_ms()
  }

  fn real_ms(&mut self) -> u64 {
    self.0.elapsed().as_millis() as u64
  }

  /// Sleeps through all but the last millisecond (a coarse unit's wait), then spins: a sleep
  /// can overshoot by a millisecond or more.
  fn pause(&mut self, now_ms: u64, target_ms: u64) {
    match target_ms.saturating_sub(now_ms) {
      0 | 1 => std::hint::spin_loop(),
      ms => std::thread::sleep(Duration::from_millis(ms - 1)),
    }
  }
}

/// What a synchronous call on `generator` (the instance whose ids `tally` counts) does about
/// `refusal`, met for a reading of `now_ms`: an overflow of a unit the instance did not use up
/// itself, which ends within one unit (`MAX_SPIN_MS` for a 1 ms unit), is waited out and up to
/// `max` ids are taken in the next unit; anything else is `refusal`, thrown as before: the
/// instance's own overflow (flake-idgen's error), a state borrowed further ahead (another
/// generator's `allowedFutureMs`), a clock behind. Ids taken after a wait report
/// `Met::Waited`. A clock that does not reach the next unit in time fails as `ClockStalled`,
/// one whose every unit other generators take first, for long (`BUSY_MS`, `BUSY_UNITS`), as
/// `SequenceBusy`: it never hangs.
#[cold]
#[inline(never)]
pub fn wait_out(
  generator: &Generator,
  tally: Tally,
  max: u32,
  time: &mut impl Wait,
  mut now_ms: u64,
  mut refusal: FlakeError,
) -> Result<Ids, FlakeError> {
  let spin_limit = MAX_SPIN_MS.max(generator.unit_ms());
  let start = time.real_ms();
  let mut units = 0;
  loop {
    match refusal {
      FlakeError::SequenceOverflow { wait_ms }
        if wait_ms <= spin_limit && !generator.took_all(tally) =>
      {
        let waited_ms = time.real_ms().saturating_sub(start);
        if units >= BUSY_UNITS && waited_ms >= BUSY_MS.max(generator.unit_ms() * 3) {
          return Err(FlakeError::SequenceBusy { units, waited_ms });
        }
        units += 1;
        wait_for(time, now_ms, now_ms + wait_ms)?;
      }
      _ => return Err(refusal),
    }
    let taken = generator.take_by(
      || {
        now_ms = time.now_ms();
        Ok(now_ms)
      },
      max,
    );
    refusal = match taken {
      Ok(ids) => {
        return Ok(Ids {
          met: Some(Met::Waited),
          ..ids
        })
      }
      Err(err) => err,
    };
  }
}

/// Waits until `time` reads `target_ms` or later, from a reading of `from_ms`; or earlier than
/// `from_ms` (the clock stepped back: the take that follows says so). Gives up as
/// `ClockStalled` once real time has passed the wait by `STALL_GRACE_MS`.
pub fn wait_for(time: &mut impl Wait, from_ms: u64, target_ms: u64) -> Result<(), FlakeError> {
  let start = time.real_ms();
  let give_up = start + target_ms.saturating_sub(from_ms) + STALL_GRACE_MS;
  loop {
    // Real time first: a pause between the two readings then shows as a clock that moved,
    // never as one that stood still.
    let real = time.real_ms();
    let now = time.now_ms();
    if now >= target_ms || now < from_ms {
      return Ok(());
    }
    if real > give_up {
      return Err(FlakeError::ClockStalled {
        waited_ms: real.saturating_sub(start),
      });
    }
    time.pause(now, target_ms);
  }
}

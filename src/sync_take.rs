//! A synchronous call's take from a shared state. flake-idgen's counter is its instance's own,
//! so its `next()` throws the overflow only when that instance took every id of the
//! millisecond. Here a generator id's state is shared by every generator of that id in the
//! process (threads) or on the host (processes), and the time unit a call finds used up may
//! hold none of its ids: a neighbour's unit is waited out (it ends at most one unit later), and
//! only a generator that took the unit's ids itself (its `Tally`) throws, as flake-idgen's does.

use crate::batch::MAX_SPIN_MS;
use crate::clock::{self, Time, STALL_GRACE_MS};
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};
use crate::sequencer::Met;

/// How long a call may wait, in all, while other generators take every id of each unit before
/// it could take one: this many ms of real time, or one time unit where that is longer (so 100
/// units of 1 ms, 10 of 10 ms, 1 of a second). A wait that would end past it is not begun: the
/// call gives up (`SequenceBusy`). At the start of a unit every waiting taker races for its
/// ids: one that loses this often is starved, not unlucky. So a synchronous call blocks for at
/// most `max(BUSY_MS, unit)` ms, and `STALL_GRACE_MS` more for a clock that is late.
pub const BUSY_MS: u64 = 100;

/// The fewest units a call races for before it gives up (`SequenceBusy`), however long that
/// took, where that many fit `BUSY_MS` (units up to 33 ms): one descheduled for long still gets
/// its races. A coarser unit gets the races that fit: one of a second.
pub const BUSY_UNITS: u32 = 3;

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

/// What a synchronous call on `generator` (the instance whose ids `tally` counts) does about
/// `refusal`, met for a reading of `now_ms`: an overflow of a unit the instance did not use up
/// itself, which ends within one unit (`MAX_SPIN_MS` for a 1 ms unit), is waited out and up to
/// `max` ids are taken in the next unit; anything else is `refusal`, thrown as before: the
/// instance's own overflow (flake-idgen's error), a state borrowed further ahead (another
/// generator's `allowedFutureMs`), a clock behind. Ids taken after a wait report
/// `Met::Waited`. A clock that does not reach the next unit in time fails as `ClockStalled`,
/// one that steps back during the wait as `ClockBackwards` (both by `clock::wait_for`), one
/// whose every unit other generators take first, for long (`BUSY_MS`, `BUSY_UNITS`), as
/// `SequenceBusy`: it never hangs.
#[cold]
#[inline(never)]
pub fn wait_out(
  generator: &Generator,
  tally: Tally,
  max: u32,
  time: &mut impl Time,
  mut now_ms: u64,
  mut refusal: FlakeError,
) -> Result<Ids, FlakeError> {
  let unit_ms = generator.unit_ms();
  let spin_limit = MAX_SPIN_MS.max(unit_ms);
  let budget_ms = BUSY_MS.max(unit_ms);
  let min_units = BUSY_UNITS.min((budget_ms / unit_ms.max(1)) as u32);
  let start = time.real_ms();
  let mut units = 0;
  loop {
    match refusal {
      FlakeError::SequenceOverflow { wait_ms }
        if wait_ms <= spin_limit && !generator.took_all(tally) =>
      {
        let waited_ms = time.real_ms().saturating_sub(start);
        // Projected, not looked back at: a second wait of a coarse unit begun after most of
        // a first one would block for nearly two units.
        if units >= min_units.max(1) && waited_ms + wait_ms > budget_ms {
          return Err(FlakeError::SequenceBusy { units, waited_ms });
        }
        units += 1;
        clock::wait_for(time, now_ms, now_ms + wait_ms, STALL_GRACE_MS)?;
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

//! Many ids at once, a millisecond at a time (one compare-and-swap per run of up to 4,096 ids):
//! all of them, waiting for the clock where the caller says, or what the clock allows now.

use crate::clock::{self, SystemClock, STALL_GRACE_MS};
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};
use crate::input::Input;
use crate::number::whole;
use crate::sequencer::Met;
use crate::stats::Counts;

/// The most ids one batch may ask for: 128 MiB, over 4 s of one generator's capacity.
pub const MAX_COUNT: u32 = 1 << 24;

/// What a waiter did about a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
  /// Waited for the clock: the refusal counts, and so does the wait.
  Yes,
  /// Nothing to wait for, the reading was stale: retry with a fresh one, count nothing.
  No,
}

/// Validates a batch size: an integer from 1 to `MAX_COUNT`.
pub fn count(got: &Input) -> Result<u32, FlakeError> {
  let expected = || format!("an integer from 1 to {MAX_COUNT}");
  match got {
    Input::Number(n) => whole(*n)
      .filter(|count| (1..=u64::from(MAX_COUNT)).contains(count))
      .map(|count| count as u32)
      .ok_or_else(|| FlakeError::ArgumentRange {
        argument: "count".into(),
        expected: expected(),
        got: got.clone(),
      }),
    _ => Err(FlakeError::ArgumentType {
      argument: "count".into(),
      expected: expected(),
      got: got.clone(),
    }),
  }
}

/// Issues `total` ascending ids, handing each run to `write` with the index of its first id. A
/// refusal goes to `wait` with the clock reading it was refused for; `wait` gives up by
/// returning an error. Adds to `counts` the overflows, step backs and waits met on the way.
pub fn issue_all<E: From<FlakeError>>(
  generator: &Generator,
  total: usize,
  mut read_clock: impl FnMut() -> Result<u64, E>,
  mut wait: impl FnMut(&FlakeError, u64) -> Result<Waited, E>,
  counts: &mut Counts,
  mut write: impl FnMut(usize, &Ids) -> Result<(), E>,
) -> Result<(), E> {
  let mut issued = 0;
  while issued < total {
    let now = read_clock()?;
    let max = (total - issued).min(generator.ids_per_unit() as usize) as u32;
    match generator.take(now, max) {
      Ok(ids) => {
        counts.met(ids.met);
        write(issued, &ids)?;
        issued += ids.count as usize;
      }
      Err(err) => match wait(&err, now) {
        Ok(Waited::Yes) => {
          counts.refused(&err);
          counts.waited();
        }
        Ok(Waited::No) => {}
        Err(given_up) => {
          counts.refused(&err);
          return Err(given_up);
        }
      },
    }
  }
  Ok(())
}

/// Up to `max` ascending ids that the clock allows now, without waiting: runs taken by
/// `take` (one time unit each, at most `per_unit` ids) until `max` or a refusal. Returns how
/// many were issued, the first thing a run met, and the refusal that stopped it, if one did.
pub fn issue_available(
  max: usize,
  per_unit: u32,
  mut take: impl FnMut(u32) -> Result<Ids, FlakeError>,
  mut write: impl FnMut(usize, &Ids),
) -> (usize, Option<Met>, Option<FlakeError>) {
  let (mut issued, mut met) = (0, None);
  while issued < max {
    let ids = match take((max - issued).min(per_unit as usize) as u32) {
      Ok(ids) => ids,
      Err(err) => return (issued, met, Some(err)),
    };
    write(issued, &ids);
    issued += ids.count as usize;
    met = met.or(ids.met);
  }
  (issued, met, None)
}

/// The longest wait, in ms past a reading, that a synchronous call spends spinning for a 1 ms
/// time unit: the end of the reading's millisecond. A longer one says the state is ahead of the
/// clock (another process borrowed with `allowedFutureMs`, or the clock stepped back), and the
/// event loop must not block for it: the call fails as `next()` does. A coarser unit spins to
/// the end of the reading's unit.
pub const MAX_SPIN_MS: u64 = 1;

/// The waiter for batches on the system clock: waits out an overflow that ends with the
/// reading's time unit (`unit_ms`, at least `MAX_SPIN_MS`); gives up on anything longer, on a
/// clock that does not get there (`clock::wait_for`), and on anything else.
pub fn system_clock_waiter<E: From<FlakeError>>(
  unit_ms: u64,
) -> impl FnMut(&FlakeError, u64) -> Result<Waited, E> {
  let max_spin_ms = MAX_SPIN_MS.max(unit_ms);
  move |err, now| match (err, err.wait_ms()) {
    // Another thread took later ids between our reading and our turn: read again.
    (FlakeError::ClockBackwards { .. }, Some(_)) if clock::system_now_ms() > now => Ok(Waited::No),
    (FlakeError::SequenceOverflow { wait_ms }, _) if *wait_ms <= max_spin_ms => {
      clock::wait_for(&mut SystemClock::new(), now, now + wait_ms, STALL_GRACE_MS)?;
      Ok(Waited::Yes)
    }
    _ => Err(err.clone().into()),
  }
}

/// Real milliseconds a batch on a clock of the user's waits for that clock to move, before it
/// gives up: a clock that stands still cannot be waited for.
pub const CUSTOM_CLOCK_GRACE_MS: u64 = 2;

/// The waiter for batches on a clock of the user's (`read_clock`): waits out an overflow by
/// reading that clock again, spinning, and gives up only when its reading has not changed for
/// over `CUSTOM_CLOCK_GRACE_MS` of real time (by `real_now_ms`): a clock that moves, however
/// slowly and however long this thread is descheduled, is waited for. Gives up on anything
/// else, since such a clock may never come back.
pub fn custom_clock_waiter<E: From<FlakeError>>(
  mut read_clock: impl FnMut() -> Result<u64, E>,
  mut real_now_ms: impl FnMut() -> u64,
) -> impl FnMut(&FlakeError, u64) -> Result<Waited, E> {
  move |err, now| match err {
    FlakeError::SequenceOverflow { wait_ms } => {
      let (mut seen, mut still_since) = (now, real_now_ms());
      loop {
        // Real time first: a pause between the two readings then shows as a clock that moved,
        // never as one that stood still.
        let real = real_now_ms();
        let reading = read_clock()?;
        if reading >= now + wait_ms {
          return Ok(Waited::Yes);
        }
        if reading != seen {
          (seen, still_since) = (reading, real);
        } else if real > still_since + CUSTOM_CLOCK_GRACE_MS {
          return Err(err.clone().into());
        }
        std::hint::spin_loop();
      }
    }
    _ => Err(err.clone().into()),
  }
}

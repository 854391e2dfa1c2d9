//! Many ids at once: one Buffer of `count * 8` bytes, filled a millisecond at a time (one
//! compare-and-swap per run of up to 4,096 ids), waiting for the clock where the caller says.

use crate::clock;
use crate::error::FlakeError;
use crate::generator::Generator;
use crate::input::Input;
use crate::layout::MAX_SEQUENCE;
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
    Input::Number(n) if n.fract() == 0.0 && (1.0..=f64::from(MAX_COUNT)).contains(n) => {
      Ok(*n as u32)
    }
    Input::Number(_) => Err(FlakeError::ArgumentRange {
      argument: "count",
      expected: expected(),
      got: got.clone(),
    }),
    _ => Err(FlakeError::ArgumentType {
      argument: "count",
      expected: expected(),
      got: got.clone(),
    }),
  }
}

/// Fills `out` (a multiple of 8 bytes) with ascending ids, big-endian. A refusal goes to
/// `wait` with the clock reading it was refused for; `wait` gives up by returning an error.
/// Adds to `counts` the overflows, step backs and waits met on the way.
pub fn fill<E: From<FlakeError>>(
  generator: &Generator,
  out: &mut [u8],
  mut read_clock: impl FnMut() -> Result<u64, E>,
  mut wait: impl FnMut(&FlakeError, u64) -> Result<Waited, E>,
  counts: &mut Counts,
) -> Result<(), E> {
  let mut filled = 0;
  while filled < out.len() {
    let now = read_clock()?;
    let max = ((out.len() - filled) / 8).min(usize::from(MAX_SEQUENCE) + 1) as u16;
    match generator.take(now, max) {
      Ok(ids) => {
        counts.met(ids.met);
        ids.write_be(&mut out[filled..]);
        filled += usize::from(ids.count) * 8;
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

/// The waiter for batches on the system clock: waits out an overflow, and with
/// `through_step_back` a clock step back (or a time before the epoch) too; gives up otherwise.
pub fn system_clock_waiter<E: From<FlakeError>>(
  through_step_back: bool,
) -> impl FnMut(&FlakeError, u64) -> Result<Waited, E> {
  move |err, now| match (err, err.wait_ms()) {
    // Another thread took later ids between our reading and our turn: read again.
    (FlakeError::ClockBackwards { .. }, Some(_)) if clock::system_now_ms() > now => Ok(Waited::No),
    (FlakeError::SequenceOverflow { wait_ms }, _) => {
      clock::wait_until(now + wait_ms);
      Ok(Waited::Yes)
    }
    (_, Some(wait_ms)) if through_step_back => {
      clock::wait_until(now + wait_ms);
      Ok(Waited::Yes)
    }
    _ => Err(err.clone().into()),
  }
}

/// Real milliseconds a batch on a clock of the user's waits for that clock past the wait an
/// overflow asks for, before it gives up: a clock that stands still cannot be waited for.
pub const CUSTOM_CLOCK_GRACE_MS: u64 = 2;

/// The waiter for batches on a clock of the user's (`read_clock`): waits out an overflow by
/// reading that clock again, spinning, for at most `CUSTOM_CLOCK_GRACE_MS` of real time (by
/// `real_now_ms`) past the wait; gives up on anything else, since such a clock may never move.
pub fn custom_clock_waiter<E: From<FlakeError>>(
  mut read_clock: impl FnMut() -> Result<u64, E>,
  mut real_now_ms: impl FnMut() -> u64,
) -> impl FnMut(&FlakeError, u64) -> Result<Waited, E> {
  move |err, now| match err {
    FlakeError::SequenceOverflow { wait_ms } => {
      let give_up = real_now_ms() + wait_ms + CUSTOM_CLOCK_GRACE_MS;
      while read_clock()? < now + wait_ms {
        if real_now_ms() > give_up {
          return Err(err.clone().into());
        }
        std::hint::spin_loop();
      }
      Ok(Waited::Yes)
    }
    _ => Err(err.clone().into()),
  }
}

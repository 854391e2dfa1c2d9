//! Batches on a fake clock: runs of a millisecond, waits between them, and the counters.

use std::cell::Cell;

use super::{decode, private, NOW};
use crate::batch::{
  count, custom_clock_waiter, issue_all, system_clock_waiter, Waited, CUSTOM_CLOCK_GRACE_MS,
  MAX_COUNT,
};
use crate::clock::MAX_SPIN_MS;
use crate::error::{ErrorKind, FlakeError};
use crate::generator::Generator;
use crate::input::Input;
use crate::options::RawOptions;
use crate::stats::Counts;

/// `issue_all` into `out`, as the batch functions do into a Buffer.
fn issue_into<E: From<FlakeError>>(
  generator: &Generator,
  out: &mut [u8],
  read_clock: impl FnMut() -> Result<u64, E>,
  wait: impl FnMut(&FlakeError, u64) -> Result<Waited, E>,
  counts: &mut Counts,
) -> Result<(), E> {
  let total = out.len() / 8;
  issue_all(generator, total, read_clock, wait, counts, |index, ids| {
    ids.write_be(&mut out[index * 8..]);
    Ok(())
  })
}

/// The ids in a batch written by `issue_into`.
fn ids(out: &[u8]) -> Vec<u64> {
  out
    .chunks_exact(8)
    .map(|slot| u64::from_be_bytes(slot.try_into().unwrap()))
    .collect()
}

#[test]
fn issues_each_millisecond_then_waits_for_the_next() {
  let generator = private(RawOptions::default());
  let now = Cell::new(NOW);
  let mut waits = Vec::new();
  let mut out = vec![0; 10_000 * 8];
  let mut counts = Counts::default();
  let issued = issue_into(
    &generator,
    &mut out,
    || Ok::<_, FlakeError>(now.get()),
    |err, reading| {
      waits.push((err.clone(), reading));
      now.set(reading + err.wait_ms().unwrap());
      Ok(Waited::Yes)
    },
    &mut counts,
  );
  assert_eq!(issued, Ok(()));
  let overflow = FlakeError::SequenceOverflow { wait_ms: 1 };
  assert_eq!(waits, [(overflow.clone(), NOW), (overflow, NOW + 1)]);
  let decoded: Vec<_> = ids(&out).into_iter().map(decode).collect();
  assert_eq!(decoded[0], (NOW, 0, 0));
  assert_eq!(decoded[4095], (NOW, 0, 4095));
  assert_eq!(decoded[4096], (NOW + 1, 0, 0));
  assert_eq!(decoded[9999], (NOW + 2, 0, 10_000 - 2 * 4096 - 1));
  assert_eq!(
    counts,
    Counts {
      overflows: 2,
      clock_backwards: 0,
      waits: 2
    }
  );
}

#[test]
fn a_waiter_that_gives_up_ends_the_batch_with_its_error() {
  let generator = private(RawOptions::default());
  generator.take(NOW + 5, 1).unwrap();
  let mut out = vec![0; 16];
  let mut counts = Counts::default();
  let refused = issue_into(
    &generator,
    &mut out,
    || Ok(NOW),
    |err, _| Err(err.clone()),
    &mut counts,
  );
  assert_eq!(
    refused,
    Err(FlakeError::ClockBackwards { ms: 5, wait_ms: 5 })
  );
  assert_eq!(counts.clock_backwards, 1);
}

#[test]
fn a_stale_reading_is_retried_without_counting() {
  let generator = private(RawOptions::default());
  generator.take(NOW + 5, 1).unwrap();
  let readings = Cell::new(NOW);
  let mut out = vec![0; 8];
  let mut counts = Counts::default();
  let issued = issue_into(
    &generator,
    &mut out,
    || Ok::<_, FlakeError>(readings.replace(NOW + 5)),
    |_, _| Ok(Waited::No),
    &mut counts,
  );
  assert_eq!(issued, Ok(()));
  assert_eq!(decode(ids(&out)[0]), (NOW + 5, 0, 1));
  assert_eq!(counts, Counts::default());
}

#[test]
fn a_clock_error_ends_the_batch() {
  let generator = private(RawOptions::default());
  let mut out = vec![0; 8];
  let broken = FlakeError::ClockRange {
    got: Input::Number(-1.0),
  };
  let failed = issue_into(
    &generator,
    &mut out,
    || Err(broken.clone()),
    |_, _| unreachable!(),
    &mut Counts::default(),
  );
  assert_eq!(failed, Err(broken));
}

#[test]
fn count_is_an_integer_from_1_to_max() {
  assert_eq!(count(&Input::Number(1.0)), Ok(1));
  assert_eq!(count(&Input::Number(f64::from(MAX_COUNT))), Ok(MAX_COUNT));
  for bad in [
    0.0,
    -1.0,
    0.5,
    f64::NAN,
    f64::INFINITY,
    f64::from(MAX_COUNT) + 1.0,
  ] {
    let err = count(&Input::Number(bad)).unwrap_err();
    assert_eq!(
      (err.kind(), err.code()),
      (ErrorKind::RangeError, "ERR_OUT_OF_RANGE")
    );
  }
  let err = count(&Input::String("5".into())).unwrap_err();
  assert_eq!(
    (err.kind(), err.code()),
    (ErrorKind::TypeError, "ERR_INVALID_ARG_TYPE")
  );
  assert_eq!(
    err.to_string(),
    "The \"count\" argument must be an integer from 1 to 16777216, got \"5\""
  );
}

#[test]
fn the_system_clock_waiter_waits_for_what_it_may() {
  // Readings long past, so no wait takes any time.
  let past = 1_000;
  let overflow = FlakeError::SequenceOverflow { wait_ms: 1 };
  let behind = FlakeError::ClockBackwards { ms: 5, wait_ms: 5 };
  let before_epoch = FlakeError::ClockBeforeEpoch {
    now: past,
    epoch: past + 5,
  };
  let broken = FlakeError::ClockRange {
    got: Input::Number(-1.0),
  };
  let mut wait = system_clock_waiter::<FlakeError>(1);
  assert_eq!(wait(&overflow, past), Ok(Waited::Yes));
  // Behind a reading the system clock has long passed: stale, read again.
  assert_eq!(wait(&behind, past), Ok(Waited::No));
  assert_eq!(wait(&broken, past), Err(broken.clone()));
  assert_eq!(wait(&before_epoch, past), Err(before_epoch.clone()));
}

#[test]
fn the_system_clock_waiter_never_spins_past_a_millisecond() {
  // A state another process borrowed ahead: the wait would be long, so it is not waited for,
  // even for a reading long past (which would cost no time at all).
  let mut wait = system_clock_waiter::<FlakeError>(1);
  for wait_ms in [MAX_SPIN_MS + 1, 1_000] {
    let ahead = FlakeError::SequenceOverflow { wait_ms };
    assert_eq!(wait(&ahead, 1_000), Err(ahead.clone()));
  }
  let now = crate::clock::system_now_ms();
  let behind = FlakeError::ClockBackwards {
    ms: 900,
    wait_ms: 900,
  };
  assert_eq!(wait(&behind, now + 10_000), Err(behind.clone()));
}

#[test]
fn a_custom_clock_is_read_again_until_it_passes_an_overflow() {
  let (clock, real) = (Cell::new(NOW), Cell::new(0u64));
  let mut wait = custom_clock_waiter(
    || {
      // The user's clock moves a millisecond every third reading.
      clock.set(clock.get() + u64::from(real.get() % 3 == 2));
      real.set(real.get() + 1);
      Ok::<_, FlakeError>(clock.get())
    },
    || 0,
  );
  let overflow = FlakeError::SequenceOverflow { wait_ms: 1 };
  assert_eq!(wait(&overflow, NOW), Ok(Waited::Yes));
  assert_eq!(clock.get(), NOW + 1);
}

#[test]
fn a_custom_clock_that_stands_still_is_given_up_on_after_the_grace() {
  let real = Cell::new(0u64);
  let mut wait = custom_clock_waiter(
    || Ok::<_, FlakeError>(NOW),
    || {
      real.set(real.get() + 1);
      real.get()
    },
  );
  let overflow = FlakeError::SequenceOverflow { wait_ms: 1 };
  assert_eq!(wait(&overflow, NOW), Err(overflow));
  // Given up once the clock had stood still for more than the grace, not before.
  assert_eq!(real.get(), 1 + CUSTOM_CLOCK_GRACE_MS + 1);
}

#[test]
fn a_custom_clock_that_moves_is_waited_for_however_long_the_thread_is_descheduled() {
  // Each reading comes 10 ms of real time after the one before (a thread descheduled by busy
  // neighbours), and the user's clock moves a millisecond in that time: never given up on.
  let (clock, real) = (Cell::new(NOW), Cell::new(0u64));
  let mut wait = custom_clock_waiter(
    || {
      clock.set(clock.get() + 1);
      Ok::<_, FlakeError>(clock.get())
    },
    || {
      real.set(real.get() + 10);
      real.get()
    },
  );
  let overflow = FlakeError::SequenceOverflow { wait_ms: 20 };
  assert_eq!(wait(&overflow, NOW), Ok(Waited::Yes));
  assert_eq!(clock.get(), NOW + 20);
}

#[test]
fn a_custom_clock_never_waits_out_a_step_back() {
  let reads = Cell::new(0);
  let mut wait = custom_clock_waiter(
    || {
      reads.set(reads.get() + 1);
      Ok::<_, FlakeError>(NOW)
    },
    || 0,
  );
  let back = FlakeError::ClockBackwards { ms: 5, wait_ms: 5 };
  assert_eq!(wait(&back, NOW), Err(back));
  assert_eq!(reads.get(), 0);
}

#[test]
fn what_the_custom_clock_throws_ends_the_wait() {
  let mut wait = custom_clock_waiter(
    || {
      Err::<u64, _>(FlakeError::ClockRange {
        got: Input::Number(-1.0),
      })
    },
    || 0,
  );
  let overflow = FlakeError::SequenceOverflow { wait_ms: 1 };
  assert_eq!(
    wait(&overflow, NOW),
    Err(FlakeError::ClockRange {
      got: Input::Number(-1.0)
    })
  );
}

#[test]
fn a_slice_takes_what_the_clock_allows_now_and_reports_a_wait_only_when_none() {
  use crate::batch::issue_available;
  let generator = private(RawOptions {
    seq_mask: Input::Number(3.0),
    ..RawOptions::default()
  });
  let mut out = vec![0u8; 10 * 8];
  let taken = issue_available(
    10,
    4096,
    |max| generator.take(NOW, max),
    |index, ids| ids.write_be(&mut out[index * 8..]),
  );
  let overflow = FlakeError::SequenceOverflow { wait_ms: 1 };
  assert_eq!(taken, (4, None, Some(overflow.clone())));
  assert_eq!(decode(ids(&out)[3]), (NOW, 0, 3));
  assert_eq!(
    issue_available(10, 4096, |max| generator.take(NOW, max), |_, _| {}),
    (0, None, Some(overflow))
  );
  assert_eq!(
    issue_available(2, 4096, |max| generator.take(NOW + 1, max), |_, _| {}),
    (2, None, None)
  );
}

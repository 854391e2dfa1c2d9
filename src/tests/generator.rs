//! The state machine's rules, one by one, on a fake clock.

use std::collections::HashSet;
use std::thread;

use super::MAX_DELTA;
use super::{config, decode, private, NOW};
use crate::error::FlakeError;
use crate::generator::Generator;
use crate::input::Input;
use crate::options::RawOptions;

#[test]
fn sequence_runs_to_4096_then_overflows() {
  let generator = private(RawOptions::default());
  for sequence in 0..4096 {
    assert_eq!(decode(generator.next_id(NOW).unwrap()), (NOW, 0, sequence));
  }
  assert_eq!(
    generator.next_id(NOW),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
  assert_eq!(
    generator.next_id(NOW),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
}

#[test]
fn overflow_keeps_state_and_clears_next_millisecond() {
  let generator = private(RawOptions::default());
  for _ in 0..4096 {
    generator.next_id(NOW).unwrap();
  }
  assert_eq!(
    generator.next_id(NOW),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
  assert_eq!(decode(generator.next_id(NOW + 1).unwrap()), (NOW + 1, 0, 0));
  assert_eq!(decode(generator.next_id(NOW + 1).unwrap()), (NOW + 1, 0, 1));
}

#[test]
fn seq_mask_limits_ids_per_millisecond() {
  let generator = private(RawOptions {
    seq_mask: Input::Number(3.0),
    ..RawOptions::default()
  });
  for sequence in 0..4 {
    assert_eq!(decode(generator.next_id(NOW).unwrap()).2, sequence);
  }
  assert_eq!(
    generator.next_id(NOW),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
}

#[test]
fn clock_step_back_refuses_without_changing_state() {
  let generator = private(RawOptions::default());
  generator.next_id(NOW).unwrap();
  generator.next_id(NOW).unwrap();
  let refused = generator.next_id(NOW - 5);
  assert_eq!(
    refused,
    Err(FlakeError::ClockBackwards { ms: 5, wait_ms: 5 })
  );
  assert_eq!(
    refused.unwrap_err().to_string(),
    "Clock moved backwards. Refusing to generate id for 5 milliseconds"
  );
  // The same millisecond continues where it left off: nothing was consumed or reset.
  assert_eq!(decode(generator.next_id(NOW).unwrap()), (NOW, 0, 2));
}

#[test]
fn clock_before_epoch_is_refused_and_waitable() {
  let generator = private(RawOptions {
    epoch: Input::Number(1000.0),
    ..RawOptions::default()
  });
  let refused = generator.next_id(990).unwrap_err();
  assert_eq!(
    refused,
    FlakeError::ClockBeforeEpoch {
      now: 990,
      epoch: 1000
    }
  );
  assert_eq!(refused.wait_ms(), Some(10));
  assert_eq!(decode(generator.next_id(1000).unwrap()), (0, 0, 0));
}

#[test]
fn timestamp_past_42_bits_is_an_error_not_a_wrap() {
  let generator = private(RawOptions::default());
  assert_eq!(
    decode(generator.next_id(MAX_DELTA).unwrap()),
    (MAX_DELTA, 0, 0)
  );
  let refused = generator.next_id(MAX_DELTA + 1).unwrap_err();
  assert_eq!(
    refused,
    FlakeError::TimestampOverflow {
      bits: 42,
      unit_ms: 1,
      delta: MAX_DELTA + 1
    }
  );
  assert_eq!(refused.wait_ms(), None);
}

#[test]
fn epoch_moves_the_42_bit_window() {
  let generator = private(RawOptions {
    epoch: Input::Number(1000.0),
    ..RawOptions::default()
  });
  assert_eq!(
    decode(generator.next_id(MAX_DELTA + 1000).unwrap()).0,
    MAX_DELTA
  );
  assert!(generator.next_id(MAX_DELTA + 1001).is_err());
}

#[test]
fn waits_are_reported_for_curable_errors_only() {
  assert_eq!(
    FlakeError::SequenceOverflow { wait_ms: 1 }.wait_ms(),
    Some(1)
  );
  assert_eq!(
    FlakeError::ClockBackwards { ms: 7, wait_ms: 4 }.wait_ms(),
    Some(4)
  );
  assert_eq!(
    FlakeError::ClockRange {
      got: Input::Number(f64::NAN)
    }
    .wait_ms(),
    None
  );
}

#[test]
fn same_id_and_epoch_share_one_state_across_threads() {
  // The system-clock registry, on a generator id no other test uses.
  let raw = || RawOptions {
    id: Input::Number(977.0),
    epoch: Input::Number(12345.0),
    ..RawOptions::default()
  };
  let threads: Vec<_> = (0..4)
    .map(|_| {
      let generator = Generator::new(&config(raw())).unwrap();
      thread::spawn(move || {
        let mut ids = Vec::new();
        // Every thread reads the same fake millisecond sequence: only shared state keeps
        // their ids apart.
        for now in NOW..NOW + 50 {
          while let Ok(id) = generator.next_id(now) {
            ids.push(id);
          }
        }
        ids
      })
    })
    .collect();
  let ids: Vec<u64> = threads
    .into_iter()
    .flat_map(|t| t.join().unwrap())
    .collect();
  let unique: HashSet<u64> = ids.iter().copied().collect();
  assert_eq!(unique.len(), ids.len());
  assert_eq!(ids.len(), 50 * 4096);
}

#[test]
fn every_epoch_of_an_id_shares_its_state_and_a_custom_clock_keeps_its_own() {
  let raw = |epoch: f64| RawOptions {
    id: Input::Number(976.0),
    epoch: Input::Number(epoch),
    ..RawOptions::default()
  };
  let a = Generator::new(&config(raw(1.0))).unwrap();
  let b = Generator::new(&config(raw(2.0))).unwrap();
  let c = super::private(raw(1.0));
  assert_eq!(decode(a.next_id(NOW).unwrap()), (NOW - 1, 976, 0));
  assert_eq!(decode(b.next_id(NOW).unwrap()), (NOW - 2, 976, 1));
  assert_eq!(decode(c.next_id(NOW).unwrap()), (NOW - 1, 976, 0));
  let again = Generator::new(&config(raw(1.0))).unwrap();
  assert_eq!(decode(again.next_id(NOW).unwrap()), (NOW - 1, 976, 2));
}

/// Two generators on one shared state, as two threads with the system clock would have.
fn shared_pair(id: f64) -> (Generator<'static>, Generator<'static>) {
  let raw = || RawOptions {
    id: Input::Number(id),
    ..RawOptions::default()
  };
  (
    Generator::new(&config(raw())).unwrap(),
    Generator::new(&config(raw())).unwrap(),
  )
}

/// A clock that returns `readings` in turn.
fn readings(readings: &[u64]) -> impl FnMut() -> Result<u64, FlakeError> + '_ {
  let mut next = readings.iter();
  move || Ok(*next.next().expect("clock read more often than scripted"))
}

#[test]
fn a_stale_reading_behind_another_thread_is_retried_with_a_fresh_one() {
  let (descheduled, other) = shared_pair(975.0);
  other.next_id(NOW + 5).unwrap();
  // Read NOW, lost the CPU while `other` issued at NOW + 5, reads again: NOW + 5.
  let id = descheduled
    .take_by(readings(&[NOW, NOW + 5]), 1)
    .map(|ids| ids.first)
    .unwrap();
  assert_eq!(decode(id), (NOW + 5, 975, 1));
}

#[test]
fn a_real_step_back_is_reported_after_one_fresh_reading() {
  let (generator, _) = shared_pair(974.0);
  generator.next_id(NOW + 5).unwrap();
  let refused = generator
    .take_by(readings(&[NOW, NOW]), 1)
    .map(|ids| ids.first);
  assert_eq!(
    refused,
    Err(FlakeError::ClockBackwards { ms: 5, wait_ms: 5 })
  );
}

#[test]
fn overflow_on_a_stale_reading_is_retried_too() {
  let (generator, _) = shared_pair(973.0);
  for _ in 0..4096 {
    generator.next_id(NOW).unwrap();
  }
  assert_eq!(
    generator
      .take_by(readings(&[NOW, NOW]), 1)
      .map(|ids| ids.first),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
  let id = generator
    .take_by(readings(&[NOW, NOW + 1]), 1)
    .map(|ids| ids.first)
    .unwrap();
  assert_eq!(decode(id), (NOW + 1, 973, 0));
}

#[test]
fn allowed_future_ms_borrows_later_milliseconds_on_overflow() {
  let generator = private(RawOptions {
    seq_mask: Input::Number(1.0),
    allowed_future_ms: Input::Number(2.0),
    ..RawOptions::default()
  });
  let times: Vec<_> = (0..6)
    .map(|_| decode(generator.next_id(NOW).unwrap()))
    .map(|(delta, _, sequence)| (delta - NOW, sequence))
    .collect();
  assert_eq!(times, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]);
  // Three ms ahead would be past the allowance: wait until the clock reads NOW + 1.
  assert_eq!(
    generator.next_id(NOW),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
  assert_eq!(decode(generator.next_id(NOW + 1).unwrap()), (NOW + 3, 0, 0));
}

#[test]
fn borrowed_time_is_not_a_clock_step_back() {
  let generator = private(RawOptions {
    seq_mask: Input::Number(1.0),
    allowed_future_ms: Input::Number(1.0),
    ..RawOptions::default()
  });
  for _ in 0..4 {
    generator.next_id(NOW).unwrap();
  }
  // The clock did not go back: the state is ahead of it by our own borrowing.
  assert_eq!(
    generator.next_id(NOW),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
  // Now it did go back, behind the latest reading.
  assert_eq!(
    generator.next_id(NOW - 2),
    Err(FlakeError::ClockBackwards { ms: 3, wait_ms: 3 })
  );
}

#[test]
fn a_generator_without_allowance_sharing_a_borrowed_state_waits_for_it() {
  let raw = |allowed: f64| RawOptions {
    id: Input::Number(972.0),
    allowed_future_ms: Input::Number(allowed),
    ..RawOptions::default()
  };
  let borrower = Generator::new(&config(raw(5.0))).unwrap();
  let strict = Generator::new(&config(raw(0.0))).unwrap();
  // Through NOW and NOW + 1, and all but the last id of NOW + 2.
  for _ in 0..3 * 4096 - 1 {
    borrower.next_id(NOW).unwrap();
  }
  assert_eq!(
    strict.next_id(NOW),
    Err(FlakeError::SequenceOverflow { wait_ms: 2 })
  );
  assert_eq!(
    decode(strict.next_id(NOW + 2).unwrap()),
    (NOW + 2, 972, 4095)
  );
}

#[test]
fn a_private_state_never_issues_past_its_ceiling_not_even_borrowing() {
  use crate::generator::Settings;
  use crate::sequencer::Sequencer;
  let settings = Settings {
    node: 5,
    epoch: 1000,
    seq_mask: 1,
    allowed_future_ms: 10,
    shape: crate::kinds::layout::Shape::FLAKE_IDGEN,
  };
  let state = Sequencer::new();
  let fenced = Generator::private(&settings, &state, NOW + 1);
  // Two ids a millisecond: NOW and NOW + 1 are all there is, however far it may borrow.
  let ids: Vec<_> = (0..4)
    .map(|_| decode(fenced.next_id(NOW).unwrap()))
    .collect();
  assert_eq!(ids[3], (NOW + 1 - 1000, 5, 1));
  let expired = FlakeError::LeaseExpired { ceiling: NOW + 1 };
  assert_eq!(fenced.next_id(NOW), Err(expired.clone()));
  assert_eq!(fenced.next_id(NOW + 2), Err(expired));
  assert_eq!(expired_code(), "ERR_FLAKE_LEASE_EXPIRED");
  // A raised ceiling lets the same state go on, above what it issued.
  let raised = Generator::private(&settings, &state, NOW + 5);
  assert_eq!(
    decode(raised.next_id(NOW + 2).unwrap()),
    (NOW + 2 - 1000, 5, 0)
  );
  // A ceiling before the epoch allows nothing at all.
  let fresh = Sequencer::new();
  let before = Generator::private(&settings, &fresh, 999);
  assert_eq!(
    before.next_id(NOW),
    Err(FlakeError::LeaseExpired { ceiling: 999 })
  );
}

fn expired_code() -> &'static str {
  FlakeError::LeaseExpired { ceiling: 0 }.code()
}

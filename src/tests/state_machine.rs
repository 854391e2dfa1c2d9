//! The generator against a model of the rules, under random clocks: advances, steps back,
//! bursts past the sequence limit, jumps to the edges of the epoch and of 42 bits.
//!
//! The seed is printed; `PROPTEST_RNG_SEED=<seed> cargo test state_machine` replays a run.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};

use super::{decode, private};
use crate::error::FlakeError;
use crate::input::Input;
use crate::layout::MAX_DELTA;
use crate::options::RawOptions;

/// The rules, written as plainly as possible.
struct Model {
  epoch: u64,
  seq_mask: u16,
  last: Option<(u64, u16)>,
}

impl Model {
  fn next(&mut self, now: u64) -> Result<(u64, u16), FlakeError> {
    if now < self.epoch {
      return Err(FlakeError::ClockBeforeEpoch {
        now,
        epoch: self.epoch,
      });
    }
    let delta = now - self.epoch;
    if delta > MAX_DELTA {
      return Err(FlakeError::TimestampOverflow { delta });
    }
    let issued = match self.last {
      Some((last, _)) if delta < last => {
        return Err(FlakeError::ClockBackwards { ms: last - delta })
      }
      Some((last, sequence)) if delta == last => {
        if sequence == self.seq_mask {
          return Err(FlakeError::SequenceOverflow);
        }
        (delta, sequence + 1)
      }
      _ => (delta, 0),
    };
    self.last = Some(issued);
    Ok(issued)
  }
}

#[derive(Debug, Clone)]
enum Step {
  Advance(u64),
  Back(u64),
  Burst(u16),
  Jump(u64),
}

fn step(epoch: u64) -> impl Strategy<Value = Step> {
  prop_oneof![
    4 => (1u64..=3).prop_map(Step::Advance),
    2 => (1u64..=20).prop_map(Step::Back),
    6 => (1u16..=300).prop_map(Step::Burst),
    1 => prop_oneof![
      (epoch.saturating_sub(5)..=epoch + 5),
      (epoch + MAX_DELTA - 5..=epoch + MAX_DELTA + 5),
    ]
    .prop_map(Step::Jump),
  ]
}

fn scenario() -> impl Strategy<Value = (u64, u16, u16, Vec<Step>)> {
  (0u64..=2_000_000_000_000, 0u16..=1023, 1u32..=12).prop_flat_map(|(epoch, node, bits)| {
    let steps = prop::collection::vec(step(epoch), 1..80);
    (
      Just(epoch),
      Just(node),
      Just(((1u32 << bits) - 1) as u16),
      steps,
    )
  })
}

#[test]
fn generator_follows_the_model() {
  let seed = std::env::var("PROPTEST_RNG_SEED")
    .ok()
    .and_then(|s| s.parse().ok())
    .unwrap_or_else(|| {
      SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
    });
  // Straight to stderr: the test harness would capture `println!` and show it only on failure.
  let _ = writeln!(
    std::io::stderr(),
    "state machine proptest seed: {seed} (replay: PROPTEST_RNG_SEED={seed})"
  );
  let config = Config {
    cases: 256,
    rng_seed: RngSeed::Fixed(seed),
    failure_persistence: None,
    ..Config::default()
  };
  TestRunner::new(config)
    .run(&scenario(), |(epoch, node, seq_mask, steps)| {
      let generator = private(RawOptions {
        id: Input::Number(f64::from(node)),
        epoch: Input::Number(epoch as f64),
        seq_mask: Input::Number(f64::from(seq_mask)),
        ..RawOptions::default()
      });
      let mut model = Model {
        epoch,
        seq_mask,
        last: None,
      };
      let mut now = epoch;
      let mut previous = None;
      for step in steps {
        let calls = match step {
          Step::Advance(ms) => {
            now += ms;
            1
          }
          Step::Back(ms) => {
            now = now.saturating_sub(ms);
            1
          }
          Step::Burst(calls) => calls,
          Step::Jump(to) => {
            now = to;
            1
          }
        };
        for _ in 0..calls {
          let expected = model.next(now);
          let actual = generator.next_id(now);
          match (expected, actual) {
            (Ok((delta, sequence)), Ok(id)) => {
              prop_assert_eq!(decode(id), (delta, node, sequence));
              // Increasing implies unique.
              prop_assert!(previous < Some(id), "{:?} then {}", previous, id);
              previous = Some(id);
            }
            (expected, actual) => prop_assert_eq!(expected.map(|_| ()), actual.map(|_| ())),
          }
        }
      }
      Ok(())
    })
    .unwrap();
}

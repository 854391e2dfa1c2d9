//! The generator against a model of the rules, under random layouts (time bits and unit, node
//! and sequence bits, either order) and random clocks: advances, steps back, bursts past the
//! sequence limit, runs of many ids at once (batches), jumps to the edges of the epoch and of
//! the time bits, with and without `allowedFutureMs`.
//!
//! Run twice: on a private state, and on a word of a memory-mapped state file (host scope).
//!
//! The seed is printed; `PROPTEST_RNG_SEED=<seed> cargo test state_machine` replays a run.

use proptest::prelude::*;

use super::FakeTime;
use super::{config, private, temp_dir};
use crate::error::FlakeError;
use crate::generator::{Generator, Settings};
use crate::host::HostFile;
use crate::input::Input;
use crate::kinds::layout::{Layout, Order, Preset, Shape};
use crate::options::layout::RawLayout;
use crate::options::RawOptions;
use crate::sequencer::Met;

/// The rules, written as plainly as possible.
struct Model {
  shape: Shape,
  epoch: u64,
  seq_mask: u16,
  /// `allowedFutureMs`, in whole units.
  allowed: u64,
  /// (delta, sequence) of the last id issued.
  last: Option<(u64, u16)>,
  /// The latest clock reading (as a delta) that issued ids.
  high: u64,
}

impl Model {
  /// (delta, first sequence, count, met) of up to `max` ids for a reading of `now_ms`.
  fn take(&mut self, now_ms: u64, max: u32) -> Result<(u64, u16, u32, Option<Met>), FlakeError> {
    if now_ms < self.epoch {
      return Err(FlakeError::ClockBeforeEpoch {
        now: now_ms,
        epoch: self.epoch,
      });
    }
    // Units counted from 1970, as sonyflake counts them.
    let unit = self.shape.unit();
    let now = now_ms / unit - self.epoch / unit;
    let overflow = |delta| FlakeError::TimestampOverflow {
      delta,
      bits: self.shape.time_bits,
      unit_ms: self.shape.unit_ms,
    };
    if now > self.shape.max_time() {
      return Err(overflow(now));
    }
    // A private state word holds units since the epoch for 139 years or more, whatever the
    // time bits hold.
    let limit = self.shape.max_time().min(self.shape.word().max_time());
    if now > limit {
      return Err(overflow(now));
    }
    let (delta, first) = match self.last {
      Some((last, sequence)) if now <= last && sequence < self.seq_mask => (last, sequence + 1),
      Some((last, _)) if now <= last => (last + 1, 0),
      _ => (now, 0),
    };
    if delta > limit {
      return Err(overflow(delta));
    }
    let behind = now < self.high;
    if delta > now + self.allowed {
      // To the start of the first unit that allows it.
      let wait_ms = (delta - self.allowed - now) * unit - now_ms % unit;
      return Err(match self.last {
        Some((last, _)) if behind => FlakeError::ClockBackwards {
          ms: (last - now) * unit,
          wait_ms,
        },
        _ => FlakeError::SequenceOverflow { wait_ms },
      });
    }
    let count = max.min(u32::from(self.seq_mask - first) + 1);
    self.last = Some((delta, first + (count - 1) as u16));
    self.high = self.high.max(now);
    let met = (delta > now).then_some(if behind {
      Met::ClockBehind
    } else {
      Met::Overflow
    });
    Ok((delta, first, count, met))
  }
}

#[derive(Debug, Clone)]
enum Step {
  /// The clock moves on this many units, then this many ms more.
  Advance(u64, u64),
  Back(u64),
  Burst(u16),
  /// One call taking up to this many ids, as a batch does.
  Take(u32),
  Jump(u64),
}

fn step(layout: Layout) -> impl Strategy<Value = Step> {
  let (epoch, last) = (layout.epoch, layout.end_ms());
  // The end of the time bits, where a reading fits (a time that does not fit in 2^64 ms is
  // no reading).
  let end = last.min(u64::MAX - 6);
  prop_oneof![
    4 => (0u64..=2, 0u64..=3).prop_map(|(units, ms)| Step::Advance(units, ms)),
    2 => (1u64..=20).prop_map(Step::Back),
    6 => (1u16..=300).prop_map(Step::Burst),
    2 => (1u32..=70_000).prop_map(Step::Take),
    1 => prop_oneof![(epoch.saturating_sub(5)..=epoch + 5), (end - 5..=end + 5)].prop_map(Step::Jump),
  ]
}

/// A layout: a preset's, or any shape (time unit 1 ms, 10 ms, 1 s or any, 0 to 16 node bits,
/// 1 to 16 sequence bits, either order, 63 or 64 bits), at a random epoch.
fn layout() -> impl Strategy<Value = Layout> {
  let preset = prop::sample::select(Preset::ALL.to_vec()).prop_map(|preset| preset.shape());
  let unit = prop_oneof![Just(1u16), Just(10), Just(1000), 1u16..=1000];
  let order = prop_oneof![Just(Order::NodeSequence), Just(Order::SequenceNode)];
  let any = (unit, 0u8..=16, 1u8..=16, order, 63u8..=64).prop_map(
    |(unit_ms, node_bits, sequence_bits, order, total)| Shape {
      time_bits: total - node_bits - sequence_bits,
      unit_ms,
      node_bits,
      sequence_bits,
      order,
    },
  );
  (prop_oneof![preset, any], 0u64..=2_000_000_000_000).prop_map(|(shape, epoch)| Layout {
    shape,
    epoch,
    preset: None,
  })
}

type Scenario = (Layout, u16, u16, u64, Vec<Step>);

fn scenario() -> impl Strategy<Value = Scenario> {
  layout().prop_flat_map(|layout| {
    let shape = layout.shape;
    let max_allowed = shape.max_allowed_future_ms();
    let allowed = prop_oneof![Just(0u64), 1u64..=30.min(max_allowed), Just(max_allowed)];
    let seq_mask =
      (1..=u32::from(shape.sequence_bits)).prop_map(|bits| ((1u32 << bits) - 1) as u16);
    (
      Just(layout),
      0..=shape.max_node(),
      seq_mask,
      allowed,
      prop::collection::vec(step(layout), 1..80),
    )
  })
}

#[test]
fn generator_follows_the_model() {
  follows_the_model("private state", private);
}

#[test]
fn mapped_generator_follows_the_model() {
  // One file per shape for the whole run, mapped for good (as the registry maps them; its
  // directory goes at once, the mapping outlives the name); each case starts its node id's word
  // afresh, which a case replayed while shrinking needs too.
  let dir = temp_dir("model");
  let files = std::sync::Mutex::new(std::collections::HashMap::new());
  follows_the_model("mapped state", |raw| {
    let config = config(RawOptions {
      clock: Input::Function,
      ..raw
    });
    let shape = config.layout.shape;
    let file =
      *files.lock().unwrap().entry(shape).or_insert_with(|| {
        HostFile::open(&dir, shape, &mut FakeTime::before_now(), false).unwrap()
      });
    let sequencer = file.sequencer(config.id);
    sequencer.forget();
    Generator::private(&Settings::from(&config), sequencer, u64::MAX)
  });
}

fn follows_the_model(what: &str, make: impl Fn(RawOptions) -> Generator<'static>) {
  super::seeded_runner(&format!("state machine proptest ({what})"), 256)
    .run(&scenario(), |(layout, node, seq_mask, allowed, steps)| {
      let (shape, epoch) = (layout.shape, layout.epoch);
      let number = |n: u64| Input::Number(n as f64);
      let generator = make(RawOptions {
        layout: Input::Object,
        layout_fields: RawLayout {
          time_bits: number(shape.time_bits.into()),
          time_unit_ms: number(shape.unit()),
          node_bits: number(shape.node_bits.into()),
          sequence_bits: number(shape.sequence_bits.into()),
          order: Input::String(
            match shape.order {
              Order::NodeSequence => "node-sequence",
              Order::SequenceNode => "sequence-node",
            }
            .into(),
          ),
          ..RawLayout::default()
        },
        id: number(node.into()),
        epoch: number(epoch),
        seq_mask: number(seq_mask.into()),
        allowed_future_ms: number(allowed),
        ..RawOptions::default()
      });
      let mut model = Model {
        shape,
        epoch,
        seq_mask,
        allowed: allowed / shape.unit(),
        last: None,
        high: 0,
      };
      let mut now = epoch;
      let mut previous = None;
      for step in steps {
        let (calls, max) = match step {
          Step::Advance(units, ms) => {
            now += units * shape.unit() + ms;
            (1, 1)
          }
          Step::Back(ms) => {
            now = now.saturating_sub(ms);
            (1, 1)
          }
          Step::Burst(calls) => (calls, 1),
          Step::Take(max) => (1, max),
          Step::Jump(to) => {
            now = to;
            (1, 1)
          }
        };
        for _ in 0..calls {
          let expected = model.take(now, max);
          let actual = generator.take(now, max);
          match (expected, actual) {
            (Ok((delta, first, count, met)), Ok(ids)) => {
              prop_assert_eq!(shape.split(ids.first), (delta, node, first));
              prop_assert_eq!((ids.count, ids.met, ids.step), (count, met, shape.step()));
              // Increasing implies unique.
              prop_assert!(
                previous < Some(ids.first),
                "{:?} then {}",
                previous,
                ids.first
              );
              previous = Some(ids.first + u64::from(ids.count - 1) * ids.step);
            }
            (expected, actual) => prop_assert_eq!(expected.map(|_| ()), actual.map(|_| ())),
          }
        }
      }
      Ok(())
    })
    .unwrap();
}

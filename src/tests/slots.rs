//! The per-thread table of shared states, and the call fields that say the rest of a generator.

use super::{config, decode, NOW};
use crate::generator::{Generator, Settings};
use crate::input::Input;
use crate::js::seam::protocol::{decode_settings, encode_settings, SLOT_READS_FIELDS};
use crate::js::seam::slots::{Configuration, Slots, CONFIGURATIONS};
use crate::options::RawOptions;
use crate::registry::shared_state;

fn options(id: f64, epoch: f64) -> RawOptions {
  RawOptions {
    id: Input::Number(id),
    epoch: Input::Number(epoch),
    ..RawOptions::default()
  }
}

fn slot(slots: &mut Slots, raw: RawOptions) -> u32 {
  let config = config(raw);
  slots.slot_of(shared_state(&config).unwrap().0, Settings::from(&config))
}

#[test]
fn configurations_alike_share_a_slot_and_others_get_their_own() {
  let mut slots = Slots::default();
  let a = slot(&mut slots, options(900.0, 1000.0));
  let by_parts = RawOptions {
    datacenter: Input::Number(28.0),
    worker: Input::Number(4.0),
    epoch: Input::Number(1000.0),
    ..RawOptions::default()
  };
  assert_eq!(slot(&mut slots, by_parts), a);
  assert_ne!(slot(&mut slots, options(900.0, 2000.0)), a);
  assert_ne!(slot(&mut slots, options(901.0, 1000.0)), a);
  let configuration = slots.configuration(a).unwrap();
  let (state, settings) = (configuration.state, configuration.settings);
  assert_eq!(settings.epoch, 1000);
  assert_eq!(settings.node, 900);
  assert!(std::ptr::eq(
    state.sequencer,
    shared_state(&config(options(900.0, 5.0)))
      .unwrap()
      .0
      .sequencer
  ));
}

#[test]
fn past_the_configurations_a_slot_is_a_state_and_the_table_stays_bounded() {
  let mut slots = Slots::default();
  let mut made = std::collections::HashSet::new();
  for epoch in 0..(CONFIGURATIONS as u32 + 3_000) {
    for id in [960.0, 961.0] {
      made.insert(slot(&mut slots, options(id, f64::from(epoch))));
    }
  }
  // Every configuration up to the bound has a slot of its own; past it, each id one more.
  assert_eq!(made.len(), CONFIGURATIONS + 2);
  let past = slot(&mut slots, options(960.0, 1e9));
  assert_ne!(past & SLOT_READS_FIELDS, 0);
  assert!(std::ptr::eq(
    slots.state(past).unwrap().state.sequencer,
    shared_state(&config(options(960.0, 0.0)))
      .unwrap()
      .0
      .sequencer
  ));
}

#[test]
fn settings_go_through_the_scratch_unchanged_and_nothing_else_is_read_as_settings() {
  use crate::js::seam::protocol::SettingsFields;
  use crate::kinds::layout::{Preset, Shape};
  let sonyflake = Preset::Sonyflake.shape();
  let custom = Shape {
    time_bits: 32,
    unit_ms: 1000,
    node_bits: 16,
    sequence_bits: 16,
    order: crate::kinds::layout::Order::SequenceNode,
  };
  for (id, seq_mask, allowed, epoch, shape) in [
    (0, 1, 0, 0.0, Shape::FLAKE_IDGEN),
    (
      1023,
      4095,
      1000,
      9_007_199_254_740_991.0,
      Shape::FLAKE_IDGEN,
    ),
    (517, 255, 7, 1_500_000_000_000.0, Shape::FLAKE_IDGEN),
    (65535, 255, 15_000, 1_409_529_600_000.0, sonyflake),
    (65535, 65535, 15_000, 0.0, custom),
  ] {
    let settings = Settings {
      node: id,
      epoch: epoch as u64,
      seq_mask,
      allowed_future_ms: allowed,
      shape,
    };
    let (packed, packed_shape, epoch) = encode_settings(&settings);
    let fields = |packed, shape, epoch: f64| SettingsFields {
      packed,
      shape,
      epoch: epoch.to_bits(),
    };
    assert_eq!(
      decode_settings(fields(packed, packed_shape, epoch)),
      Some(settings)
    );
  }
  let (packed, shape, _) = encode_settings(&Settings {
    node: 1,
    epoch: 0,
    seq_mask: 4095,
    allowed_future_ms: 0,
    shape: Shape::FLAKE_IDGEN,
  });
  let seq_bits = |bits: u32| shape & !(0x1f << 22) | bits << 22;
  let node_bits = |bits: u32| shape & !(0x1f << 10) | bits << 10;
  for (packed, shape, epoch) in [
    (packed, seq_bits(0), 0.0),
    (packed, seq_bits(13), 0.0),
    // A node id past the shape's: 10 node bits.
    (packed | 1024, shape, 0.0),
    (packed | 1001 << 16, shape, 0.0),
    (packed, node_bits(17), 0.0),
    // A time unit of 1,001 ms.
    (packed, shape | 1000, 0.0),
    (packed, shape, -1.0),
    (packed, shape, 0.5),
    (packed, shape, f64::NAN),
    (packed, shape, 2f64.powi(60)),
  ] {
    let fields = SettingsFields {
      packed,
      shape,
      epoch: f64::to_bits(epoch),
    };
    assert_eq!(
      decode_settings(fields),
      None,
      "{packed:#x} {shape:#x} {epoch}"
    );
  }
}

#[test]
fn generators_of_one_id_share_its_state_across_epochs_in_ms_since_1970() {
  let state = shared_state(&config(options(962.0, 0.0))).unwrap().0;
  let settings = |epoch: f64| Settings::from(&config(options(962.0, epoch)));
  let (a, b) = (
    Generator::shared(&settings(0.0), state),
    Generator::shared(&settings(1000.0), state),
  );
  assert_eq!(decode(a.next_id(NOW).unwrap()), (NOW, 962, 0));
  // The same millisecond for the other epoch: the next sequence number, its own timestamp.
  assert_eq!(decode(b.next_id(NOW).unwrap()), (NOW - 1000, 962, 1));
  assert_eq!(decode(a.next_id(NOW).unwrap()), (NOW, 962, 2));
}

#[test]
fn a_configuration_is_one_cache_line() {
  // A call reads all of it: 64 generators called in turn read 64 lines, not 128.
  assert_eq!(std::mem::size_of::<Configuration>(), 64);
  assert_eq!(std::mem::align_of::<Configuration>(), 64);
}

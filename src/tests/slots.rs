//! The per-thread table of shared states, and the call fields that say the rest of a generator.

use super::{config, decode, NOW};
use crate::generator::{shared_state, Generator, Settings};
use crate::input::Input;
use crate::js::protocol::{decode_settings, encode_settings};
use crate::options::RawOptions;
use crate::slots::Slots;

fn options(id: f64, epoch: f64) -> RawOptions {
  RawOptions {
    id: Input::Number(id),
    epoch: Input::Number(epoch),
    ..RawOptions::default()
  }
}

fn slot(slots: &mut Slots, raw: RawOptions) -> u32 {
  slots.slot_of(shared_state(&config(raw)).unwrap().0)
}

#[test]
fn a_slot_is_a_generator_ids_state_whatever_the_other_options() {
  let mut slots = Slots::default();
  let a = slot(&mut slots, options(900.0, 1000.0));
  let by_parts = RawOptions {
    datacenter: Input::Number(28.0),
    worker: Input::Number(4.0),
    ..RawOptions::default()
  };
  let others = [
    options(900.0, 2000.0),
    by_parts,
    RawOptions {
      seq_mask: Input::Number(1.0),
      allowed_future_ms: Input::Number(5.0),
      ..options(900.0, 0.0)
    },
  ];
  for raw in others {
    assert_eq!(slot(&mut slots, raw), a);
  }
  assert_ne!(slot(&mut slots, options(901.0, 1000.0)), a);
}

#[test]
fn the_table_is_bounded_by_the_ids_however_many_configurations_come() {
  let mut slots = Slots::default();
  for epoch in 0..5_000 {
    for id in [960.0, 961.0] {
      slot(&mut slots, options(id, f64::from(epoch)));
    }
  }
  assert!(slots.get(2).is_none(), "two ids, two slots");
  assert!(slots.get(1).is_some());
}

#[test]
fn settings_go_through_the_scratch_unchanged_and_nothing_else_is_read_as_settings() {
  for (id, seq_mask, allowed, epoch) in [
    (0, 1, 0, 0.0),
    (1023, 4095, 1000, 9_007_199_254_740_991.0),
    (517, 255, 7, 1_500_000_000_000.0),
  ] {
    let settings = Settings {
      node: id,
      epoch: epoch as u64,
      seq_mask,
      allowed_future_ms: allowed,
    };
    let (packed, epoch) = encode_settings(&settings);
    assert_eq!(decode_settings(packed, epoch), Some(settings));
  }
  let (packed, _) = encode_settings(&Settings {
    node: 1,
    epoch: 0,
    seq_mask: 4095,
    allowed_future_ms: 0,
  });
  let seq_bits = |bits: u32| packed & !(0xf << 10) | bits << 10;
  for (packed, epoch) in [
    (seq_bits(0), 0.0),
    (seq_bits(13), 0.0),
    (packed | 1001 << 14, 0.0),
    (packed, -1.0),
    (packed, 0.5),
    (packed, f64::NAN),
    (packed, 2f64.powi(60)),
  ] {
    assert_eq!(decode_settings(packed, epoch), None, "{packed:#x} {epoch}");
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

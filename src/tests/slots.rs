//! The table of generators by slot that one id function per thread serves.

use super::{config, decode, NOW};
use crate::input::Input;
use crate::options::RawOptions;
use crate::slots::Slots;

fn options(id: f64, epoch: f64) -> RawOptions {
  RawOptions {
    id: Input::Number(id),
    epoch: Input::Number(epoch),
    ..RawOptions::default()
  }
}

#[test]
fn configurations_alike_on_the_system_clock_share_a_slot() {
  let mut slots = Slots::default();
  let a = slots.configure(&config(options(900.0, 1000.0))).unwrap();
  // The same generator, named through datacenter and worker.
  let b = slots
    .configure(&config(RawOptions {
      datacenter: Input::Number(28.0),
      worker: Input::Number(4.0),
      epoch: Input::Number(1000.0),
      ..RawOptions::default()
    }))
    .unwrap();
  assert_eq!(a, b);
  let others = [
    options(901.0, 1000.0),
    options(900.0, 1001.0),
    RawOptions {
      seq_mask: Input::Number(255.0),
      ..options(900.0, 1000.0)
    },
    RawOptions {
      allowed_future_ms: Input::Number(5.0),
      ..options(900.0, 1000.0)
    },
  ];
  let mut seen = vec![a];
  for raw in others {
    let slot = slots.configure(&config(raw)).unwrap();
    assert!(!seen.contains(&slot), "slot {slot} reused");
    seen.push(slot);
  }
}

#[test]
fn a_clock_of_its_own_gets_a_slot_of_its_own() {
  let mut slots = Slots::default();
  let raw = RawOptions {
    clock: Input::Function,
    ..options(3.0, 0.0)
  };
  let a = slots.configure(&config(raw.clone())).unwrap();
  let b = slots.configure(&config(raw)).unwrap();
  assert_ne!(a, b);
  // Private states: both issue the same first id for the same reading.
  let first = |slot| slots.get(slot).unwrap().take(NOW, 1).unwrap().first;
  assert_eq!(first(a), first(b));
}

#[test]
fn a_released_slot_is_empty_and_its_number_reused() {
  let mut slots = Slots::default();
  let a = slots.configure(&config(options(965.0, 0.0))).unwrap();
  let b = slots.configure(&config(options(966.0, 0.0))).unwrap();
  assert!(slots.release(a));
  assert!(slots.get(a).is_none());
  assert!(!slots.release(a), "released twice");
  assert!(!slots.release(1_000), "never made");
  assert!(slots.get(b).is_some());
  let c = slots.configure(&config(options(967.0, 0.0))).unwrap();
  assert_eq!(c, a);
  assert_eq!(
    decode(slots.get(c).unwrap().take(NOW, 1).unwrap().first).1,
    967
  );
}

#[test]
fn a_configuration_made_again_after_release_continues_above_its_ids() {
  let mut slots = Slots::default();
  let raw = || config(options(968.0, 0.0));
  let slot = slots.configure(&raw()).unwrap();
  let before = slots.get(slot).unwrap().take(NOW, 10).unwrap();
  slots.release(slot);
  let again = slots.configure(&raw()).unwrap();
  let after = slots.get(again).unwrap().take(NOW, 1).unwrap();
  assert!(after.first > before.first + 9);
}

//! The worked examples of flake-idgen's README, byte for byte.

use super::private;
use crate::input::Input;
use crate::options::RawOptions;

#[test]
fn readme_table_default_generator() {
  let generator = private(RawOptions::default());
  let ids: Vec<u64> = [
    0x8c20543b0,
    0x8c20543b1,
    0x8c20543b1,
    0x8c20543b1,
    0x8c20543b1,
  ]
  .iter()
  .map(|&now| generator.next_id(now).unwrap())
  .collect();
  assert_eq!(
    ids,
    [
      0x02308150ec000000,
      0x02308150ec400000,
      0x02308150ec400001,
      0x02308150ec400002,
      0x02308150ec400003
    ]
  );
}

#[test]
fn readme_table_datacenter_3_worker_1() {
  let generator = private(RawOptions {
    datacenter: Input::Number(3.0),
    worker: Input::Number(1.0),
    ..RawOptions::default()
  });
  assert_eq!(generator.next_id(0x8c20c0335), Ok(0x02308300cd461000));
  assert_eq!(generator.next_id(0x8c20c0335), Ok(0x02308300cd461001));
}

#[test]
fn readme_bit_breakdown_datacenter_7_worker_3() {
  // 5828128208445124608: timestamp 010100001110000110101011101110100001000111, 7, 3, counter 0.
  let generator = private(RawOptions {
    datacenter: Input::Number(7.0),
    worker: Input::Number(3.0),
    ..RawOptions::default()
  });
  let timestamp = 0b010100001110000110101011101110100001000111;
  assert_eq!(generator.next_id(timestamp), Ok(5828128208445124608));
}

#[test]
fn readme_id_100_equals_datacenter_3_worker_4() {
  let by_id = private(RawOptions {
    id: Input::Number(100.0),
    ..RawOptions::default()
  });
  let by_parts = private(RawOptions {
    datacenter: Input::Number(3.0),
    worker: Input::Number(4.0),
    ..RawOptions::default()
  });
  assert_eq!(by_id.next_id(0x8c20543b0), by_parts.next_id(0x8c20543b0));
}

#[test]
fn readme_epoch_example_subtracts_the_epoch() {
  let generator = private(RawOptions {
    epoch: Input::Number(1300000000000.0),
    ..RawOptions::default()
  });
  let id = generator.next_id(1300000000000 + 0x1234).unwrap();
  assert_eq!(id, 0x1234 << 22);
}

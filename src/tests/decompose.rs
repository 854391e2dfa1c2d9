//! Reading ids back.

use super::{flake, MAX_DELTA};
use crate::error::{ErrorKind, FlakeError};
use crate::input::Input;
use crate::kinds::layout::decompose::{from_time, parse, parts, Parts};
use crate::options::values::decompose_epoch as epoch;

#[test]
fn the_readme_example() {
  let id = parse("5828128208445124608").unwrap();
  assert_eq!(
    parts(id, &flake(0), &Input::Undefined),
    Ok(Parts {
      timestamp: id >> 22,
      parts: Some([7, 3]),
      id: 227,
      sequence: 0
    })
  );
}

#[test]
fn the_epoch_is_added_back() {
  let id = (5u64 << 22) | (1023 << 12) | 4095;
  let parts = parts(id, &flake(1000), &Input::Undefined).unwrap();
  assert_eq!(
    (parts.timestamp, parts.parts, parts.sequence),
    (1005, Some([31, 31]), 4095)
  );
}

#[test]
fn decimal_and_hex_strings() {
  assert_eq!(parse("0"), Ok(0));
  assert_eq!(parse(" 18446744073709551615\n"), Ok(u64::MAX));
  assert_eq!(parse("0xffffffffffffffff"), Ok(u64::MAX));
  assert_eq!(parse("0X00000000000000000001"), Ok(1));
  for bad in ["", " ", "0x", "-1", "+1", "1e3", "0b1", "12a", "0xg", "1 2"] {
    let err = parse(bad).unwrap_err();
    assert_eq!(
      (err.kind(), err.code()),
      (ErrorKind::TypeError, "ERR_INVALID_ARG_VALUE"),
      "{bad:?}"
    );
  }
  for past_64_bits in ["18446744073709551616", "0x10000000000000000"] {
    let err = parse(past_64_bits).unwrap_err();
    assert_eq!(
      (err.kind(), err.code()),
      (ErrorKind::RangeError, "ERR_OUT_OF_RANGE")
    );
  }
}

#[test]
fn a_time_past_what_a_date_holds_is_refused() {
  let refused = parts(
    u64::MAX,
    &flake(8_640_000_000_000_000),
    &Input::BigInt("1".into()),
  );
  assert!(matches!(
    refused,
    Err(FlakeError::ArgumentRange { ref argument, .. }) if argument == "id"
  ));
}

#[test]
fn from_time_is_the_smallest_id_of_the_millisecond() {
  assert_eq!(
    from_time(1005.7, &flake(1000), &Input::Undefined),
    Ok(5 << 22)
  );
  assert_eq!(
    from_time((1000 + MAX_DELTA) as f64, &flake(1000), &Input::Undefined),
    Ok(MAX_DELTA << 22)
  );
  for bad in [
    999.0,
    (1001 + MAX_DELTA) as f64,
    -1.0,
    f64::NAN,
    f64::INFINITY,
  ] {
    let err = from_time(bad, &flake(1000), &Input::Number(bad)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RangeError, "{bad}");
  }
}

#[test]
fn an_epoch_past_what_a_date_holds_blames_the_epoch() {
  assert_eq!(epoch(&Input::Number(8.64e15)), Ok(8_640_000_000_000_000));
  assert_eq!(epoch(&Input::Null), Ok(0));
  for bad in [
    Input::Number(8.64e15 + 1.0),
    Input::String("9007199254740991".into()),
  ] {
    let err = epoch(&bad).unwrap_err();
    assert_eq!(
      (err.kind(), err.code()),
      (ErrorKind::RangeError, "ERR_FLAKE_INVALID_OPTION")
    );
    assert!(
      err
        .to_string()
        .starts_with("option `epoch` must be a time a Date holds"),
      "{err}"
    );
  }
  // Otherwise as the constructor has it.
  let err = epoch(&Input::Number(-1.0)).unwrap_err();
  assert!(
    err
      .to_string()
      .starts_with("option `epoch` must be a non-negative"),
    "{err}"
  );
}

#[test]
fn an_id_past_a_63_bit_layout_is_refused_not_read_past_its_end() {
  use crate::kinds::layout::{Layout, Preset};
  for preset in [Preset::Twitter, Preset::Hazelcast, Preset::Sonyflake] {
    let layout = Layout::preset(preset);
    let last = (1u64 << 63) - 1;
    assert!(
      parts(last, &layout, &Input::Undefined).is_ok(),
      "{preset:?}"
    );
    let err = parts(last + 6, &layout, &Input::Undefined).unwrap_err();
    assert_eq!(
      (err.code(), err.kind()),
      ("ERR_OUT_OF_RANGE", ErrorKind::RangeError)
    );
    assert!(err.to_string().contains("63 bits"), "{err}");
  }
  // 64 bits: every id is one.
  assert!(parts(
    u64::MAX,
    &Layout::preset(Preset::Discord),
    &Input::Undefined
  )
  .is_ok());
}

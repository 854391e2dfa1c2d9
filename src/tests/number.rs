//! Whole numbers, the one test behind every option, argument and scratch field that must be one.

use crate::number::{whole, whole_part, MAX_SAFE_INTEGER};

/// What `whole` must say, by the plain definition it replaces (`fract()`, which costs a libm
/// call on the per-id path).
fn by_definition(n: f64) -> Option<u64> {
  (n.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(&n)).then_some(n as u64)
}

const VALUES: [f64; 17] = [
  0.0,
  -0.0,
  1.0,
  0.5,
  -1.0,
  -0.5,
  1e-300,
  1_500_000_000_000.0,
  1_500_000_000_000.5,
  MAX_SAFE_INTEGER,
  MAX_SAFE_INTEGER + 1.0,
  MAX_SAFE_INTEGER - 0.5,
  1.8446744073709552e19,
  f64::MAX,
  f64::INFINITY,
  f64::NEG_INFINITY,
  f64::NAN,
];

#[test]
fn a_whole_number_is_one_from_0_to_max_safe_integer_without_a_fraction() {
  for n in VALUES {
    assert_eq!(whole(n), by_definition(n), "{n}");
  }
  assert_eq!(whole(-0.0), Some(0));
  assert_eq!(whole(MAX_SAFE_INTEGER), Some(9_007_199_254_740_991));
}

#[test]
fn a_clock_reading_drops_its_fraction_and_keeps_the_range() {
  assert_eq!(whole_part(1_500_000_000_000.75), Some(1_500_000_000_000));
  assert_eq!(whole_part(0.25), Some(0));
  assert_eq!(whole_part(MAX_SAFE_INTEGER), Some(9_007_199_254_740_991));
  for n in [-0.5, -1.0, MAX_SAFE_INTEGER + 1.0, f64::INFINITY, f64::NAN] {
    assert_eq!(whole_part(n), None, "{n}");
  }
}

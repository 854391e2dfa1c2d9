//! How values are named in error messages: numbers as JavaScript prints them, long strings cut.

use crate::input::{Input, JsNumber, QuotedPath};

/// Each value with what `String(value)` prints in Node (checked with node 22).
const NUMBERS: &[(f64, &str)] = &[
  (0.0, "0"),
  (-0.0, "0"),
  (1.0, "1"),
  (-1.0, "-1"),
  (1.5, "1.5"),
  (-0.5, "-0.5"),
  (0.1, "0.1"),
  (0.1 + 0.2, "0.30000000000000004"),
  (1.0 / 3.0, "0.3333333333333333"),
  (123.456, "123.456"),
  (100.0, "100"),
  (0.000001, "0.000001"),
  (0.0000025, "0.0000025"),
  (1e-7, "1e-7"),
  (1.5e-7, "1.5e-7"),
  (-1e-7, "-1e-7"),
  (1.2345e-7, "1.2345e-7"),
  (4e12, "4000000000000"),
  (8.64e15, "8640000000000000"),
  (9007199254740991.0, "9007199254740991"),
  (9007199254740992.0, "9007199254740992"),
  (9007199254740994.0, "9007199254740994"),
  (1e20, "100000000000000000000"),
  (123456789012345680000.0, "123456789012345680000"),
  (1e21, "1e+21"),
  (1.5e21, "1.5e+21"),
  (12345678901234567890123.0, "1.2345678901234568e+22"),
  (1e300, "1e+300"),
  (-1e300, "-1e+300"),
  (f64::MAX, "1.7976931348623157e+308"),
  (5e-324, "5e-324"),
  // Ties between two shortest candidates: the even one, as V8 prints them.
  (87181454522585.0 + 0.125, "87181454522585.12"),
  (2165620327463695.0 + 0.25, "2165620327463695.2"),
  (f64::NAN, "NaN"),
  (f64::INFINITY, "Infinity"),
  (f64::NEG_INFINITY, "-Infinity"),
];

#[test]
fn numbers_print_as_javascript_prints_them() {
  for &(n, js) in NUMBERS {
    assert_eq!(JsNumber(n).to_string(), js, "{n:e}");
    assert_eq!(Input::Number(n).to_string(), js, "{n:e}");
  }
}

#[test]
fn short_strings_are_quoted_whole() {
  assert_eq!(Input::String("abc".into()).to_string(), r#""abc""#);
  assert_eq!(Input::String(String::new()).to_string(), r#""""#);
  let forty = "x".repeat(40);
  assert_eq!(
    Input::String(forty.clone()).to_string(),
    format!("\"{forty}\"")
  );
}

#[test]
fn long_strings_are_cut_to_40_characters() {
  let shown = Input::String("9".repeat(1_000_000)).to_string();
  assert_eq!(shown, format!("\"{}…\"", "9".repeat(40)));
  // Characters, not bytes: a multi-byte character is never split.
  let shown = Input::String("é".repeat(41)).to_string();
  assert_eq!(shown, format!("\"{}…\"", "é".repeat(40)));
  // Escapes apply to what is shown.
  let shown = Input::String(format!("a\nb{}", "c".repeat(100))).to_string();
  assert_eq!(shown, format!("\"a\\nb{}…\"", "c".repeat(37)));
}

#[test]
fn long_bigints_are_cut_too() {
  assert_eq!(Input::BigInt("123".into()).to_string(), "123n");
  let shown = Input::BigInt("7".repeat(500)).to_string();
  assert_eq!(shown, format!("{}…n", "7".repeat(40)));
}

#[test]
fn dates_show_their_milliseconds_as_javascript_prints_them() {
  assert_eq!(
    Input::Date(1e15).to_string(),
    "a Date (1000000000000000 ms)"
  );
  assert_eq!(Input::Date(f64::NAN).to_string(), "Invalid Date");
}

#[test]
fn paths_are_shown_whole_up_to_120_characters_then_cut_in_the_middle() {
  let path = format!("/run/user/1000/flake-idgen/{}", "d".repeat(93));
  assert_eq!(path.chars().count(), 120);
  assert_eq!(QuotedPath(&path).to_string(), format!("{path:?}"));
  let long = format!("/{}/epoch-0.state", "a".repeat(1_000_000));
  assert_eq!(
    QuotedPath(&long).to_string(),
    format!("\"/{}…{}/epoch-0.state\"", "a".repeat(39), "a".repeat(26))
  );
}

//! A JavaScript value as the option and clock checks see it: enough to validate it and to
//! name it in an error message, with no N-API handle attached.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Input {
  Undefined,
  Null,
  Bool(bool),
  Number(f64),
  String(String),
  /// A `Date`, as its milliseconds since 1970 (`NaN` for an invalid date).
  Date(f64),
  /// A `bigint`, as its decimal digits.
  BigInt(String),
  /// A `Buffer` or other `Uint8Array`, as its length.
  Bytes(usize),
  Function,
  /// An object that is not a `Date`, an array or a function.
  Object,
  /// Any other value, described by its article and type, e.g. "an object", "a bigint".
  Other(&'static str),
}

impl Input {
  /// `undefined` and `null` both mean "not set", as flake-idgen's `options.x || default` has it.
  pub fn is_unset(&self) -> bool {
    matches!(self, Self::Undefined | Self::Null)
  }
}

/// Formats a number as JavaScript's `String(n)` does for the values that show up in options.
pub struct JsNumber(pub f64);

impl fmt::Display for JsNumber {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match self.0 {
      n if n.is_nan() => f.write_str("NaN"),
      n if n == f64::INFINITY => f.write_str("Infinity"),
      n if n == f64::NEG_INFINITY => f.write_str("-Infinity"),
      n => write!(f, "{n}"),
    }
  }
}

impl fmt::Display for Input {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match self {
      Self::Undefined => f.write_str("undefined"),
      Self::Null => f.write_str("null"),
      Self::Bool(b) => write!(f, "{b}"),
      Self::Number(n) => write!(f, "{}", JsNumber(*n)),
      Self::String(s) => write!(f, "{s:?}"),
      Self::Date(ms) if ms.is_nan() => f.write_str("Invalid Date"),
      Self::Date(ms) => write!(f, "a Date ({} ms)", JsNumber(*ms)),
      Self::BigInt(digits) => write!(f, "{digits}n"),
      Self::Bytes(1) => f.write_str("a Buffer of 1 byte"),
      Self::Bytes(len) => write!(f, "a Buffer of {len} bytes"),
      Self::Function => f.write_str("a function"),
      Self::Object => f.write_str("an object"),
      Self::Other(what) => f.write_str(what),
    }
  }
}

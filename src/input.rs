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

/// Formats a number as JavaScript's `String(n)` does (ECMAScript `Number::toString`): the
/// shortest digits that read back as `n`, in plain notation from 1e-6 up to 1e21 and as
/// `1.5e-7`/`1e+300` outside it; `-0` is `0`.
pub struct JsNumber(pub f64);

impl fmt::Display for JsNumber {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let n = self.0;
    if n.is_nan() {
      return f.write_str("NaN");
    }
    if n == 0.0 {
      return f.write_str("0");
    }
    if n < 0.0 {
      f.write_str("-")?;
    }
    if n.is_infinite() {
      return f.write_str("Infinity");
    }
    let (digits, exponent) = shortest_digits(n.abs());
    let k = digits.len() as i32;
    // The value is 0.digits × 10^point.
    let point = exponent + 1;
    if k <= point && point <= 21 {
      write!(f, "{digits}{}", "0".repeat((point - k) as usize))
    } else if 0 < point && point <= 21 {
      let (whole, fraction) = digits.split_at(point as usize);
      write!(f, "{whole}.{fraction}")
    } else if -6 < point && point <= 0 {
      write!(f, "0.{}{digits}", "0".repeat(-point as usize))
    } else {
      let (first, rest) = digits.split_at(1);
      let dot = if rest.is_empty() { "" } else { "." };
      let sign = if point > 0 { "+" } else { "-" };
      write!(f, "{first}{dot}{rest}e{sign}{}", (point - 1).abs())
    }
  }
}

/// The shortest digits that read back as `n` (finite, positive) and the decimal exponent of
/// the first: `(digits, e)` for d.ddd × 10^e. Rust's `{:e}` gives them, save that of two
/// candidates equally close to `n` it takes the larger where ECMAScript takes the even one.
fn shortest_digits(n: f64) -> (String, i32) {
  let split = |scientific: &str| {
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((scientific, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent.parse::<i32>().unwrap_or(0))
  };
  let (digits, exponent) = split(&format!("{n:e}"));
  // A tie: `n` is exactly halfway, its exact expansion one digit longer, ending in 5 (an f64
  // has at most 767 significant digits).
  let (exact, exact_exponent) = split(&format!("{n:.800e}"));
  let exact = exact.trim_end_matches('0');
  if exact.len() == digits.len() + 1 && exact.ends_with('5') {
    let lower = &exact[..digits.len()];
    let even = lower.bytes().last().is_some_and(|d| d % 2 == 0);
    let (first, rest) = lower.split_at(1);
    let reads_back = format!("{first}.{rest}0e{exact_exponent}").parse() == Ok(n);
    if even && lower != digits && reads_back {
      return (lower.to_string(), exact_exponent);
    }
  }
  (digits, exponent)
}

/// How many characters of a string (or of a bigint's digits) an error message shows.
pub const SHOWN_CHARS: usize = 40;

/// `text`'s first `SHOWN_CHARS` characters, and whether any were left out.
fn shown(text: &str) -> (&str, bool) {
  match text.char_indices().nth(SHOWN_CHARS) {
    Some((cut, _)) => (&text[..cut], true),
    None => (text, false),
  }
}

/// A string as error messages quote it: in double quotes, escaped as Rust's `{:?}` does, cut
/// to `SHOWN_CHARS` characters followed by "…" (inside the quotes) when longer.
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let (text, cut) = shown(self.0);
    let quoted = format!("{text:?}");
    if cut {
      // Before the closing quote.
      write!(f, "{}…\"", &quoted[..quoted.len() - 1])
    } else {
      f.write_str(&quoted)
    }
  }
}

/// How many characters of a path an error message shows whole; longer ones are shown as their
/// first and last `SHOWN_CHARS` characters around "…", which keeps the file's name.
pub const SHOWN_PATH_CHARS: usize = 120;

/// A file system path as error messages quote it: in double quotes, escaped as `{:?}` does,
/// whole up to `SHOWN_PATH_CHARS` characters and cut in the middle beyond.
pub struct QuotedPath<'a>(pub &'a str);

impl fmt::Display for QuotedPath<'_> {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let count = self.0.chars().count();
    if count <= SHOWN_PATH_CHARS {
      return write!(f, "{:?}", self.0);
    }
    let (head, _) = shown(self.0);
    let tail: String = self.0.chars().skip(count - SHOWN_CHARS).collect();
    let (head, tail) = (format!("{head:?}"), format!("{tail:?}"));
    write!(f, "{}…{}", &head[..head.len() - 1], &tail[1..])
  }
}

impl fmt::Display for Input {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match self {
      Self::Undefined => f.write_str("undefined"),
      Self::Null => f.write_str("null"),
      Self::Bool(b) => write!(f, "{b}"),
      Self::Number(n) => write!(f, "{}", JsNumber(*n)),
      Self::String(s) => write!(f, "{}", Quoted(s)),
      Self::Date(ms) if ms.is_nan() => f.write_str("Invalid Date"),
      Self::Date(ms) => write!(f, "a Date ({} ms)", JsNumber(*ms)),
      Self::BigInt(digits) => match shown(digits) {
        (digits, false) => write!(f, "{digits}n"),
        (digits, true) => write!(f, "{digits}…n"),
      },
      Self::Bytes(1) => f.write_str("a Buffer of 1 byte"),
      Self::Bytes(len) => write!(f, "a Buffer of {len} bytes"),
      Self::Function => f.write_str("a function"),
      Self::Object => f.write_str("an object"),
      Self::Other(what) => f.write_str(what),
    }
  }
}

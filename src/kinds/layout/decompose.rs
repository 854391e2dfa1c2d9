//! Reading ids back: the parts of an id, and the smallest id of a millisecond.

use crate::error::FlakeError;
use crate::input::Input;
use crate::kinds::layout::{Layout, MAX_PART, PART_BITS};

/// What `decompose` accepts, for error messages.
pub const ID_EXPECTED: &str =
  "a Buffer of 8 bytes, a bigint, a decimal string or a 0x-prefixed hex string of 64 bits at most";

/// The latest time a JS `Date` holds, in ms since 1970.
pub const MAX_DATE_MS: u64 = 8_640_000_000_000_000;

/// What `decompose` and `fromTime` take as their options argument, for error messages.
pub const OPTIONS_EXPECTED: &str =
  "an object such as { layout, epoch } (a FlakeId instance will do)";

/// The fields of an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
  /// Milliseconds since 1970: where the id's time unit starts, the epoch added back.
  pub timestamp: u64,
  /// The node id's two parts (high first), for a layout that names them.
  pub parts: Option<[u8; 2]>,
  /// The node id.
  pub id: u16,
  pub sequence: u16,
}

/// Splits `id` into its fields by `layout`; `got` names it in the error should its time, with
/// the epoch added, be past what a `Date` can hold.
pub fn parts(id: u64, layout: &Layout, got: &Input) -> Result<Parts, FlakeError> {
  let shape = layout.shape;
  let bits =
    u32::from(shape.time_bits) + u32::from(shape.node_bits) + u32::from(shape.sequence_bits);
  // A layout of 63 bits never sets the top one: an id that does is not one of its ids, and its
  // time, read on, would be past the layout's end.
  if bits < u64::BITS && id >> bits != 0 {
    return Err(FlakeError::ArgumentRange {
      argument: "id".into(),
      expected: format!(
        "an id of the layout's {bits} bits, at most 2^{bits} - 1 ({})",
        (1u64 << bits) - 1
      ),
      got: got.clone(),
    });
  }
  let (time, node, sequence) = shape.split(id);
  let timestamp = layout.ms_of(time);
  if timestamp > MAX_DATE_MS {
    return Err(FlakeError::ArgumentRange {
      argument: "id".into(),
      expected: format!(
        "an id whose time, {} ms added for the epoch, is a valid Date",
        layout.epoch
      ),
      got: got.clone(),
    });
  }
  Ok(Parts {
    timestamp,
    parts: layout.parts().map(|_| {
      [
        (node >> PART_BITS) as u8,
        (node & u16::from(MAX_PART)) as u8,
      ]
    }),
    id: node,
    sequence,
  })
}

/// An id written as a decimal string or as a `0x`-prefixed hex string; surrounding whitespace
/// is allowed, nothing else.
pub fn parse(text: &str) -> Result<u64, FlakeError> {
  let got = || Input::String(text.into());
  let trimmed = text.trim();
  let (digits, radix) = match trimmed.strip_prefix("0x").or(trimmed.strip_prefix("0X")) {
    Some(hex) => (hex, 16),
    None => (trimmed, 10),
  };
  if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
    return Err(FlakeError::ArgumentValue {
      argument: "id".into(),
      expected: ID_EXPECTED.into(),
      got: got(),
    });
  }
  // Only the digits are left, so the one way to fail is a value past 64 bits.
  u64::from_str_radix(digits, radix).map_err(|_| FlakeError::ArgumentRange {
    argument: "id".into(),
    expected: ID_EXPECTED.into(),
    got: got(),
  })
}

/// The smallest id of the time unit of `time` (ms since 1970, a fraction dropped) by `layout`:
/// node id 0, sequence 0.
pub fn from_time(time: f64, layout: &Layout, got: &Input) -> Result<u64, FlakeError> {
  let out_of_range = |expected: String| FlakeError::ArgumentRange {
    argument: "time".into(),
    expected,
    got: got.clone(),
  };
  if !time.is_finite() || time < 0.0 {
    return Err(out_of_range(
      "a finite, non-negative number of ms since 1970 or a valid Date".into(),
    ));
  }
  let time = time as u64;
  let shape = layout.shape;
  match time >= layout.epoch {
    true if layout.time_of(time) <= shape.max_time() => {
      Ok(shape.compose(layout.time_of(time), 0, 0))
    }
    _ => Err(out_of_range(format!(
      "from the epoch {} to {} ({} bits of {} after it)",
      layout.epoch,
      layout.last_ms(),
      shape.time_bits,
      match shape.unit_ms {
        1 => "ms".to_string(),
        unit => format!("{unit} ms units"),
      }
    ))),
  }
}

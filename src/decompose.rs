//! Reading ids back: the parts of an id, and the smallest id of a millisecond.

use crate::error::FlakeError;
use crate::input::Input;
use crate::layout::{
  MAX_DELTA, MAX_NODE, MAX_PART, MAX_SEQUENCE, PART_BITS, SEQUENCE_BITS, TIMESTAMP_BITS,
  TIMESTAMP_SHIFT,
};
use crate::options;

/// What `decompose` accepts, for error messages.
pub const ID_EXPECTED: &str =
  "a Buffer of 8 bytes, a bigint, a decimal string or a 0x-prefixed hex string of 64 bits at most";

/// The latest time a JS `Date` holds, in ms since 1970.
const MAX_DATE_MS: u64 = 8_640_000_000_000_000;

/// What `decompose` and `fromTime` take as their options argument, for error messages.
pub const OPTIONS_EXPECTED: &str = "an object such as { epoch } (a FlakeId instance will do)";

/// The `epoch` option of `decompose`/`fromTime`: as the constructor takes it, and no later than
/// the latest `Date`, since the epoch is a time the ids are read back into.
pub fn epoch(value: &Input) -> Result<u64, FlakeError> {
  let epoch = options::epoch(value)?;
  if epoch > MAX_DATE_MS {
    return Err(FlakeError::OptionRange {
      option: "epoch".into(),
      expected: format!("a time a Date holds, at most {MAX_DATE_MS} ms since 1970"),
      got: value.clone(),
    });
  }
  Ok(epoch)
}

/// The fields of an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
  /// Milliseconds since 1970: the id's timestamp plus the epoch.
  pub timestamp: u64,
  pub datacenter: u8,
  pub worker: u8,
  /// The 10-bit generator id (datacenter and worker together).
  pub id: u16,
  pub sequence: u16,
}

/// Splits `id` into its fields; `got` names it in the error should its time, with `epoch`
/// added, be past what a `Date` can hold.
pub fn parts(id: u64, epoch: u64, got: &Input) -> Result<Parts, FlakeError> {
  let timestamp = (id >> TIMESTAMP_SHIFT) + epoch;
  if timestamp > MAX_DATE_MS {
    return Err(FlakeError::ArgumentRange {
      argument: "id".into(),
      expected: format!("an id whose time, {epoch} ms added for the epoch, is a valid Date"),
      got: got.clone(),
    });
  }
  let node = ((id >> SEQUENCE_BITS) & u64::from(MAX_NODE)) as u16;
  Ok(Parts {
    timestamp,
    datacenter: (node >> PART_BITS) as u8,
    worker: (node & u16::from(MAX_PART)) as u8,
    id: node,
    sequence: (id & u64::from(MAX_SEQUENCE)) as u16,
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

/// The smallest id of the millisecond `time` (ms since 1970, a fraction dropped): generator
/// id 0, sequence 0.
pub fn from_time(time: f64, epoch: u64, got: &Input) -> Result<u64, FlakeError> {
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
  match time.checked_sub(epoch) {
    Some(delta) if delta <= MAX_DELTA => Ok(delta << TIMESTAMP_SHIFT),
    _ => Err(out_of_range(format!(
      "from the epoch {epoch} to {} ({TIMESTAMP_BITS} bits of ms after it)",
      epoch + MAX_DELTA
    ))),
  }
}

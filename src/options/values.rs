//! Readers of option values shared by several options, and `decompose`'s `epoch`: each takes
//! the value as it came from JS and the option's name for its error.

use crate::error::FlakeError;
use crate::input::Input;
use crate::kinds::layout::decompose::MAX_DATE_MS;
use crate::number::{whole, MAX_SAFE_INTEGER};

/// The `epoch` option, here or in `decompose`/`fromTime`: unset is 0 (1970).
pub fn epoch(value: &Input) -> Result<u64, FlakeError> {
  const EXPECTED: &str =
    "a non-negative integer number (or bigint) of ms since 1970, a Date or a numeric string";
  match value {
    unset if unset.is_unset() => Ok(0),
    // flake-idgen's `+options.epoch` takes a Date; the other options would mask its value.
    Input::Date(ms) => whole(*ms).ok_or_else(|| FlakeError::OptionRange {
      option: "epoch".into(),
      expected: EXPECTED.into(),
      got: value.clone(),
    }),
    // @sapphire/snowflake's epochs are bigints (`DiscordSnowflake.epoch`).
    Input::BigInt(digits) => match digits.parse::<u64>() {
      Ok(ms) if is_decimal(digits) && ms <= MAX_SAFE_INTEGER as u64 => Ok(ms),
      _ => Err(FlakeError::OptionRange {
        option: "epoch".into(),
        expected: EXPECTED.into(),
        got: value.clone(),
      }),
    },
    value => integer("epoch", value, MAX_SAFE_INTEGER as u64, EXPECTED),
  }
}

/// The `epoch` option of `decompose`/`fromTime`: as the constructor takes it, and no later than
/// the latest `Date`, since the epoch is a time the ids are read back into.
pub fn decompose_epoch(value: &Input) -> Result<u64, FlakeError> {
  let epoch = epoch(value)?;
  if epoch > MAX_DATE_MS {
    return Err(FlakeError::OptionRange {
      option: "epoch".into(),
      expected: format!("a time a Date holds, at most {MAX_DATE_MS} ms since 1970"),
      got: value.clone(),
    });
  }
  Ok(epoch)
}

/// An integer from 0 to `max` given as a number or a decimal string.
pub fn integer(
  option: &'static str,
  value: &Input,
  max: u64,
  expected: &'static str,
) -> Result<u64, FlakeError> {
  let out_of_range = || FlakeError::OptionRange {
    option: option.into(),
    expected: expected.into(),
    got: value.clone(),
  };
  let n = match value {
    Input::Number(n) => whole(*n).ok_or_else(out_of_range)?,
    Input::String(s) if is_decimal(s.trim()) => s.trim().parse().map_err(|_| out_of_range())?,
    _ => {
      return Err(FlakeError::OptionType {
        option: option.into(),
        expected: expected.into(),
        got: value.clone(),
      })
    }
  };
  if n > max {
    return Err(out_of_range());
  }
  Ok(n)
}

/// `err` (about an option's value) with `expected` in place of what it said was expected.
pub(super) fn reword(err: FlakeError, expected: &str) -> FlakeError {
  match err {
    FlakeError::OptionRange { option, got, .. } => FlakeError::OptionRange {
      option,
      expected: expected.into(),
      got,
    },
    FlakeError::OptionType { option, got, .. } => FlakeError::OptionType {
      option,
      expected: expected.into(),
      got,
    },
    other => other,
  }
}

/// Digits only: no sign, exponent, hex prefix or empty string, which `Number()` would also take.
pub(super) fn is_decimal(s: &str) -> bool {
  !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

//! Ids as text, in the forms of `FORMS`: Crockford's base 32 (TSID's form for 64 bits, ULID's
//! for 128), base 62 (`0-9A-Za-z`, in ASCII order) and hex, each zero-padded to the characters
//! the id's bits take, so that string order is id order; and decimal, the form flake-idgen's
//! users and SQL `bigint` read (not fixed width). The one place each alphabet is written out and
//! read back: the 128-bit kinds write their forms here, and every id's text is read here. The
//! 64-bit forms are written in JS (lib/formats/formats.js, whose rows a test holds to these), so
//! that a client, which loads no binary, writes them too.

use crate::error::{FlakeError, TextFault};
use crate::input::Input;

/// A text form of an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
  /// Decimal digits, as many as the value takes: flake-idgen's users' form, and SQL `bigint`'s.
  Decimal,
  /// Crockford's base 32, upper case, the bits behind leading zero bits: TSID's and ULID's form.
  Base32,
  /// `0-9A-Za-z`, in ASCII order.
  Base62,
  /// Lowercase hex digits, no prefix.
  Hex,
}

/// Every form, in the order lib/formats/formats.js's rows have them.
pub const FORMS: [Form; 4] = [Form::Decimal, Form::Base32, Form::Base62, Form::Hex];

/// The forms a 128-bit id is written in besides its kind's own.
pub const WIDE_FORMS: [Form; 2] = [Form::Base32, Form::Base62];

/// Crockford's base 32: digits, then upper-case letters but I, L, O and U.
const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const HEX: &[u8] = b"0123456789abcdef";
const DECIMAL: &[u8] = b"0123456789";

/// No digit: a byte's entry in `values` when the alphabet has no such character.
const NONE: u8 = u8::MAX;

/// Each ASCII byte's digit in `alphabet`, or `NONE`.
const fn values(alphabet: &[u8]) -> [u8; 128] {
  let mut values = [NONE; 128];
  let mut at = 0;
  while at < alphabet.len() {
    values[alphabet[at] as usize] = at as u8;
    at += 1;
  }
  values
}

const CROCKFORD_VALUES: [u8; 128] = values(CROCKFORD);
const BASE62_VALUES: [u8; 128] = values(BASE62);
const HEX_VALUES: [u8; 128] = values(HEX);
const DECIMAL_VALUES: [u8; 128] = values(DECIMAL);

impl Form {
  /// Its name, as `nextString(format)` and the `format` arguments take it.
  pub const fn name(self) -> &'static str {
    match self {
      Self::Decimal => "decimal",
      Self::Base32 => "base32",
      Self::Base62 => "base62",
      Self::Hex => "hex",
    }
  }

  /// The form named `name`.
  pub fn named(name: &str) -> Option<Self> {
    FORMS.into_iter().find(|form| form.name() == name)
  }

  /// Its digits, in order of value.
  const fn alphabet(self) -> &'static [u8] {
    match self {
      Self::Decimal => DECIMAL,
      Self::Base32 => CROCKFORD,
      Self::Base62 => BASE62,
      Self::Hex => HEX,
    }
  }

  /// The value of `character` as one of its digits.
  fn digit(self, character: char) -> Option<u8> {
    let values = match self {
      Self::Decimal => &DECIMAL_VALUES,
      Self::Base32 => &CROCKFORD_VALUES,
      Self::Base62 => &BASE62_VALUES,
      Self::Hex => &HEX_VALUES,
    };
    let value = *values.get(character as usize)?;
    (value != NONE).then_some(value)
  }

  /// Whether it is written to a fixed width (all but decimal).
  pub const fn fixed(self) -> bool {
    !matches!(self, Self::Decimal)
  }

  /// How many characters an id of `bits` bits (64 or 128) takes: the fewest whose values reach
  /// 2^bits (decimal's most).
  pub const fn width(self, bits: u32) -> usize {
    let radix = self.alphabet().len() as u128;
    let max = u128::MAX >> (128 - bits);
    let (mut width, mut reach) = (1, radix);
    while reach <= max {
      width += 1;
      match reach.checked_mul(radix) {
        Some(next) => reach = next,
        None => break,
      }
    }
    width
  }

  /// What a reader of an id of `bits` bits in this form expects, as its errors say it.
  pub fn expected(self, bits: u32) -> String {
    let width = self.width(bits);
    let what = match self {
      Self::Decimal => return format!("1 to {width} decimal digits, of at most 2^{bits} - 1"),
      Self::Base32 => "Crockford base32 characters (0-9, A-Z but I, L, O, U; upper case only)",
      Self::Base62 => "base62 characters (0-9, A-Z, a-z)",
      Self::Hex => "lowercase hex digits",
    };
    // Hex's digits hold the bits exactly: no text of its width is past them.
    if self == Self::Hex {
      format!("{width} {what}")
    } else {
      format!("{width} {what} of at most 2^{bits} - 1")
    }
  }

  /// The id of `bits` bits (64 or 128) that `text` writes in this form: exactly its width in
  /// characters of its alphabet (decimal: 1 to its width, no leading zero), of a value below 2^bits. Nothing is
  /// read in another way than the form writes it (no other case, no Crockford I/L/O for 1/1/0),
  /// so that one id has one text and text equality is id equality.
  pub fn read(self, text: &str, bits: u32) -> Result<u128, TextFault> {
    let (width, length) = (self.width(bits), text.chars().count());
    let fits = if self.fixed() {
      length == width
    } else {
      (1..=width).contains(&length)
    };
    if !fits {
      return Err(TextFault::Length(length));
    }
    let radix = self.alphabet().len() as u128;
    // `None` once past 2^128: still read on, so that a bad character is named wherever it is.
    let mut value = Some(0u128);
    for (at, character) in text.chars().enumerate() {
      let digit = self
        .digit(character)
        .ok_or(TextFault::Character { character, at })?;
      value = value
        .and_then(|value| value.checked_mul(radix))
        .and_then(|value| value.checked_add(u128::from(digit)));
    }
    // Decimal is the one form not zero-padded: `007` would be a second text of 7.
    if !self.fixed() && length > 1 && text.starts_with('0') {
      return Err(TextFault::LeadingZero);
    }
    match value {
      Some(value) if bits == u128::BITS || value >> bits == 0 => Ok(value),
      _ => Err(TextFault::Past { bits }),
    }
  }

  /// As `read`, refusing `got` (the JS value `text` came from) as the argument `argument`.
  pub fn read_argument(
    self,
    text: &str,
    bits: u32,
    argument: &'static str,
    got: &Input,
  ) -> Result<u128, FlakeError> {
    self.read(text, bits).map_err(|fault| FlakeError::Text {
      argument: argument.into(),
      expected: self.expected(bits),
      got: got.clone(),
      fault,
    })
  }

  /// `value` in this form, `N` characters (its `width` for the id's bits), zero-padded (which
  /// decimal's own form is not: the 64-bit ids' decimal text is JS's `BigInt` text).
  #[inline]
  pub fn write<const N: usize>(self, value: u128) -> [u8; N] {
    let alphabet = self.alphabet();
    let mut text = [alphabet[0]; N];
    match self {
      Self::Base32 | Self::Hex => {
        let shift = alphabet.len().trailing_zeros();
        let mask = alphabet.len() as u128 - 1;
        for (at, digit) in text.iter_mut().rev().enumerate() {
          *digit = alphabet[(value >> (shift * at as u32) & mask) as usize];
        }
      }
      Self::Base62 | Self::Decimal => by_division(value, alphabet, &mut text),
    }
    text
  }
}

/// The 128-bit value `text` writes in one of `WIDE_FORMS`, which their widths tell apart.
pub fn read_wide(text: &str) -> Option<u128> {
  WIDE_FORMS
    .into_iter()
    .find(|form| text.len() == form.width(u128::BITS))
    .and_then(|form| form.read(text, u128::BITS).ok())
}

/// Writes `value` into `text` in the digits of `alphabet`, by chunks of the most digits below
/// 2^64: a u128 division (a library call) per chunk while the value is past 64 bits, u64 ones
/// (a multiplication each) for each digit.
#[inline(always)]
fn by_division(value: u128, alphabet: &[u8], text: &mut [u8]) {
  let radix = alphabet.len() as u64;
  let (mut chunk_digits, mut chunk) = (1, radix);
  while let Some(next) = chunk.checked_mul(radix) {
    chunk_digits += 1;
    chunk = next;
  }
  let mut rest = value;
  for part in text.rchunks_mut(chunk_digits) {
    let mut digits = if rest > u128::from(u64::MAX) {
      let digits = (rest % u128::from(chunk)) as u64;
      rest /= u128::from(chunk);
      digits
    } else {
      let small = rest as u64;
      rest = u128::from(small / chunk);
      small % chunk
    };
    for digit in part.iter_mut().rev() {
      *digit = alphabet[(digits % radix) as usize];
      digits /= radix;
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn widths_are_the_fewest_characters_that_hold_the_bits() {
    let widths = |bits| FORMS.map(|form| form.width(bits));
    assert_eq!(widths(64), [20, 13, 11, 16]);
    assert_eq!(widths(128), [39, 26, 22, 32]);
  }

  #[test]
  fn each_form_reads_back_what_it_writes_and_sorts_as_the_ids() {
    let edges: [u128; 6] = [0, 1, 61, 62, u128::from(u64::MAX) - 1, u128::from(u64::MAX)];
    let mut previous: Option<[u8; 13]> = None;
    for value in edges {
      let text = Form::Base32.write::<13>(value);
      assert_eq!(
        Form::Base32.read(std::str::from_utf8(&text).unwrap(), 64),
        Ok(value)
      );
      assert!(previous.is_none_or(|previous| previous < text));
      previous = Some(text);
      let base62 = Form::Base62.write::<11>(value);
      assert_eq!(
        Form::Base62.read(std::str::from_utf8(&base62).unwrap(), 64),
        Ok(value)
      );
      let hex = Form::Hex.write::<16>(value);
      assert_eq!(std::str::from_utf8(&hex).unwrap(), format!("{value:016x}"));
      let decimal = value.to_string();
      assert_eq!(Form::Decimal.read(&decimal, 64), Ok(value));
    }
    for value in [0, 1, u128::MAX - 1, u128::MAX] {
      let text = Form::Base32.write::<26>(value);
      assert_eq!(
        Form::Base32.read(std::str::from_utf8(&text).unwrap(), 128),
        Ok(value)
      );
      let text = Form::Base62.write::<22>(value);
      assert_eq!(
        Form::Base62.read(std::str::from_utf8(&text).unwrap(), 128),
        Ok(value)
      );
    }
    // TSID's and ULID's form: the bits behind leading zero bits, 5 to a character.
    assert_eq!(
      &Form::Base32.write::<13>(u128::from(u64::MAX)),
      b"FZZZZZZZZZZZZ"
    );
    assert_eq!(
      &Form::Base32.write::<26>(u128::MAX),
      b"7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
    );
  }

  #[test]
  fn bad_text_is_refused_saying_why() {
    assert_eq!(Form::Base32.read("0123", 64), Err(TextFault::Length(4)));
    assert_eq!(Form::Decimal.read("", 64), Err(TextFault::Length(0)));
    assert_eq!(Form::Decimal.read("007", 64), Err(TextFault::LeadingZero));
    assert_eq!(Form::Decimal.read("0", 64), Ok(0));
    assert_eq!(
      Form::Decimal.read("184467440737095516150", 64),
      Err(TextFault::Length(21))
    );
    // Crockford's decoding would read these as 1, 1, 0 and A: one id would have many texts.
    for (text, character) in [
      ("0000000000I00", 'I'),
      ("0000000000l00", 'l'),
      ("000000000000a", 'a'),
    ] {
      let at = text.find(character).unwrap();
      assert_eq!(
        Form::Base32.read(text, 64),
        Err(TextFault::Character { character, at })
      );
    }
    assert_eq!(
      Form::Hex.read("00000000000000A0", 64),
      Err(TextFault::Character {
        character: 'A',
        at: 14
      })
    );
    // The character's index, not its byte's.
    assert_eq!(
      Form::Base62.read("é0000000000", 64),
      Err(TextFault::Character {
        character: 'é',
        at: 0
      })
    );
    assert_eq!(
      Form::Base32.read("G000000000000", 64),
      Err(TextFault::Past { bits: 64 })
    );
    assert_eq!(
      Form::Base62.read("LygHa16AHYG", 64),
      Err(TextFault::Past { bits: 64 })
    );
    assert_eq!(
      Form::Base62.read("LygHa16AHYF", 64),
      Ok(u128::from(u64::MAX))
    );
    assert_eq!(
      Form::Decimal.read("18446744073709551616", 64),
      Err(TextFault::Past { bits: 64 })
    );
    assert_eq!(
      Form::Base32.read("80000000000000000000000000", 128),
      Err(TextFault::Past { bits: 128 })
    );
  }
}

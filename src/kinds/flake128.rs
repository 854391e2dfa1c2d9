//! Boundary's flake: 128-bit ids of 64 bits of ms since 1970 | a 48-bit worker id (a MAC
//! address, by default) | a 16-bit sequence, made from an id of `SHAPE` (ms | sequence), a
//! 64-bit layout whose state every process of the host shares: so they share one worker id.
//! Written as 16 big-endian bytes, or in base 62 with 22 digits (0-9, A-Z, a-z: ASCII order),
//! zero-padded, so that string order is numeric order.

use crate::error::FlakeError;
use crate::input::Input;
use crate::kinds::behaviour::{Does, PartValue, Parts as KindParts, Text};
use crate::kinds::layout::{Order, Shape};
use crate::kinds::text::{read_wide, Form};

/// Bits of the sequence.
const SEQUENCE_BITS: u8 = 16;
/// The largest worker id: 48 bits.
pub const MAX_WORKER: u64 = (1 << 48) - 1;

/// The layout of the ids flakes are made from: ms since 1970 (48 bits, as far as a state word
/// counts and further) | sequence.
pub const SHAPE: Shape = Shape {
  time_bits: 48,
  unit_ms: 1,
  node_bits: 0,
  sequence_bits: SEQUENCE_BITS,
  order: Order::NodeSequence,
};

/// Digits of the base-62 form: enough for 2^128 − 1 (62^22 > 2^128).
pub const BASE62_DIGITS: usize = Form::Base62.width(u128::BITS);

/// What the readers of base-62 flakes expect, as their errors say it.
pub const BASE62_EXPECTED: &str = "22 base-62 digits (0-9, A-Z, a-z) of at most 2^128 - 1";

/// What flakes do, for their row of `KINDS`.
pub const DOES: Does = Does {
  make,
  text,
  parse,
  holds: |_| true,
  has_form,
  read: |got, bytes| read(got, bytes).map(u128::to_be_bytes),
  parts: kind_parts,
};

/// The flake for `id` (an id of `SHAPE`) and `worker`; flakes draw no random bits.
#[inline(always)]
fn make(id: u64, worker: u64, _random: u64) -> [u8; 16] {
  value(id, worker).to_be_bytes()
}

/// The base-62 form of the flake `flake`.
#[inline(always)]
fn text(flake: &[u8; 16]) -> Text {
  Text::of(&base62(u128::from_be_bytes(*flake)))
}

/// The flake whose base-62 form is `text`.
fn parse(text: &str) -> Option<[u8; 16]> {
  from_base62(text).map(u128::to_be_bytes)
}

/// The parts of `flake` by its row's names.
fn kind_parts(flake: &[u8; 16]) -> KindParts {
  let parts = parts(u128::from_be_bytes(*flake));
  KindParts {
    timestamp: parts.timestamp,
    values: [
      PartValue::Number(parts.worker),
      PartValue::Number(u64::from(parts.sequence)),
    ],
  }
}

/// The flake for `id` (an id of `SHAPE`) and `worker`, as a number.
#[inline(always)]
pub fn value(id: u64, worker: u64) -> u128 {
  let (ms, sequence) = (id >> SEQUENCE_BITS, id & ((1 << SEQUENCE_BITS) - 1));
  u128::from(ms) << 64 | u128::from(worker) << SEQUENCE_BITS | u128::from(sequence)
}

/// A flake's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
  /// ms since 1970.
  pub timestamp: u64,
  pub worker: u64,
  pub sequence: u16,
}

/// The parts of `flake`.
pub fn parts(flake: u128) -> Parts {
  Parts {
    timestamp: (flake >> 64) as u64,
    worker: (flake >> SEQUENCE_BITS) as u64 & MAX_WORKER,
    sequence: flake as u16,
  }
}

/// `flake` in base 62, 22 digits.
#[inline]
pub fn base62(flake: u128) -> [u8; BASE62_DIGITS] {
  Form::Base62.write(flake)
}

/// The flake `text` writes in base 62 (exactly 22 digits), if it is one.
pub fn from_base62(text: &str) -> Option<u128> {
  Form::Base62.read(text, u128::BITS).ok()
}

/// The flake `text` writes, spaces around it aside: 22 base-62 digits, 26 base32 ones (ULID's
/// form), or `0x` and 32 hex digits (as `FlakeId.decompose` reads 64-bit ids).
pub fn from_text(text: &str) -> Option<u128> {
  let text = text.trim();
  match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
    Some(hex) if hex.len() == 32 && hex.bytes().all(|digit| digit.is_ascii_hexdigit()) => {
      u128::from_str_radix(hex, 16).ok()
    }
    Some(_) => None,
    None => read_wide(text),
  }
}

/// Whether `text`, spaces around it aside (as `from_text` reads it), has a flake's form, whatever
/// its value: 0x and 32 hex digits, or 22 base-62 digits that do not start with 0x (as base 62,
/// a time millions of years away: hex's prefix).
fn has_form(text: &str) -> bool {
  let text = text.trim();
  match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
    Some(hex) => hex.len() == 32 && hex.bytes().all(|digit| digit.is_ascii_hexdigit()),
    None => text.len() == BASE62_DIGITS && text.bytes().all(|digit| digit.is_ascii_alphanumeric()),
  }
}

/// What the readers of flakes in any form expect, as their errors say it.
const EXPECTED: &str = "a Flake128: 16 bytes, a bigint below 2^128, 22 base-62 digits, 26 base32 \
                        characters (as ULID writes them) or 0x and 32 hex digits";

/// The flake `got` is: 16 bytes (`bytes`, when `got` is a Uint8Array), a bigint, 22 base-62
/// digits or 0x and 32 hex digits; errors name it `id`.
pub fn read(got: &Input, bytes: Option<&[u8]>) -> Result<u128, FlakeError> {
  let range = || FlakeError::ArgumentRange {
    argument: "id".into(),
    expected: EXPECTED.into(),
    got: got.clone(),
  };
  match got {
    Input::Bytes(_) => bytes
      .and_then(|bytes| <[u8; 16]>::try_from(bytes).ok())
      .map(u128::from_be_bytes)
      .ok_or_else(range),
    Input::BigInt(digits) => digits.parse::<u128>().map_err(|_| range()),
    Input::String(text) => from_text(text).ok_or_else(|| FlakeError::ArgumentValue {
      argument: "id".into(),
      expected: EXPECTED.into(),
      got: got.clone(),
    }),
    _ => Err(FlakeError::ArgumentType {
      argument: "id".into(),
      expected: EXPECTED.into(),
      got: got.clone(),
    }),
  }
}

//! UUIDv7 (RFC 9562 §5.7) made from an id of `SHAPE`, a 64-bit layout whose state every process
//! of the host shares: 48 bits of Unix ms and a 15-bit counter, from 0 at each ms (§6.2 method
//! 1, a fixed bit-length dedicated counter). A counter, not more clock precision (method 3):
//! what orders ids across processes is the one shared state word, and it counts. 15 bits: the
//! time field is then exactly the UUID's 48 bits, and 32,768 ids per ms per host is more than
//! a host's calls reach, so a loop of calls is never held back by the counter.
//!
//! The bits: `unix_ts_ms` (48) | version `0111` | the counter's high 12 bits (`rand_a`) |
//! variant `10` | the counter's low 3 bits | 59 random bits (`random`).

use crate::error::FlakeError;
use crate::input::Input;
use crate::kinds::behaviour::{Does, PartValue, Parts as KindParts, Text};
use crate::kinds::layout::{Order, Shape};
use crate::kinds::text::read_wide;

/// Bits of the counter.
const COUNTER_BITS: u8 = 15;
/// Random bits, after the counter's low 3.
pub const RANDOM_BITS: u32 = 59;

/// The layout of the ids UUIDv7s are made from: ms since 1970 | counter.
pub const SHAPE: Shape = Shape {
  time_bits: 48,
  unit_ms: 1,
  node_bits: 0,
  sequence_bits: COUNTER_BITS,
  order: Order::NodeSequence,
};

/// What `parse` and the readers of UUIDs expect, as their errors say it.
pub const EXPECTED: &str = "a UUIDv7 (8-4-4-4-12 hex digits, version 7, variant 10)";
/// What the readers of UUIDs in any form expect.
const READ_EXPECTED: &str = "a UUIDv7 (8-4-4-4-12 hex digits, 26 base32 characters as ULID \
                             writes them, or 22 base62 ones; version 7, variant 10)";
/// What the readers of UUIDs as bytes expect.
pub const BYTES_EXPECTED: &str = "16 bytes of a UUIDv7 (version 7, variant 10)";

/// What UUIDv7s do, for their row of `KINDS`.
pub const DOES: Does = Does {
  make,
  text,
  parse,
  holds,
  has_form,
  read,
  parts: kind_parts,
};

const VERSION: u64 = 0x7000;
const VARIANT: u64 = 0b10 << 62;
const LOW_COUNTER_BITS: u32 = 3;

/// The UUID for `id` (an id of `SHAPE`) and 64 random bits, of which it keeps 59.
#[inline(always)]
pub fn bytes(id: u64, random: u64) -> [u8; 16] {
  let (ms, counter) = (id >> COUNTER_BITS, id & ((1 << COUNTER_BITS) - 1));
  let high = ms << 16 | VERSION | counter >> LOW_COUNTER_BITS;
  let low = VARIANT
    | (counter & ((1 << LOW_COUNTER_BITS) - 1)) << RANDOM_BITS
    | random >> (64 - RANDOM_BITS);
  let mut uuid = [0; 16];
  uuid[..8].copy_from_slice(&high.to_be_bytes());
  uuid[8..].copy_from_slice(&low.to_be_bytes());
  uuid
}

/// The UUID for `id` (an id of `SHAPE`) and 64 random bits; UUIDs carry no worker id.
#[inline(always)]
fn make(id: u64, _worker: u64, random: u64) -> [u8; 16] {
  bytes(id, random)
}

/// A UUIDv7's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
  /// Unix ms.
  pub timestamp: u64,
  /// The 15-bit counter.
  pub sequence: u16,
  /// The 59 random bits.
  pub random: u64,
}

/// The parts of `uuid`, if it is a UUIDv7 (version 7, variant `10`).
pub fn parts(uuid: &[u8; 16]) -> Option<Parts> {
  let high = u64::from_be_bytes(uuid[..8].try_into().expect("8 bytes"));
  let low = u64::from_be_bytes(uuid[8..].try_into().expect("8 bytes"));
  (high & 0xf000 == VERSION && low >> 62 == VARIANT >> 62).then(|| fields(high, low))
}

/// The parts in the bits of a UUIDv7 whose halves are `high` and `low`.
fn fields(high: u64, low: u64) -> Parts {
  let counter_high = (high & 0xfff) << LOW_COUNTER_BITS;
  let counter_low = (low >> RANDOM_BITS) & ((1 << LOW_COUNTER_BITS) - 1);
  Parts {
    timestamp: high >> 16,
    sequence: (counter_high | counter_low) as u16,
    random: low & ((1 << RANDOM_BITS) - 1),
  }
}

/// Whether `uuid` is a UUIDv7 (version 7, variant `10`).
fn holds(uuid: &[u8; 16]) -> bool {
  parts(uuid).is_some()
}

/// The parts of `uuid`, a UUIDv7 (its readers checked), by its row's names.
fn kind_parts(uuid: &[u8; 16]) -> KindParts {
  let high = u64::from_be_bytes(uuid[..8].try_into().expect("8 bytes"));
  let low = u64::from_be_bytes(uuid[8..].try_into().expect("8 bytes"));
  let parts = fields(high, low);
  KindParts {
    timestamp: parts.timestamp,
    values: [
      PartValue::Number(u64::from(parts.sequence)),
      PartValue::BigInt(parts.random),
    ],
  }
}

const HEX: &[u8; 16] = b"0123456789abcdef";
/// Where the hyphens of the canonical form are.
const HYPHENS: [usize; 4] = [8, 13, 18, 23];

/// The canonical form of `uuid`: 36 lowercase characters, 8-4-4-4-12.
#[inline(always)]
pub fn format(uuid: &[u8; 16]) -> [u8; 36] {
  let mut text = [b'-'; 36];
  let mut at = 0;
  for (i, byte) in uuid.iter().enumerate() {
    // Before bytes 4, 6, 8 and 10 comes a hyphen.
    if matches!(i, 4 | 6 | 8 | 10) {
      at += 1;
    }
    text[at] = HEX[usize::from(byte >> 4)];
    text[at + 1] = HEX[usize::from(byte & 0xf)];
    at += 2;
  }
  text
}

/// The canonical form of `uuid`.
#[inline(always)]
fn text(uuid: &[u8; 16]) -> Text {
  Text::of(&format(uuid))
}

/// Whether `text` has a UUID's canonical form (in either case), whatever its version and variant.
fn has_form(text: &str) -> bool {
  let text = text.as_bytes();
  text.len() == 36
    && text.iter().enumerate().all(|(at, &character)| {
      if HYPHENS.contains(&at) {
        character == b'-'
      } else {
        character.is_ascii_hexdigit()
      }
    })
}

/// The bytes of `text` if it is a UUID's canonical form (in either case) of a UUIDv7.
pub fn parse(text: &str) -> Option<[u8; 16]> {
  let text = text.as_bytes();
  if text.len() != 36 || HYPHENS.iter().any(|&at| text[at] != b'-') {
    return None;
  }
  let mut digits = text
    .iter()
    .enumerate()
    .filter(|(at, _)| !HYPHENS.contains(at))
    .map(|(_, &digit)| (digit as char).to_digit(16));
  let mut uuid = [0; 16];
  for byte in &mut uuid {
    *byte = (digits.next()?? << 4 | digits.next()??) as u8;
  }
  parts(&uuid).map(|_| uuid)
}

/// The UUIDv7 `got` is: its canonical form, its 26 base32 characters (ULID's form) or 22 base62
/// ones, or exactly 16 bytes (`bytes`, when `got` is a Uint8Array); errors name it `id`.
pub fn read(got: &Input, bytes: Option<&[u8]>) -> Result<[u8; 16], FlakeError> {
  let (argument, got_) = ("id".into(), got.clone());
  match (got, bytes.map(<[u8; 16]>::try_from)) {
    (Input::Bytes(_), Some(Ok(uuid))) => {
      parts(&uuid).map(|_| uuid).ok_or(FlakeError::ArgumentValue {
        argument,
        expected: BYTES_EXPECTED.into(),
        got: got_,
      })
    }
    (Input::Bytes(_), _) => Err(FlakeError::ArgumentRange {
      argument,
      expected: BYTES_EXPECTED.into(),
      got: got_,
    }),
    (Input::String(text), _) => parse(text)
      .or_else(|| Some(read_wide(text)?.to_be_bytes()).filter(holds))
      .ok_or(FlakeError::ArgumentValue {
        argument,
        expected: READ_EXPECTED.into(),
        got: got_,
      }),
    _ => Err(FlakeError::ArgumentType {
      argument,
      expected: EXPECTED.into(),
      got: got_,
    }),
  }
}

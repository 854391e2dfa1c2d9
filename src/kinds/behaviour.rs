//! What a 128-bit kind's ids do, as its row of `KINDS` holds it (`Does`: its module's
//! functions), and the values those hand back: an id's text, its parts. A file of its own, below
//! `kinds/mod.rs` and the kinds' modules, which all use it.

use crate::error::FlakeError;
use crate::input::Input;

/// A kind's reader: the id a value is (`Input`), given its bytes when it is a Uint8Array.
pub type Reader = fn(&Input, Option<&[u8]>) -> Result<[u8; 16], FlakeError>;

/// What a 128-bit kind's ids do: its module's functions, which the N-API layer calls through
/// its row (see `Wide`).
#[derive(Debug)]
pub struct Does {
  /// The id made from an id of the row's `shape`, the call's worker id and 64 random bits (the
  /// row's `worker` and `random` say which it reads).
  pub make: fn(u64, u64, u64) -> [u8; 16],
  /// Its text: a UUID's canonical form, a flake's base 62.
  pub text: fn(&[u8; 16]) -> Text,
  /// The id whose text form (`text`'s) is the one given.
  pub parse: fn(&str) -> Option<[u8; 16]>,
  /// Whether 16 bytes are one of its ids (a UUIDv7's version and variant).
  pub holds: fn(&[u8; 16]) -> bool,
  /// Whether a text has the form of its text, whatever the value it writes (spaces around it
  /// aside where its reader takes them): the command's `decompose` reads a text of its form as
  /// its id, leaving a bad one's refusal to its reader, and any other as a 64-bit id.
  pub has_form: fn(&str) -> bool,
  /// The id that a value is, in any form its readers take (the bytes, when it is a
  /// Uint8Array); errors name it `id`.
  pub read: Reader,
  /// The parts of one of its ids.
  pub parts: fn(&[u8; 16]) -> Parts,
}

/// A 128-bit id's text: its characters and how many there are.
pub struct Text {
  characters: [u8; 36],
  length: usize,
}

impl Text {
  /// The text of `characters`, at most 36.
  pub(super) fn of(characters: &[u8]) -> Self {
    let mut text = Self {
      characters: [0; 36],
      length: characters.len(),
    };
    text.characters[..characters.len()].copy_from_slice(characters);
    text
  }

  /// The characters, all ASCII.
  pub fn as_bytes(&self) -> &[u8] {
    &self.characters[..self.length]
  }
}

/// A part's value as JS gets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartValue {
  /// Below 2^53: a number.
  Number(u64),
  /// A bigint.
  BigInt(u64),
}

/// A 128-bit id's parts: its time, and the others by the names of its row's `parts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
  /// Ms since 1970.
  pub timestamp: u64,
  pub values: [PartValue; 2],
}

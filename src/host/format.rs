//! The state file's layout: a header page, then one state word per generator id, each on a
//! cache line of its own so that processes busy on different ids do not contend for one line.
//! Generators of every epoch keep their state in ms since 1970, so one file per directory holds
//! them all; its header says epoch 0, the epoch its words count from.
//!
//! ```text
//! 0     8 bytes  magic "FLAKEIDS"
//! 8     u32 LE   format version (1)
//! 12    u32 LE   header size (4096)
//! 16    u64 LE   epoch (0: the words count ms since 1970)
//! 24    u32 LE   word count (1024)
//! 28    u32 LE   line size (64)
//! 32    u64, native byte order: the start, ms since 1970 (0 in a fresh file): no id is issued at
//!       or before it (see `host::file`); files without it read 0, and mean the same
//! 4096 + 64 × id  u64, native byte order: the sequencer's state word (all ones: nothing issued)
//! ```

use crate::layout::MAX_NODE;
use crate::sequencer::NOTHING_ISSUED;

/// The first 8 bytes of every state file.
pub const MAGIC: [u8; 8] = *b"FLAKEIDS";
/// The state file's name in its directory.
pub const FILE_NAME: &str = "epoch-0.state";
/// The epoch a header records: every state word counts ms since 1970, whatever its generator's
/// epoch.
pub const EPOCH: u64 = 0;
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// A page, so that the words start page-aligned whatever the platform's page size up to 4 KiB.
pub const HEADER_LEN: usize = 4096;
/// One state word per generator id.
pub const WORDS: usize = MAX_NODE as usize + 1;
/// The bytes each word has to itself: a cache line.
pub const LINE: usize = 64;
/// The exact size of every state file; any other size is refused before mapping.
pub const FILE_LEN: usize = HEADER_LEN + WORDS * LINE;

/// Where the start is: an atomic word of the header, raised in place by the first process to
/// map the file.
pub const START_OFFSET: usize = 32;

/// Where generator `id`'s word is.
pub const fn word_offset(id: u16) -> usize {
  HEADER_LEN + id as usize * LINE
}

/// The whole content of a fresh file: its header and every word "nothing issued".
pub fn fresh() -> Vec<u8> {
  let mut bytes = vec![0; FILE_LEN];
  bytes[0..8].copy_from_slice(&MAGIC);
  bytes[8..12].copy_from_slice(&VERSION.to_le_bytes());
  bytes[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
  bytes[16..24].copy_from_slice(&EPOCH.to_le_bytes());
  bytes[24..28].copy_from_slice(&(WORDS as u32).to_le_bytes());
  bytes[28..32].copy_from_slice(&(LINE as u32).to_le_bytes());
  for id in 0..WORDS as u16 {
    let at = word_offset(id);
    bytes[at..at + 8].copy_from_slice(&NOTHING_ISSUED.to_ne_bytes());
  }
  bytes
}

/// Why `header` (the first 32 bytes of a file) is not the header this version writes, if it is
/// not.
pub fn check_header(header: &[u8; 32]) -> Result<(), String> {
  let u32_at = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().unwrap());
  if header[0..8] != MAGIC {
    return Err("not a flake-idgen state file (wrong magic)".into());
  }
  let version = u32_at(8);
  if version != VERSION {
    return Err(format!(
      "format version {version}, this version reads {VERSION}"
    ));
  }
  let found = (u32_at(12), u32_at(24), u32_at(28));
  let expected = (HEADER_LEN as u32, WORDS as u32, LINE as u32);
  if found != expected {
    return Err(format!(
      "header, word count and line size are {found:?}, expected {expected:?}"
    ));
  }
  let stored = u64::from_le_bytes(header[16..24].try_into().unwrap());
  if stored != EPOCH {
    return Err(format!("holds epoch {stored}, its name says {EPOCH}"));
  }
  Ok(())
}

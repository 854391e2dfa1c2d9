//! The state file's layout: a header page, then one state word per generator id, each on a
//! cache line of its own so that processes busy on different ids do not contend for one line.
//! Generators of every epoch keep their state in ms since 1970, so in epoch 0's file: one file
//! per directory. (Files of other epochs were written by earlier builds; `flake-idgen state`
//! still lists and resets them.)
//!
//! ```text
//! 0     8 bytes  magic "FLAKEIDS"
//! 8     u32 LE   format version (1)
//! 12    u32 LE   header size (4096)
//! 16    u64 LE   epoch (ms since 1970)
//! 24    u32 LE   word count (1024)
//! 28    u32 LE   line size (64)
//! 4096 + 64 × id  u64, native byte order: the sequencer's state word (all ones: nothing issued)
//! ```

use crate::layout::MAX_NODE;
use crate::sequencer::NOTHING_ISSUED;

pub const MAGIC: [u8; 8] = *b"FLAKEIDS";
/// The epoch whose file holds every generator's state: their words count ms since 1970.
pub const SHARED_EPOCH: u64 = 0;
pub const VERSION: u32 = 1;
/// A page, so that the words start page-aligned whatever the platform's page size up to 4 KiB.
pub const HEADER_LEN: usize = 4096;
pub const WORDS: usize = MAX_NODE as usize + 1;
pub const LINE: usize = 64;
/// The exact size of every state file; any other size is refused before mapping.
pub const FILE_LEN: usize = HEADER_LEN + WORDS * LINE;

/// Where generator `id`'s word is.
pub const fn word_offset(id: u16) -> usize {
  HEADER_LEN + id as usize * LINE
}

/// The file name of `epoch`'s state.
pub fn file_name(epoch: u64) -> String {
  format!("epoch-{epoch}.state")
}

/// The epoch a state file's name is for, if it is one.
pub fn epoch_of(name: &str) -> Option<u64> {
  let digits = name.strip_prefix("epoch-")?.strip_suffix(".state")?;
  let canonical = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
  canonical.then(|| digits.parse().ok()).flatten()
}

/// The whole content of a fresh file for `epoch`: its header and every word "nothing issued".
pub fn fresh(epoch: u64) -> Vec<u8> {
  let mut bytes = vec![0; FILE_LEN];
  bytes[0..8].copy_from_slice(&MAGIC);
  bytes[8..12].copy_from_slice(&VERSION.to_le_bytes());
  bytes[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
  bytes[16..24].copy_from_slice(&epoch.to_le_bytes());
  bytes[24..28].copy_from_slice(&(WORDS as u32).to_le_bytes());
  bytes[28..32].copy_from_slice(&(LINE as u32).to_le_bytes());
  for id in 0..WORDS as u16 {
    let at = word_offset(id);
    bytes[at..at + 8].copy_from_slice(&NOTHING_ISSUED.to_ne_bytes());
  }
  bytes
}

/// Why `header` (the first 32 bytes of a file) is not `epoch`'s header, if it is not.
pub fn check_header(header: &[u8; 32], epoch: u64) -> Result<(), String> {
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
  if stored != epoch {
    return Err(format!("holds epoch {stored}, its name says {epoch}"));
  }
  Ok(())
}

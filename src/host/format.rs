//! The state file's layout: a header page, then one state word per node id of its shape, each
//! on a cache line of its own so that processes busy on different ids do not contend for one
//! line. Generators of every epoch keep their state in time units since 1970, so one file per
//! directory and shape holds them all; its header says epoch 0, the epoch its words count from.
//!
//! ```text
//! 0     8 bytes  magic "FLAKEIDS"
//! 8     u32 LE   format version (1)
//! 12    u32 LE   header size (4096)
//! 16    u64 LE   epoch (0: the words count units since 1970)
//! 24    u32 LE   word count (2^nodeBits: 1024 for flake-idgen's shape)
//! 28    u32 LE   line size (64)
//! 32    u64, native byte order: the start, ms since 1970 (0 in a fresh file): no id is issued at
//!       or before it (see `host::file`); files without it read 0, and mean the same
//! 40    u32 LE   the shape, `Shape::pack() + 1`; 0 for flake-idgen's (and every older file)
//! 48    2 × u64, native byte order: the home, the identity (device, inode) of the file as its
//!       last first mapping found it; 0, 0 in a fresh file: a copy's differs from its own, so
//!       its words are not trusted (see `host::file`)
//! 4096 + 64 × id  u64, native byte order: the sequencer's state word (all ones: nothing issued)
//! ```

use std::io::{self, Write};

use crate::kinds::layout::Shape;
use crate::sequencer::NOTHING_ISSUED;

/// The first 8 bytes of every state file.
pub const MAGIC: [u8; 8] = *b"FLAKEIDS";
/// flake-idgen's shape's state file's name in its directory (its name from before layouts).
pub const FILE_NAME: &str = "epoch-0.state";
/// The epoch a header records: every state word counts ms since 1970, whatever its generator's
/// epoch.
pub const EPOCH: u64 = 0;
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// A page, so that the words start page-aligned whatever the platform's page size up to 4 KiB.
pub const HEADER_LEN: usize = 4096;
/// The bytes each word has to itself: a cache line.
pub const LINE: usize = 64;
/// Where the start is: an atomic word of the header, raised in place by the first process to
/// map the file.
pub const START_OFFSET: usize = 32;
/// Where a file of a shape other than flake-idgen's records it: `Shape::pack() + 1`, a `u32` LE
/// (0 in flake-idgen's file, as in every file from before layouts).
const SHAPE_OFFSET: usize = 40;
/// Where the home is: two atomic words of the header, written by a first mapping that finds
/// another file's identity there (or none).
pub const HOME_OFFSET: usize = 48;
/// The header bytes `check_header` reads.
pub const HEADER_CHECKED: usize = 44;

/// Where node id `id`'s word is.
pub const fn word_offset(id: u16) -> usize {
  HEADER_LEN + id as usize * LINE
}

/// The state file of one shape: one word per node id of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
  pub shape: Shape,
}

impl Format {
  /// flake-idgen's shape's file, as every state file was before layouts.
  pub const DEFAULT: Self = Self {
    shape: Shape::FLAKE_IDGEN,
  };

  /// The file's name in its directory: `epoch-0.state` for flake-idgen's shape, else named by
  /// the shape's key (`layout-41_seq6_node16.state`), so two shapes never share a file.
  pub fn file_name(self) -> String {
    if self == Self::DEFAULT {
      FILE_NAME.into()
    } else {
      format!("layout-{}.state", self.shape.key().replace('/', "_"))
    }
  }

  /// One state word per node id.
  pub const fn words(self) -> usize {
    1 << self.shape.node_bits
  }

  /// The exact size of the file; any other size is refused before mapping.
  pub const fn file_len(self) -> usize {
    HEADER_LEN + self.words() * LINE
  }

  /// Writes the whole content of a fresh file into `out`: its header and every word "nothing
  /// issued". A page at a time: a shape of 65,536 node ids has a 4 MiB file, never held whole.
  pub fn write_fresh(self, out: &mut impl Write) -> io::Result<()> {
    let mut header = vec![0; HEADER_LEN];
    header[0..8].copy_from_slice(&MAGIC);
    header[8..12].copy_from_slice(&VERSION.to_le_bytes());
    header[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
    header[16..24].copy_from_slice(&EPOCH.to_le_bytes());
    header[24..28].copy_from_slice(&(self.words() as u32).to_le_bytes());
    header[28..32].copy_from_slice(&(LINE as u32).to_le_bytes());
    header[SHAPE_OFFSET..SHAPE_OFFSET + 4].copy_from_slice(&self.recorded_shape().to_le_bytes());
    out.write_all(&header)?;
    let page = self.words_page(NOTHING_ISSUED);
    for _ in 0..self.words() * LINE / page.len() {
      out.write_all(&page)?;
    }
    Ok(())
  }

  /// A page (or less, for a file of fewer words) of lines whose words all hold `word`.
  fn words_page(self, word: u64) -> Vec<u8> {
    let mut page = vec![0; (self.words() * LINE).min(HEADER_LEN)];
    for line in page.chunks_exact_mut(LINE) {
      line[..8].copy_from_slice(&word.to_ne_bytes());
    }
    page
  }

  /// What the header records of the shape.
  fn recorded_shape(self) -> u32 {
    if self == Self::DEFAULT {
      0
    } else {
      self.shape.pack() + 1
    }
  }

  /// Why `header` (the first `HEADER_CHECKED` bytes of a file) is not the header this version
  /// writes for this shape, if it is not.
  pub fn check_header(self, header: &[u8; HEADER_CHECKED]) -> Result<(), String> {
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
    let expected = (HEADER_LEN as u32, self.words() as u32, LINE as u32);
    if found != expected {
      return Err(format!(
        "header, word count and line size are {found:?}, expected {expected:?}"
      ));
    }
    let stored = u64::from_le_bytes(header[16..24].try_into().unwrap());
    if stored != EPOCH {
      return Err(format!("holds epoch {stored}, its name says {EPOCH}"));
    }
    let shape = u32_at(SHAPE_OFFSET);
    if shape != self.recorded_shape() {
      return Err(format!(
        "records layout {}, its name says {}",
        shape
          .checked_sub(1)
          .and_then(Shape::unpack)
          .map_or_else(|| format!("{shape:#x}"), Shape::key),
        self.shape.key()
      ));
    }
    Ok(())
  }
}

/// The exact size of flake-idgen's shape's file.
#[cfg(test)]
pub const FILE_LEN: usize = Format::DEFAULT.file_len();

#[cfg(test)]
/// The whole content of a fresh file of flake-idgen's shape.
pub fn fresh() -> Vec<u8> {
  let mut bytes = Vec::with_capacity(FILE_LEN);
  Format::DEFAULT
    .write_fresh(&mut bytes)
    .expect("a Vec takes every write");
  bytes
}

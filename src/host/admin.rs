//! What `flake-idgen state` does: list the state file of a directory, and reset one generator
//! id's state in it. Both read and write through file descriptors, never through a mapping.

use std::fs::{self, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use super::dir;
use super::file::{error, open_checked, OpenFailure};
use super::format::{word_offset, Format, FILE_LEN, FILE_NAME, WORDS};
use super::os::{read_at, write_at};
use crate::error::FlakeError;
use crate::sequencer::{last_issued, NOTHING_ISSUED};

/// The last id a generator id issued, as the state file records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
  /// The generator id.
  pub id: u16,
  /// Its timestamp, in ms since 1970.
  pub time: u64,
  /// Its sequence number.
  pub sequence: u16,
}

/// A directory's state file: its entries, or why it cannot be read.
#[derive(Debug)]
pub struct Listed {
  /// The file's path.
  pub path: PathBuf,
  /// Every generator id that has issued an id from it, by id.
  pub entries: Result<Vec<Entry>, FlakeError>,
}

/// The state file of `dir`, if it has one (a missing directory has none). A snapshot: processes
/// may be issuing ids meanwhile. A file of another name is none of ours, and is not looked at.
pub fn list(dir: &Path) -> Result<Option<Listed>, FlakeError> {
  match fs::symlink_metadata(dir) {
    Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
    _ => dir::check(dir)?,
  }
  let path = dir.join(FILE_NAME);
  let file = match open_checked(&path, Format::DEFAULT, false) {
    Err(OpenFailure::Missing) => return Ok(None),
    Err(OpenFailure::Refused(err)) => Err(err),
    Ok(file) => Ok(file),
  };
  let entries = file.and_then(|file| {
    let mut bytes = vec![0; FILE_LEN];
    read_at(&file, &mut bytes, 0).map_err(|err| error(&path, err.to_string()))?;
    Ok(entries(&bytes))
  });
  Ok(Some(Listed { path, entries }))
}

fn entries(bytes: &[u8]) -> Vec<Entry> {
  (0..WORDS as u16)
    .filter_map(|id| {
      let at = word_offset(id);
      let word = u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap());
      last_issued(Format::DEFAULT.shape.word(), word).map(|(time, sequence)| Entry {
        id,
        time,
        sequence,
      })
    })
    .collect()
}

/// What a reset did to the state file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reset {
  /// The file's path.
  pub path: PathBuf,
  /// The file held no other id's state, and was removed.
  pub removed: bool,
}

/// Forgets generator `id`'s state in the state file of `dir`, and removes the file if that
/// leaves it with no state; `None` if it has no state of `id`'s to forget. Refused, with nothing
/// changed, while any process has the file open: it would go on issuing from the state this
/// forgets.
pub fn reset(dir: &Path, id: u16) -> Result<Option<Reset>, FlakeError> {
  dir::check(dir)?;
  let path = dir.join(FILE_NAME);
  // A damaged file is left to the listing to report: it holds no state a reset could clear.
  let Ok(file) = open_checked(&path, Format::DEFAULT, true) else {
    return Ok(None);
  };
  match file.try_lock() {
    Ok(()) => {}
    Err(TryLockError::WouldBlock) => {
      return Err(FlakeError::StateInUse {
        path: path.display().to_string(),
      })
    }
    Err(TryLockError::Error(err)) => return Err(error(&path, format!("cannot lock it: {err}"))),
  }
  let mut bytes = vec![0; FILE_LEN];
  read_at(&file, &mut bytes, 0).map_err(|err| error(&path, err.to_string()))?;
  let entries = entries(&bytes);
  if !entries.iter().any(|entry| entry.id == id) {
    return Ok(None);
  }
  let others = entries.iter().any(|entry| entry.id != id);
  if others {
    write_at(&file, &NOTHING_ISSUED.to_ne_bytes(), word_offset(id) as u64)
      .and_then(|()| file.sync_all())
      .map_err(|err| error(&path, err.to_string()))?;
  } else {
    fs::remove_file(&path).map_err(|err| error(&path, err.to_string()))?;
  }
  Ok(Some(Reset {
    path,
    removed: !others,
  }))
}

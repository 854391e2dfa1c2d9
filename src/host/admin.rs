//! What `flake-idgen state` does: list the state files of a directory, and reset one generator
//! id's state. Both read and write through file descriptors, never through a mapping.

use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use super::dir;
use super::file::{error, open_checked, read_at, OpenFailure};
use super::format::{epoch_of, file_name, word_offset, FILE_LEN, WORDS};
use crate::error::FlakeError;
use crate::sequencer::{last_issued, NOTHING_ISSUED};

/// The last id a generator id issued, as one state file records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
  pub id: u16,
  /// Its timestamp, in ms after the epoch.
  pub delta: u64,
  pub sequence: u16,
}

/// A state file: its epoch and entries, or why it cannot be read.
#[derive(Debug)]
pub struct Listed {
  pub path: PathBuf,
  pub epoch: u64,
  pub entries: Result<Vec<Entry>, FlakeError>,
}

/// Every state file in `dir`, by epoch; none if `dir` does not exist. A snapshot: processes may
/// be issuing ids meanwhile.
pub fn list(dir: &Path) -> Result<Vec<Listed>, FlakeError> {
  let names = match fs::read_dir(dir) {
    Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
    read => read.map_err(|err| dir::error(dir, err.to_string()))?,
  };
  dir::check(dir)?;
  let mut listed = Vec::new();
  for name in names {
    let name = name.map_err(|err| dir::error(dir, err.to_string()))?;
    let Some(epoch) = name.file_name().to_str().and_then(epoch_of) else {
      continue;
    };
    let path = name.path();
    let entries = read(&path, epoch);
    listed.push(Listed {
      path,
      epoch,
      entries,
    });
  }
  listed.sort_by_key(|file| file.epoch);
  Ok(listed)
}

fn read(path: &Path, epoch: u64) -> Result<Vec<Entry>, FlakeError> {
  let file = open(path, epoch, false)?;
  let mut bytes = vec![0; FILE_LEN];
  read_at(&file, &mut bytes, 0).map_err(|err| error(path, err.to_string()))?;
  Ok(entries(&bytes))
}

fn entries(bytes: &[u8]) -> Vec<Entry> {
  (0..WORDS as u16)
    .filter_map(|id| {
      let at = word_offset(id);
      let word = u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap());
      last_issued(word).map(|(delta, sequence)| Entry {
        id,
        delta,
        sequence,
      })
    })
    .collect()
}

fn open(path: &Path, epoch: u64, write: bool) -> Result<File, FlakeError> {
  open_checked(path, epoch, write).map_err(|failure| match failure {
    OpenFailure::Missing => error(path, "no such file"),
    OpenFailure::Refused(err) => err,
  })
}

/// What a reset did to one state file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reset {
  pub path: PathBuf,
  pub epoch: u64,
  /// The file held no other id's state, and was removed.
  pub removed: bool,
}

/// Forgets generator `id`'s state in `epoch`'s file, or in every file of `dir` that has one,
/// and removes a file left with no state. Refused, with nothing changed, while any process has
/// one of those files open: it would go on issuing from the state this forgets.
pub fn reset(dir: &Path, id: u16, epoch: Option<u64>) -> Result<Vec<Reset>, FlakeError> {
  let epochs: Vec<u64> = match epoch {
    Some(epoch) if dir.join(file_name(epoch)).exists() => vec![epoch],
    Some(_) => Vec::new(),
    // A damaged file is left to the listing to report: it holds no state a reset could clear.
    None => list(dir)?
      .into_iter()
      .filter(|file| {
        let entries = file.entries.as_deref().unwrap_or_default();
        entries.iter().any(|entry| entry.id == id)
      })
      .map(|file| file.epoch)
      .collect(),
  };
  dir::check(dir)?;
  let mut locked = Vec::new();
  for epoch in epochs {
    let path = dir.join(file_name(epoch));
    let file = open(&path, epoch, true)?;
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
    if entries.iter().any(|entry| entry.id == id) {
      let others = entries.iter().any(|entry| entry.id != id);
      locked.push((path, epoch, file, others));
    }
  }
  // Every file is locked by now: the changes are made only once none can be refused.
  let mut done = Vec::new();
  for (path, epoch, file, others) in locked {
    if others {
      write_at(&file, &NOTHING_ISSUED.to_ne_bytes(), word_offset(id) as u64)
        .and_then(|()| file.sync_all())
        .map_err(|err| error(&path, err.to_string()))?;
    } else {
      fs::remove_file(&path).map_err(|err| error(&path, err.to_string()))?;
    }
    done.push(Reset {
      path,
      epoch,
      removed: !others,
    });
  }
  Ok(done)
}

fn write_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
  #[cfg(unix)]
  {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
  }
  #[cfg(windows)]
  {
    let mut done = 0;
    while done < buf.len() {
      done += std::os::windows::fs::FileExt::seek_write(file, &buf[done..], offset + done as u64)?;
    }
    Ok(())
  }
}

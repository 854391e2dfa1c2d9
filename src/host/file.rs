//! A state file opened without following symlinks, checked, then mapped: size and header are
//! checked on the open descriptor before anything is mapped, so a short file is refused, never
//! mapped (touching a page past its end would be SIGBUS). Nothing here ever truncates a file.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use memmap2::{MmapOptions, MmapRaw};

use super::dir;
use super::format::{check_header, fresh, word_offset, FILE_LEN, FILE_NAME};
use crate::error::FlakeError;
use crate::sequencer::Sequencer;

/// Tries at a file that a reset removes between our open and our lock.
const ATTEMPTS: usize = 5;
/// How long a shared lock is waited for: only a reset holds the exclusive one, for a moment.
const LOCK_WAIT: Duration = Duration::from_secs(1);

/// A directory's state file, mapped for as long as this value lives.
#[derive(Debug)]
pub struct HostFile {
  map: MmapRaw,
  /// Kept open (one descriptor per file, not per generator) for its shared lock: a reset takes
  /// the exclusive one, so it is refused while any process has the file mapped.
  _lock: File,
  /// The directory, held with a shared lock too: age-based cleaners of temporary directories
  /// (systemd-tmpfiles) skip a locked directory, so they do not remove a file in use.
  _dir_lock: Option<File>,
}

impl HostFile {
  /// Maps the state file of `dir`, creating the directory (0700) and the file (0600) if they
  /// are missing; refuses either when it is not safe or not what this version wrote.
  pub fn open(dir: &Path) -> Result<Self, FlakeError> {
    dir::prepare(dir)?;
    let path = dir.join(FILE_NAME);
    for _ in 0..ATTEMPTS {
      let file = match open_checked(&path, true) {
        Err(Missing) => {
          create(dir, &path)?;
          continue;
        }
        Err(Refused(err)) => return Err(err),
        Ok(file) => file,
      };
      lock_shared(&path, &file)?;
      if !still_named(&path, &file).map_err(|err| error(&path, err.to_string()))? {
        continue;
      }
      let map = MmapOptions::new()
        .len(FILE_LEN)
        .map_raw(&file)
        .map_err(|err| error(&path, format!("cannot map it: {err}")))?;
      return Ok(Self {
        map,
        _lock: file,
        _dir_lock: lock_dir(dir),
      });
    }
    Err(error(&path, "it kept being replaced while it was opened"))
  }

  /// Generator `id`'s state: a word of the mapping, shared with every process that maps it.
  pub fn sequencer(&self, id: u16) -> &Sequencer {
    // SAFETY: the mapping is FILE_LEN bytes, page-aligned, so the word is in it and 8-aligned;
    // it lives as long as `self`, and is only ever accessed atomically.
    let word = unsafe { &*self.map.as_ptr().add(word_offset(id)).cast::<AtomicU64>() };
    Sequencer::from_word(word)
  }
}

/// Why a state file could not be opened.
pub enum OpenFailure {
  /// There is no file of that name.
  Missing,
  /// There is one, and it is not safe to use or not what this version wrote.
  Refused(FlakeError),
}
use OpenFailure::{Missing, Refused};

/// `ERR_FLAKE_STATE_FILE` for the file at `path`, saying `reason`.
pub fn error(path: &Path, reason: impl Into<String>) -> FlakeError {
  FlakeError::StateFile {
    path: path.display().to_string(),
    reason: reason.into(),
  }
}

/// Opens `path` without following a symlink, and checks on the descriptor that it is a regular
/// file of this user's, of the exact size, with the header this version writes.
pub fn open_checked(path: &Path, write: bool) -> Result<File, OpenFailure> {
  let mut options = OpenOptions::new();
  options.read(true).write(write);
  #[cfg(unix)]
  {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: a FIFO planted under the name must not hang the open.
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
  }
  let file = match options.open(path) {
    Ok(file) => file,
    Err(err) if err.kind() == io::ErrorKind::NotFound => return Err(Missing),
    #[cfg(unix)]
    Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
      return Err(Refused(error(path, "it is a symlink (not followed)")))
    }
    Err(err) => return Err(Refused(error(path, err.to_string()))),
  };
  check(path, &file).map_err(Refused)?;
  Ok(file)
}

fn check(path: &Path, file: &File) -> Result<(), FlakeError> {
  let meta = file
    .metadata()
    .map_err(|err| error(path, err.to_string()))?;
  if !meta.is_file() {
    return Err(error(path, "not a regular file"));
  }
  if let Some(reason) = dir::not_ours(&meta) {
    return Err(error(path, reason));
  }
  if meta.len() != FILE_LEN as u64 {
    return Err(error(
      path,
      format!(
        "it is {} bytes, a state file is {FILE_LEN}: truncated or not ours (left as it is)",
        meta.len()
      ),
    ));
  }
  let mut header = [0; 32];
  read_at(file, &mut header, 0).map_err(|err| error(path, err.to_string()))?;
  check_header(&header).map_err(|reason| error(path, reason))
}

/// Fills `buf` from `offset`, without moving a shared cursor.
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
  #[cfg(unix)]
  {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
  }
  #[cfg(windows)]
  {
    let mut done = 0;
    while done < buf.len() {
      let n =
        std::os::windows::fs::FileExt::seek_read(file, &mut buf[done..], offset + done as u64)?;
      if n == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
      }
      done += n;
    }
    Ok(())
  }
}

/// Creates the state file whole or not at all: written in full under a temporary name, then
/// hard-linked into place, which fails if another process got there first (its file is then
/// used: it is the same fresh content).
fn create(dir: &Path, path: &Path) -> Result<(), FlakeError> {
  static COUNTER: AtomicU64 = AtomicU64::new(0);
  let temp = dir.join(format!(
    ".{FILE_NAME}.{}-{}.tmp",
    std::process::id(),
    COUNTER.fetch_add(1, Ordering::Relaxed)
  ));
  let mut options = OpenOptions::new();
  options.write(true).create_new(true);
  #[cfg(unix)]
  {
    use std::os::unix::fs::OpenOptionsExt;
    options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
  }
  let written = options.open(&temp).and_then(|mut file| {
    file.write_all(&fresh())?;
    file.sync_all()?;
    fs::hard_link(&temp, path)
  });
  let _ = fs::remove_file(&temp);
  match written {
    Ok(()) => Ok(()),
    Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
    Err(err) => Err(error(path, format!("cannot create it: {err}"))),
  }
}

fn lock_shared(path: &Path, file: &File) -> Result<(), FlakeError> {
  let step = Duration::from_millis(1);
  for _ in 0..LOCK_WAIT.as_millis() {
    match file.try_lock_shared() {
      Ok(()) => return Ok(()),
      Err(TryLockError::WouldBlock) => std::thread::sleep(step),
      Err(TryLockError::Error(err)) => return Err(error(path, format!("cannot lock it: {err}"))),
    }
  }
  Err(error(
    path,
    "another process has held it locked for over a second",
  ))
}

/// A shared lock on `dir`, if one can be had: a protection against cleaners only, so a failure
/// is no reason to refuse.
fn lock_dir(dir: &Path) -> Option<File> {
  #[cfg(unix)]
  {
    let dir = File::open(dir).ok()?;
    dir.try_lock_shared().ok()?;
    Some(dir)
  }
  #[cfg(not(unix))]
  {
    let _ = dir;
    None
  }
}

/// Whether `path` still names the open `file`: a reset removes a file only under its exclusive
/// lock, so a file still named after our shared lock is the one every process uses.
#[cfg(unix)]
fn still_named(path: &Path, file: &File) -> io::Result<bool> {
  use std::os::unix::fs::MetadataExt;
  let open = file.metadata()?;
  match fs::symlink_metadata(path) {
    Ok(named) => Ok(named.dev() == open.dev() && named.ino() == open.ino()),
    Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
    Err(err) => Err(err),
  }
}

// Windows: a file open here cannot be removed by a reset, so the name cannot have moved.
#[cfg(not(unix))]
fn still_named(_path: &Path, _file: &File) -> io::Result<bool> {
  Ok(true)
}

//! A state file, mapped, and kept honest while mapped.
//!
//! Opened by descriptor (`at`), checked on the descriptor (size, header, owner) before anything
//! is mapped, so a short file is refused, never mapped. Nothing here ever truncates a file.
//!
//! While mapped, a file can stop being the host's: removed, another put in its place, its
//! directory removed, or truncated. Every process must stop issuing from it, and a process that
//! starts on the new file must not reach ids the old one still issued. So:
//! - A process issues from its mapping only for `HORIZON_MS` of the clock after it last saw the
//!   file at its path (`renew`): an id at `t` was issued by a process that saw the file in place
//!   at `t - HORIZON_MS` or later. Seeing it gone, the process marks the mapping lost, for good.
//! - The first process to map a file (nobody else holds its lock: a new file, one put in place,
//!   or one whose processes all ended) sets its start `HORIZON_MS` ahead of the clock, and every
//!   process waits for the clock to pass the start before it issues. The file's ids all come
//!   after its first mapping plus the horizon, so after every id of any file it replaced.
//! - A truncation faults on the next touch of the lost pages; `sigbus` puts a page of spent words
//!   there and marks the mapping lost, instead of the process dying.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use memmap2::{MmapOptions, MmapRaw};

use super::dir;
use super::format::{word_offset, Format, HEADER_CHECKED, START_OFFSET};
use super::os::{self, read_at, Identity};
use crate::clock::Time;
use crate::error::FlakeError;
use crate::kinds::layout::Shape;
use crate::sequencer::Sequencer;

/// How long (ms of the clock) a process issues from a mapped state file after it last saw the
/// file at its path: the bound within which a lost file is noticed, and how far ahead of the
/// clock a new file starts (so how long the first process on a file waits). Borrowing ahead of
/// the clock (`allowedFutureMs`) on host scope reaches at most this far.
pub const HORIZON_MS: u64 = 20;

/// `verified_at` of a file not (or no longer) seen in place: no reading (at most 42 bits) is
/// within the horizon after it, even wrapping around, so the next id looks first.
const UNSEEN: u64 = u64::MAX / 2;

/// The latest reading a file is verified at: 42 bits of ms (2109).
const MAX_READING_MS: u64 = (1 << 42) - 1;

/// Tries at a file that a reset removes between our open and our lock.
const ATTEMPTS: usize = 5;
/// How long a shared lock is waited for: only a reset (or the first mapping, for a moment)
/// holds the exclusive one.
const LOCK_WAIT: Duration = Duration::from_secs(1);

/// A directory's state file, mapped for as long as this value lives.
#[derive(Debug)]
pub struct HostFile {
  map: MmapRaw,
  /// The clock reading (ms since 1970) taken before the file was last seen at its path; `UNSEEN`
  /// until the first id, and once it is lost.
  verified_at: AtomicU64,
  lost: AtomicBool,
  /// Set by the SIGBUS handler, which cannot allocate a reason.
  truncated: AtomicBool,
  /// Where the SIGBUS handler is in replacing the mapping's pages.
  #[cfg(any(target_os = "linux", target_os = "android"))]
  pages: super::sigbus::Pages,
  reason: Mutex<Option<String>>,
  /// The shape whose words it holds.
  format: Format,
  /// No id is issued at or before this time (ms since 1970): see the module's doc. Set once,
  /// while opening.
  start: AtomicU64,
  path: PathBuf,
  /// The file's own descriptor, and its identity at `path`. Kept open for its shared lock: a
  /// reset takes the exclusive one, so it is refused while any process has the file mapped.
  file: File,
  identity: Identity,
  /// The directory, held with a shared lock too: age-based cleaners of temporary directories
  /// (systemd-tmpfiles) skip a locked directory, so they do not remove a file in use.
  dir: Option<File>,
}

impl HostFile {
  /// Maps the state file of `shape` in `dir`, creating the directory (0700) and the file (0600)
  /// if they are missing; refuses either when it is not safe or not what this version wrote.
  /// Returns once the clock has passed the file's start (at most `HORIZON_MS` and a time unit
  /// after a first mapping).
  pub fn open(dir: &Path, shape: Shape, time: &mut impl Time) -> Result<&'static Self, FlakeError> {
    let format = Format { shape };
    let directory = Directory::open(dir, format)?;
    let path = dir.join(format.file_name());
    for _ in 0..ATTEMPTS {
      let file = match directory.open_file(&path, true) {
        Err(Missing) => {
          directory.create(&path)?;
          continue;
        }
        Err(Refused(err)) => return Err(err),
        Ok(file) => file,
      };
      let first = lock(&path, &file)?;
      let Some(identity) = directory.named(&file).map_err(|err| error(&path, err))? else {
        continue;
      };
      let map = MmapOptions::new()
        .len(format.file_len())
        .map_raw(&file)
        .map_err(|err| error(&path, format!("cannot map it: {err}")))?;
      let mapped = Self {
        map,
        verified_at: AtomicU64::new(UNSEEN),
        lost: AtomicBool::new(false),
        truncated: AtomicBool::new(false),
        #[cfg(any(target_os = "linux", target_os = "android"))]
        pages: super::sigbus::Pages::new(),
        reason: Mutex::new(None),
        format,
        start: AtomicU64::new(0),
        path,
        file,
        identity,
        dir: directory.locked(),
      };
      // Leaked: a mapping is never released (see `registry`), and the SIGBUS handler needs it
      // for as long as its pages can fault, before the first page is touched.
      let mapped: &'static Self = Box::leak(Box::new(mapped));
      #[cfg(any(target_os = "linux", target_os = "android"))]
      super::sigbus::watch(mapped).map_err(|reason| error(&mapped.path, reason))?;
      // The start is the last ms of its time unit: no id is issued in the unit the start is in.
      let unit = shape.unit();
      if first {
        let start = (time.now_ms() + HORIZON_MS) / unit * unit + unit - 1;
        mapped.start_word().fetch_max(start, Ordering::AcqRel);
        downgrade(&mapped.path, &mapped.file)?;
      }
      let start = mapped.start_word().load(Ordering::Acquire);
      mapped.start.store(start, Ordering::Release);
      let now = time.now_ms();
      if start >= now && start - now < HORIZON_MS + unit {
        time.wait_until(start + 1);
      }
      return Ok(mapped);
    }
    Err(error(&path, "it kept being replaced while it was opened"))
  }

  /// Node id `id`'s state (`id` ≤ the shape's largest): a word of the mapping, shared with every
  /// process that maps it.
  pub fn sequencer(&self, id: u16) -> &Sequencer {
    assert!(usize::from(id) < self.format.words());
    // SAFETY: the mapping is `file_len()` bytes, page-aligned, so the word is in it and
    // 8-aligned; it lives as long as `self`, and is only ever accessed atomically.
    let word = unsafe { &*self.map.as_ptr().add(word_offset(id)).cast::<AtomicU64>() };
    Sequencer::from_word(word)
  }

  fn start_word(&self) -> &AtomicU64 {
    // SAFETY: as `sequencer`: an 8-aligned word of the header page.
    unsafe { &*self.map.as_ptr().add(START_OFFSET).cast::<AtomicU64>() }
  }

  /// The reading before the file was last seen in place: ids up to `HORIZON_MS` after it may be
  /// issued without looking again (`UNSEEN`: none may).
  #[inline(always)]
  pub fn verified_at(&self) -> u64 {
    self.verified_at.load(Ordering::Relaxed)
  }

  /// Looks whether the file is still the one at its path, for a clock reading of `now_ms` taken
  /// before the call: if it is, ids up to `now_ms + HORIZON_MS` may be issued; if not, it is
  /// lost for good. A reading at or before the start is refused as the clock behind.
  #[cold]
  #[inline(never)]
  pub fn renew(&self, now_ms: u64) -> Result<u64, FlakeError> {
    if self.lost.load(Ordering::SeqCst) {
      return Err(self.lost_error());
    }
    let start = self.start.load(Ordering::Acquire);
    if now_ms <= start {
      return Err(FlakeError::ClockBackwards {
        ms: start - now_ms,
        wait_ms: start + 1 - now_ms,
      });
    }
    if let Err(reason) = self.verify() {
      self.lose(reason);
      return Err(self.lost_error());
    }
    let verified_at = fence_base(now_ms);
    self.verified_at.store(verified_at, Ordering::SeqCst);
    // A loss marked meanwhile stays marked; the ids this renewal allows are still safe (the
    // file was seen in place after `now_ms`), but none are issued past the mark.
    if self.lost.load(Ordering::SeqCst) {
      self.verified_at.store(UNSEEN, Ordering::SeqCst);
      return Err(self.lost_error());
    }
    Ok(verified_at)
  }

  /// Why the file is no longer the one at its path, if it is not.
  fn verify(&self) -> Result<(), String> {
    if self.truncated.load(Ordering::SeqCst) {
      return Err("it was truncated while mapped".into());
    }
    let meta = self.file.metadata().map_err(|err| err.to_string())?;
    if meta.len() != self.format.file_len() as u64 {
      return Err(format!("it was truncated to {} bytes", meta.len()));
    }
    match os::identity_at(&self.path) {
      Ok(named) if named == self.identity => {}
      Ok(_) => return Err("another file was put in its place".into()),
      Err(err) if err.kind() == io::ErrorKind::NotFound => {
        return Err("it was removed, or its directory was".into())
      }
      Err(err) => return Err(format!("it cannot be looked at: {err}")),
    }
    if let Some(dir) = &self.dir {
      let meta = dir.metadata().map_err(|err| err.to_string())?;
      if let Some(reason) = dir::not_ours(&meta) {
        return Err(format!("its directory is no longer safe: {reason}"));
      }
    }
    Ok(())
  }

  fn lose(&self, reason: String) {
    let mut kept = self
      .reason
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner());
    kept.get_or_insert(reason);
    self.lost.store(true, Ordering::SeqCst);
    self.verified_at.store(UNSEEN, Ordering::SeqCst);
  }

  /// Whether the file is lost: no id is issued from it any more.
  pub fn is_lost(&self) -> bool {
    self.lost.load(Ordering::SeqCst)
  }

  /// `ERR_FLAKE_STATE_LOST`, with why.
  pub fn lost_error(&self) -> FlakeError {
    let reason = self
      .reason
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner())
      .clone();
    FlakeError::StateLost {
      path: self.path.display().to_string(),
      reason: reason.unwrap_or_else(|| "it was truncated while mapped".into()),
    }
  }
}

/// What the SIGBUS handler (`sigbus`) asks of a mapping.
#[cfg(any(target_os = "linux", target_os = "android"))]
impl HostFile {
  /// The mapping's address range, for the SIGBUS handler.
  pub(super) fn range(&self) -> (usize, usize) {
    (self.map.as_ptr() as usize, self.format.file_len())
  }

  /// Called by the SIGBUS handler when a touch of the mapping faulted (the file is shorter than
  /// the mapping): marks it lost with atomics only (no allocation, no lock).
  pub(super) fn mark_truncated(&self) {
    self.truncated.store(true, Ordering::SeqCst);
    self.lost.store(true, Ordering::SeqCst);
    self.verified_at.store(UNSEEN, Ordering::SeqCst);
  }

  /// The words its lost pages are replaced with: spent, so every take is refused.
  pub(super) fn spent_page(&self, bytes: &mut [u8]) {
    let spent = crate::sequencer::spent(self.format.shape.word());
    for id in 0..self.format.words() {
      let at = word_offset(id as u16);
      bytes[at..at + 8].copy_from_slice(&spent.to_ne_bytes());
    }
  }

  /// For the SIGBUS handler: where it is in replacing the mapping's pages.
  pub(super) fn pages(&self) -> &super::sigbus::Pages {
    &self.pages
  }
}

/// `verified_at` for a reading of `now_ms`: no later than 42 bits less the horizon, so that the
/// horizon after it is still a reading.
fn fence_base(now_ms: u64) -> u64 {
  now_ms.min(MAX_READING_MS - HORIZON_MS)
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

/// The state directory, open: by descriptor on Unix, by path elsewhere (see `os`).
struct Directory {
  dir: os::Dir,
  path: PathBuf,
  /// The state file it is opened for.
  format: Format,
}

impl Directory {
  fn open(dir: &Path, format: Format) -> Result<Self, FlakeError> {
    Ok(Self {
      dir: os::Dir::open(dir)?,
      path: dir.to_path_buf(),
      format,
    })
  }

  /// Opens the state file (`path`, in this directory) without following a symlink, and checks
  /// it on the descriptor (see `open_checked`).
  fn open_file(&self, path: &Path, write: bool) -> Result<File, OpenFailure> {
    let opened = self.dir.open_file(&self.format.file_name(), write);
    checked(path, self.format, opened)
  }

  /// Creates the state file whole or not at all: written in full under a temporary name, then
  /// linked into place, which fails if another process got there first (its file is then used:
  /// it is the same fresh content).
  fn create(&self, path: &Path) -> Result<(), FlakeError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let temp = format!(
      ".{}.{}-{}.tmp",
      self.format.file_name(),
      std::process::id(),
      COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let written = self.dir.create_new(&temp).and_then(|file| {
      self.format.write_fresh(&mut io::BufWriter::new(&file))?;
      file.sync_all()?;
      self.dir.link(&temp, &self.format.file_name())
    });
    let _ = self.dir.remove(&temp);
    match written {
      Ok(()) => Ok(()),
      Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
      Err(err) => Err(error(path, format!("cannot create it: {err}"))),
    }
  }

  /// The identity of the open `file` if the state file's path still names it (a reset removes a
  /// file only under its exclusive lock, so a file still named after our shared lock is the one
  /// every process uses); `None` if the name has moved on.
  fn named(&self, file: &File) -> Result<Option<Identity>, String> {
    let open = os::identity(file).map_err(|err| err.to_string())?;
    match os::identity_at(&self.path.join(self.format.file_name())) {
      Ok(named) => Ok((named == open).then_some(open)),
      Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
      Err(err) => Err(err.to_string()),
    }
  }

  /// The directory's descriptor, with a shared lock if one can be had (see `os::Dir::locked`).
  fn locked(self) -> Option<File> {
    self.dir.locked()
  }
}

/// Opens `path` without following a symlink, and checks on the descriptor that it is a regular
/// file of this user's, of the exact size, with the header this version writes for `format`.
pub fn open_checked(path: &Path, format: Format, write: bool) -> Result<File, OpenFailure> {
  checked(path, format, os::open(path, write))
}

fn checked(path: &Path, format: Format, opened: io::Result<File>) -> Result<File, OpenFailure> {
  let file = match opened {
    Ok(file) => file,
    Err(err) if err.kind() == io::ErrorKind::NotFound => return Err(Missing),
    Err(err) if os::refused_symlink(&err) => {
      return Err(Refused(error(path, "it is a symlink (not followed)")))
    }
    Err(err) => return Err(Refused(error(path, err.to_string()))),
  };
  check(path, format, &file).map_err(Refused)?;
  Ok(file)
}

fn check(path: &Path, format: Format, file: &File) -> Result<(), FlakeError> {
  let meta = file
    .metadata()
    .map_err(|err| error(path, err.to_string()))?;
  if !meta.is_file() {
    return Err(error(path, "not a regular file"));
  }
  if let Some(reason) = dir::not_ours(&meta) {
    return Err(error(path, reason));
  }
  if meta.len() != format.file_len() as u64 {
    return Err(error(
      path,
      format!(
        "it is {} bytes, a state file of its layout is {}: truncated or not ours (left as it is)",
        meta.len(),
        format.file_len()
      ),
    ));
  }
  let mut header = [0; HEADER_CHECKED];
  read_at(file, &mut header, 0).map_err(|err| error(path, err.to_string()))?;
  format
    .check_header(&header)
    .map_err(|reason| error(path, reason))
}

/// Locks `file`: exclusively if nobody else has it (then this process is its first, and says
/// so), else shared, waiting a moment for a reset or another first mapping to finish.
fn lock(path: &Path, file: &File) -> Result<bool, FlakeError> {
  use std::fs::TryLockError;
  let failed = |err: io::Error| error(path, format!("cannot lock it: {err}"));
  match file.try_lock() {
    Ok(()) => return Ok(true),
    Err(TryLockError::WouldBlock) => {}
    Err(TryLockError::Error(err)) => return Err(failed(err)),
  }
  let step = Duration::from_millis(1);
  for _ in 0..LOCK_WAIT.as_millis() {
    match file.try_lock_shared() {
      Ok(()) => return Ok(false),
      Err(TryLockError::WouldBlock) => std::thread::sleep(step),
      Err(TryLockError::Error(err)) => return Err(failed(err)),
    }
  }
  Err(error(
    path,
    "another process has held it locked for over a second",
  ))
}

/// Turns the first mapping's exclusive lock into the shared one every mapping holds.
fn downgrade(path: &Path, file: &File) -> Result<(), FlakeError> {
  os::downgrade(file).map_err(|err| error(path, format!("cannot lock it: {err}")))
}

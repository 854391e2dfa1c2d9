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
//! - A first mapping trusts the kernel's change times only for the file its words were written
//!   in (its identity, recorded in the header): a copy put in place by a means that changes no
//!   time (a bind mount, a restored volume) starts the horizon after the clock.
//! - A process that maps a file others hold trusts none of its words, which may have been put
//!   back (an older copy written over the file in place): it starts the horizon after its own
//!   clock, so after every id a process that saw the file before it can issue. Each renewal
//!   looks at every word the process took from: one below what it took went back, and the
//!   mapping is lost.
//! - A truncation faults on the next touch of the lost pages; `sigbus` puts a page of spent words
//!   there and marks the mapping lost, instead of the process dying.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use memmap2::{MmapOptions, MmapRaw};

use super::dir;
use super::format::{word_offset, Format, HEADER_CHECKED, HOME_OFFSET, START_OFFSET};
use crate::clock::{self, Time, STALL_GRACE_MS};
use crate::error::FlakeError;
use crate::kinds::layout::Shape;
use crate::os::{self, read_at, Identity};
use crate::sequencer::{Floor, Sequencer};

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
  /// The file's and the directory's descriptors while the mapping is the file's (see `Held`);
  /// let go once it is lost.
  held: Mutex<Option<Held>>,
  identity: Identity,
  /// The last id this process took from each node id's word (see `Floor`), made on first use.
  floors: Mutex<HashMap<u16, &'static Floor>>,
  /// The SIGBUS handler's slot for the mapping, given back on release.
  #[cfg(any(target_os = "linux", target_os = "android"))]
  slot: std::sync::OnceLock<&'static std::sync::atomic::AtomicPtr<HostFile>>,
}

/// What a mapping holds open.
#[derive(Debug)]
struct Held {
  /// The file's own descriptor. Kept open for its shared lock: a reset takes the exclusive
  /// one, so it is refused while any process has the file mapped.
  file: File,
  /// The directory, held with a shared lock too: age-based cleaners of temporary directories
  /// (systemd-tmpfiles) skip a locked directory, so they do not remove a file in use; and a
  /// first mapping that finds it held by nobody knows no process issues from this directory.
  dir: Option<File>,
}

/// A margin for the kernel's file times, which lag its clock by up to a tick (10 ms at 100 Hz).
pub const TICK_MS: u64 = 10;

impl HostFile {
  /// Maps the state file of `shape` in `dir`, creating the directory (0700) and the file (0600)
  /// if they are missing; refuses either when it is not safe or not what this version wrote.
  /// `after_loss`: this process lost the mapping of this directory's file before, so whatever
  /// the path holds now (the same file grown back, a copy of it) is taken for a new file.
  /// Returns once the clock has passed the file's start (see `start`), or once waiting for it
  /// is given up on (`clock::wait_for`: a clock stepped back or standing still). A failure
  /// leaves nothing open, mapped or locked.
  pub fn open(
    dir: &Path,
    shape: Shape,
    time: &mut impl Time,
    after_loss: bool,
  ) -> Result<&'static Self, FlakeError> {
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
      let Some(identity) = directory
        .named(&file)
        .map_err(|err| io_error(&path, "", &err))?
      else {
        continue;
      };
      let map = MmapOptions::new()
        .len(format.file_len())
        .map_raw(&file)
        .map_err(|err| io_error(&path, "cannot map it: ", &err))?;
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
        held: Mutex::new(None),
        identity,
        floors: Mutex::new(HashMap::new()),
        #[cfg(any(target_os = "linux", target_os = "android"))]
        slot: std::sync::OnceLock::new(),
      };
      // Leaked: the SIGBUS handler may look at it from the first touch of a page on, and
      // generators keep it; once lost it is released (`release`), all but this small value.
      let mapped: &'static Self = Box::leak(Box::new(mapped));
      #[cfg(any(target_os = "linux", target_os = "android"))]
      match super::sigbus::watch(mapped) {
        Ok(slot) => _ = mapped.slot.set(slot),
        Err(reason) => {
          let path = mapped.path.clone();
          // SAFETY: leaked just above and handed to nobody (the handler has no slot of it),
          // so this is its only reference; dropping it unmaps it and closes `file`.
          drop(unsafe { Box::from_raw(std::ptr::from_ref(mapped).cast_mut()) });
          drop(file);
          return Err(error(&path, reason));
        }
      }
      let start = mapped.start(&directory, &file, first, after_loss, time.now_ms());
      let downgraded = if first {
        downgrade(&mapped.path, &file)
      } else {
        Ok(())
      };
      *lock_ignoring_poison(&mapped.held) = Some(Held {
        file,
        dir: directory.locked(),
      });
      if let Err(err) = downgraded {
        mapped.release();
        return Err(err);
      }
      mapped.start.store(start, Ordering::Release);
      let now = time.now_ms();
      if start >= now && start - now <= HORIZON_MS + TICK_MS + shape.unit() {
        // Bounded: a clock that stands still or steps back meanwhile is not waited for. The
        // mapping is sound all the same, its ids refused (`renew`: the clock behind) until
        // the clock passes the start, so a constructor never throws for the clock.
        let _ = clock::wait_for(time, now, start + 1, STALL_GRACE_MS);
      }
      return Ok(mapped);
    }
    Err(error(&path, "it kept being replaced while it was opened"))
  }

  /// The time at or before which this mapping issues no id (ms since 1970, the last ms of a
  /// time unit), for a clock reading of `now`: after every id a file this one replaced can
  /// still issue. A process still on the file it replaced issues for at most `HORIZON_MS` after
  /// it last saw that file in place, so before the change that put this one in its place plus
  /// the horizon. So:
  /// - a first mapping (nobody else holds the file) starts the horizon after the file and its
  ///   directory last changed, or after `now` when that is not known or when the file is not at
  ///   its home (a copy: see `claim_home`). Most starts are then already past: no wait. The
  ///   start is raised in the file for later ones.
  /// - a later mapping (another process holds the file) trusts nothing the file says, since its
  ///   content may have been put back (an older copy written over it, truncated and grown
  ///   back) below ids a live process issued: it starts the horizon after `now`, as after a
  ///   loss, past every id a process that saw the file before `now` can issue. That is a wait
  ///   of about the horizon (to the end of a unit, on a coarse one) at a process's first
  ///   generator of the shape; the start word is not raised for it (others are unaffected).
  /// - after a loss in this process, the path's file is a new one, whatever it holds: the
  ///   horizon after `now`, past every id the lost mapping could issue.
  fn start(&self, dir: &Directory, file: &File, first: bool, after_loss: bool, now: u64) -> u64 {
    let unit = self.format.shape.unit();
    let unit_end = |ms: u64| ms / unit * unit + unit - 1;
    let fresh = unit_end(now + HORIZON_MS + TICK_MS);
    let word = self.start_word();
    // Only a first mapping (the exclusive lock) writes the header's home.
    let at_home = first && self.claim_home();
    if after_loss || (first && !at_home) {
      word.fetch_max(fresh, Ordering::AcqRel);
      return fresh;
    }
    if !first {
      return fresh;
    }
    // The file's own change time counts even when no process holds the directory: an older
    // copy written back in place after every process ended changes only the file, and its
    // words would otherwise be trusted (a coarse unit's ids repeated within the unit). A write
    // through a mapping can move that time too, so a process started right after another
    // may wait the horizon: the price of never trusting a rewritten file.
    let dir_changed = dir.changed_at().unwrap_or(u64::MAX);
    let file_changed = file
      .metadata()
      .map_or(u64::MAX, |meta| os::changed_at(&meta));
    let changed = dir_changed.max(file_changed);
    let start = match changed.checked_add(HORIZON_MS + TICK_MS) {
      Some(after) if changed <= now => unit_end(after).min(fresh),
      _ => fresh,
    };
    word.fetch_max(start, Ordering::AcqRel);
    start
  }

  /// Whether the header's home is this file's identity, that is whether the words were written
  /// in this very file; if not, it is made so. Another identity (or none, in a fresh file) means
  /// the words were copied from another file: a restored backup, a copied directory, a copy
  /// bind-mounted over the live file or a tmpfs mounted again. None of these changes a time the
  /// kernel keeps (a bind mount changes neither the file's nor its directory's), and the file
  /// they hid may still be issuing, or did up to a moment ago, from words past the copy's: so
  /// its words and times are not trusted. A live file's identity is its own while it exists (no
  /// other has its device and inode), and a copy carries the home of the file it was copied from.
  fn claim_home(&self) -> bool {
    let Some(identity) = os::identity_words(self.identity) else {
      return false;
    };
    // SAFETY: as `sequencer`: two 8-aligned words of the header page.
    let home = unsafe { &*self.map.as_ptr().add(HOME_OFFSET).cast::<[AtomicU64; 2]>() };
    let recorded = home.each_ref().map(|word| word.load(Ordering::Acquire));
    if recorded == identity {
      return true;
    }
    for (word, value) in home.iter().zip(identity) {
      word.store(value, Ordering::Release);
    }
    false
  }

  /// Node id `id`'s state (`id` ≤ the shape's largest): a word of the mapping, shared with every
  /// process that maps it.
  pub fn sequencer(&self, id: u16) -> &Sequencer {
    assert!(usize::from(id) < self.format.words());
    // SAFETY: the mapping is `file_len()` bytes, page-aligned, so the word is in it and
    // 8-aligned; it lives as long as `self` (a release puts other pages in the same place),
    // and is only ever accessed atomically.
    let word = unsafe { &*self.map.as_ptr().add(word_offset(id)).cast::<AtomicU64>() };
    Sequencer::from_word(word)
  }

  /// The last id this process took from node id `id`'s word (see `Floor`): one per node id,
  /// kept for as long as generators may use it.
  pub fn floor(&self, id: u16) -> &'static Floor {
    lock_ignoring_poison(&self.floors)
      .entry(id)
      .or_insert_with(|| Box::leak(Box::default()))
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

  /// Looks whether the file is still the one at its path, its words not gone back below what
  /// this process took (`words_kept`), for a clock reading of `now_ms` taken before the call: if
  /// so, ids up to `now_ms + HORIZON_MS` may be issued; if not, it is lost for good. A reading
  /// at or before the start is refused as the clock behind.
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
    if let Err(reason) = self.verify().and_then(|()| self.words_kept()) {
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
    let held = lock_ignoring_poison(&self.held);
    let Some(Held { file, dir }) = held.as_ref() else {
      return Err("it was let go".into());
    };
    let meta = file.metadata().map_err(|err| err.to_string())?;
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
    if let Some(dir) = dir {
      let meta = dir.metadata().map_err(|err| err.to_string())?;
      if let Some(reason) = dir::not_ours(&meta) {
        return Err(format!("its directory is no longer safe: {reason}"));
      }
    }
    Ok(())
  }

  /// Why the file's content went back, if a word this process took from is below the last id
  /// it took there (see `Floor`): every node id's, not only the one a take is for, so that a
  /// process waking after a restore notices it on any word another process has not since moved
  /// past. (One moved past is not seen, and needs not be: its next ids are above that process's,
  /// which start after every id issued before it mapped the file; see `start`.)
  fn words_kept(&self) -> Result<(), String> {
    let word = self.format.shape.word();
    let floors = lock_ignoring_poison(&self.floors);
    match floors
      .iter()
      .find(|(id, floor)| floor.reverted(word, self.sequencer(**id)))
    {
      Some((id, _)) => Err(format!(
        "its content went back (a copy was put over it in place): node id {id}'s word is below \
         an id this process took from it"
      )),
      None => Ok(()),
    }
  }

  fn lose(&self, reason: String) {
    lock_ignoring_poison(&self.reason).get_or_insert(reason);
    self.lost.store(true, Ordering::SeqCst);
    self.verified_at.store(UNSEEN, Ordering::SeqCst);
    self.release();
  }

  /// A word found below an id this process took from it: the file's content went back (a
  /// copy put over it in place), so it is lost, and none of its ids are issued again.
  #[cold]
  pub fn reverted(&self) -> FlakeError {
    self.lose("its content went back (a copy was put over it in place)".into());
    self.lost_error()
  }

  /// Lets go of what a lost mapping holds: the file's pages (replaced by spent ones, where
  /// that can be done in one step), its descriptors and locks, the SIGBUS handler's slot.
  /// Generators of it go on refusing; a new mapping of the directory takes its place.
  pub fn release(&self) {
    let Some(held) = lock_ignoring_poison(&self.held).take() else {
      return;
    };
    // A mapping keeps the open file, and with it the lock, until its pages are replaced.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Some(slot) = self.slot.get() {
      super::sigbus::release(self, slot);
    }
    drop(held);
  }

  /// Whether the file is lost: no id is issued from it any more.
  pub fn is_lost(&self) -> bool {
    self.lost.load(Ordering::SeqCst)
  }

  /// `ERR_FLAKE_STATE_LOST`, with why.
  pub fn lost_error(&self) -> FlakeError {
    let reason = lock_ignoring_poison(&self.reason).clone();
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
    let spent = self.spent_word();
    for id in 0..self.format.words() {
      let at = word_offset(id as u16);
      bytes[at..at + 8].copy_from_slice(&spent.to_ne_bytes());
    }
  }

  /// A spent word of its format.
  pub(super) fn spent_word(&self) -> u64 {
    crate::sequencer::spent(self.format.shape.word())
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

/// Writes a fresh file of `format` into `out`, buffered, and returns `out` once every byte is
/// written: an error of any write is returned, the last one's too (a full disk), which a
/// `BufWriter` dropped unflushed would lose, leaving a short file to be linked into place.
pub(crate) fn write_whole<W: io::Write>(format: Format, out: W) -> io::Result<W> {
  let mut buffered = io::BufWriter::new(out);
  format.write_fresh(&mut buffered)?;
  buffered
    .into_inner()
    .map_err(io::IntoInnerError::into_error)
}

/// Why a state file could not be opened.
pub enum OpenFailure {
  /// There is no file of that name.
  Missing,
  /// There is one, and it is not safe to use or not what this version wrote.
  Refused(FlakeError),
}
use OpenFailure::{Missing, Refused};

// A panic elsewhere cannot leave these half-written: each is replaced whole.
fn lock_ignoring_poison<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
  mutex
    .lock()
    .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `ERR_FLAKE_STATE_FILE` for the file at `path`, saying `reason`.
pub fn error(path: &Path, reason: impl Into<String>) -> FlakeError {
  FlakeError::StateFile {
    path: path.display().to_string(),
    reason: reason.into(),
  }
}

/// `ERR_FLAKE_STATE_UNAVAILABLE` for the file at `path` if `err` is a transient OS error (see
/// `os::transient`: it is retried, never fallen back from), else `ERR_FLAKE_STATE_FILE`; the
/// reason is `context` then `err`.
pub fn io_error(path: &Path, context: &str, err: &io::Error) -> FlakeError {
  match os::transient(err) {
    Some(errno) => FlakeError::StateUnavailable {
      what: "state file",
      path: path.display().to_string(),
      reason: format!("{context}{err}"),
      errno,
    },
    None => error(path, format!("{context}{err}")),
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

  /// Creates the state file whole or not at all: written in full and synced under a temporary
  /// name, then linked into place, which fails if another process got there first (its file is
  /// then used: it is the same fresh content). A write or sync that fails (a full disk) links
  /// nothing, and its error (the system's, with its number) is the reason given; the temporary
  /// file is removed either way.
  fn create(&self, path: &Path) -> Result<(), FlakeError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let temp = format!(
      ".{}.{}-{}.tmp",
      self.format.file_name(),
      std::process::id(),
      COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let written = self.dir.create_new(&temp).and_then(|file| {
      write_whole(self.format, &file)?;
      file.sync_all()?;
      self.dir.link(&temp, &self.format.file_name())
    });
    let _ = self.dir.remove(&temp);
    match written {
      Ok(()) => Ok(()),
      Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
      Err(err) => Err(io_error(path, "cannot create it: ", &err)),
    }
  }

  /// The identity of the open `file` if the state file's path still names it (a reset removes a
  /// file only under its exclusive lock, so a file still named after our shared lock is the one
  /// every process uses); `None` if the name has moved on.
  fn named(&self, file: &File) -> io::Result<Option<Identity>> {
    let open = os::identity(file)?;
    match os::identity_at(&self.path.join(self.format.file_name())) {
      Ok(named) => Ok((named == open).then_some(open)),
      Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
      Err(err) => Err(err),
    }
  }

  /// The directory's descriptor, with a shared lock if one can be had (see `os::Dir::locked`).
  fn locked(self) -> Option<File> {
    self.dir.locked()
  }

  /// When the directory last changed (see `os::Dir::changed_at`).
  fn changed_at(&self) -> io::Result<u64> {
    self.dir.changed_at()
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
    Err(err) => return Err(Refused(io_error(path, "", &err))),
  };
  check(path, format, &file).map_err(Refused)?;
  Ok(file)
}

fn check(path: &Path, format: Format, file: &File) -> Result<(), FlakeError> {
  let meta = file.metadata().map_err(|err| io_error(path, "", &err))?;
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
  read_at(file, &mut header, 0).map_err(|err| io_error(path, "", &err))?;
  format
    .check_header(&header)
    .map_err(|reason| error(path, reason))
}

/// Locks `file`: exclusively if nobody else has it (then this process is its first, and says
/// so), else shared, waiting a moment for a reset or another first mapping to finish.
fn lock(path: &Path, file: &File) -> Result<bool, FlakeError> {
  use std::fs::TryLockError;
  let failed = |err: io::Error| io_error(path, "cannot lock it: ", &err);
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
  Err(FlakeError::StateBusy {
    path: path.display().to_string(),
    reason: "another process has held it locked for over a second (a reset, or a process \
             stopped while it started the file)"
      .into(),
  })
}

/// Turns the first mapping's exclusive lock into the shared one every mapping holds.
fn downgrade(path: &Path, file: &File) -> Result<(), FlakeError> {
  os::downgrade(file).map_err(|err| io_error(path, "cannot lock it: ", &err))
}

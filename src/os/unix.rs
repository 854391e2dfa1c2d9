//! Unix: the state directory and its file opened by descriptor (see `at`), a file told from
//! another by its device and inode numbers, `flock` to make a lock shared in place, ownership by
//! uid and mode bits, the shared temporary directories a state directory is made in per user,
//! and paths and arguments as bytes.

use std::ffi::{CString, OsString};
use std::fs::{self, DirBuilder, File, Metadata, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::at;
use super::refusal::{self, error};
use crate::error::FlakeError;

/// The state directory, open by descriptor: its files are opened, made, linked and removed
/// relative to it, so a directory swapped in at its path cannot redirect them.
pub struct Dir(File);

impl Dir {
  /// Opens the state directory `dir`, made if missing, refused unless it is safe (see
  /// `open_dir`).
  pub fn open(dir: &Path) -> Result<Self, FlakeError> {
    open_dir(dir).map(Self)
  }

  /// Opens the file `name` in it, to read (and write, if `write`), without following a symlink.
  pub fn open_file(&self, name: &str, write: bool) -> io::Result<File> {
    let flags = if write { libc::O_RDWR } else { libc::O_RDONLY };
    // O_NONBLOCK: a FIFO planted under the name must not hang the open.
    at::open_at(&self.0, &c_name(name), flags | libc::O_NONBLOCK, 0)
  }

  /// Creates the file `name` in it (0600), to write; fails if it exists.
  pub fn create_new(&self, name: &str) -> io::Result<File> {
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
    at::open_at(&self.0, &c_name(name), flags, 0o600)
  }

  /// Links the file `from` in it as `to`; fails if `to` exists.
  pub fn link(&self, from: &str, to: &str) -> io::Result<()> {
    at::link_at(&self.0, &c_name(from), &c_name(to))
  }

  /// Removes the file `name` from it.
  pub fn remove(&self, name: &str) -> io::Result<()> {
    at::unlink_at(&self.0, &c_name(name))
  }

  /// When the directory last changed (an entry made, removed or renamed; it moved), in ms
  /// since 1970 by the kernel's clock.
  pub fn changed_at(&self) -> io::Result<u64> {
    self.0.metadata().map(|meta| changed_at(&meta))
  }

  /// The directory's descriptor, with a shared lock: a protection against cleaners. An
  /// exclusive one (an earlier version held it while it started a file) is waited for a
  /// moment. Never a reason to refuse.
  pub fn locked(self) -> Option<File> {
    for _ in 0..LOCK_TRIES {
      // SAFETY: a valid descriptor.
      if unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) } == 0 {
        break;
      }
      std::thread::sleep(std::time::Duration::from_millis(1));
    }
    Some(self.0)
  }
}

/// How many ms `locked` waits for another process's exclusive lock on the directory.
const LOCK_TRIES: usize = 100;

/// Milliseconds since 1970 by the system clock, as `Date.now()` reads it; 0 before 1970.
/// `clock_gettime` itself: std's `SystemTime::now().duration_since(UNIX_EPOCH)` is two calls
/// more, ~1.5 % of the 64-generator `next()`. Where `time_t` has 64 bits only (see `now_ms` in
/// `os`): a 32-bit one ends in 2038.
#[cfg(target_pointer_width = "64")]
#[inline(always)]
pub fn now_ms() -> u64 {
  let mut now = libc::timespec {
    tv_sec: 0,
    tv_nsec: 0,
  };
  // SAFETY: `now` is a timespec to write into. CLOCK_REALTIME is on every Unix, and should the
  // call fail, `now` stays 1970.
  unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) };
  u64::try_from(now.tv_sec).map_or(0, |secs| {
    secs.saturating_mul(1000) + now.tv_nsec as u64 / 1_000_000
  })
}

/// When the file or directory of `meta` last changed (its inode: written, renamed, linked),
/// in ms since 1970; 0 for a time before 1970.
pub fn changed_at(meta: &std::fs::Metadata) -> u64 {
  let (secs, nanos) = (meta.ctime(), meta.ctime_nsec());
  u64::try_from(secs).map_or(0, |secs| secs * 1000 + nanos as u64 / 1_000_000)
}

/// A file name of ours as a C string: ours never hold a NUL.
fn c_name(name: &str) -> CString {
  CString::new(name).expect("no NUL")
}

/// Opens `path` to read (and write, if `write`), without following a symlink.
pub fn open(path: &Path, write: bool) -> io::Result<File> {
  let mut options = OpenOptions::new();
  options.read(true).write(write);
  // O_NONBLOCK: a FIFO planted under the name must not hang the open.
  options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
  options.open(path)
}

/// Whether an open failed because what it named is a symlink (O_NOFOLLOW says ELOOP).
pub fn refused_symlink(err: &io::Error) -> bool {
  err.raw_os_error() == Some(libc::ELOOP)
}

/// What identifies a file or directory while it exists: its device and inode numbers.
pub type Identity = (u64, u64);

/// The identity of the open `file`.
pub fn identity(file: &File) -> io::Result<Identity> {
  let meta = file.metadata()?;
  Ok((meta.dev(), meta.ino()))
}

/// `identity` as the two words a state file's header records it in (see `host::format`).
pub fn identity_words(identity: Identity) -> Option<[u64; 2]> {
  Some([identity.0, identity.1])
}

/// The identity of what `path` names (a symlink's own, not followed).
pub fn identity_at(path: &Path) -> io::Result<Identity> {
  let path = at::c_string(path)?;
  // SAFETY: `stat` is plain data, fully written by a successful lstat.
  let mut stat = unsafe { std::mem::zeroed::<libc::stat>() };
  // SAFETY: a NUL-terminated path and a stat to write.
  if unsafe { libc::lstat(path.as_ptr(), &mut stat) } < 0 {
    return Err(io::Error::last_os_error());
  }
  #[allow(clippy::unnecessary_cast)]
  Ok((stat.st_dev as u64, stat.st_ino as u64))
}

/// Fills `buf` from `offset`, without moving a shared cursor.
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
  std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Writes all of `buf` at `offset`, without moving a shared cursor.
pub fn write_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
  std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

/// Turns the exclusive lock on `file` into a shared one.
pub fn downgrade(file: &File) -> io::Result<()> {
  // flock converts the lock in place (not atomically: another first mapping may slip in, and
  // only raises the start further).
  // SAFETY: a valid descriptor.
  if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH) } < 0 {
    return Err(io::Error::last_os_error());
  }
  Ok(())
}

/// The name of `err`'s OS error if it is a shortage that passes (descriptors, memory, disk
/// space, quota; a call interrupted or that would block): a state directory or file that fails
/// so is unavailable for now, not unusable (`FlakeError::StateUnavailable`).
pub fn transient(err: &io::Error) -> Option<&'static str> {
  let errno = err.raw_os_error()?;
  Some(match errno {
    libc::EMFILE => "EMFILE",
    libc::ENFILE => "ENFILE",
    libc::ENOMEM => "ENOMEM",
    libc::ENOSPC => "ENOSPC",
    libc::EDQUOT => "EDQUOT",
    libc::EINTR => "EINTR",
    libc::ENOBUFS => "ENOBUFS",
    // EWOULDBLOCK is EAGAIN wherever they differ not.
    errno if errno == libc::EAGAIN || errno == libc::EWOULDBLOCK => "EAGAIN",
    _ => return None,
  })
}

/// Opens the state directory `dir`: made (0700, and its missing parents) if missing; refused
/// unless it is a real directory, this user's and writable by nobody else, in a parent that
/// others cannot write in, or that is sticky (as /tmp is): in a parent anyone may write in,
/// anyone could rename the directory away and put their own in its place.
pub fn open_dir(dir: &Path) -> Result<File, FlakeError> {
  let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
    return Err(error(dir, "not a directory a state file can be made in"));
  };
  if !dir.is_absolute() {
    return Err(error(dir, "not an absolute path"));
  }
  let fail = |err: io::Error| io_error(dir, "", &err);
  let name = at::c_string(Path::new(name)).map_err(fail)?;
  let parent_path = at::c_string(parent).map_err(fail)?;
  let open_parent = || at::open_dir_path(&parent_path);
  let parent_dir = match open_parent() {
    Err(err) if err.kind() == io::ErrorKind::NotFound => {
      DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(parent)
        .map_err(|err| io_error(dir, "cannot create its parent: ", &err))?;
      open_parent()
    }
    opened => opened,
  }
  .map_err(|err| io_error(dir, "cannot open its parent: ", &err))?;
  let parent_mode = parent_dir.metadata().map_err(fail)?.mode();
  // mode_t is u16 on some systems.
  #[allow(clippy::unnecessary_cast)]
  let sticky = libc::S_ISVTX as u32;
  if parent_mode & 0o002 != 0 && parent_mode & sticky == 0 {
    return Err(error(
      dir,
      format!(
        "its parent {} is writable by others without the sticky bit (mode {:o}): anyone could put another directory in its place",
        parent.display(),
        parent_mode & 0o7777
      ),
    ));
  }
  let flags = libc::O_RDONLY | libc::O_DIRECTORY;
  let opened = match at::open_at(&parent_dir, &name, flags, 0) {
    Err(err) if err.kind() == io::ErrorKind::NotFound => {
      let made = at::mkdir_at(&parent_dir, &name, 0o700);
      match made {
        Err(err) if err.kind() != io::ErrorKind::AlreadyExists => {
          return Err(io_error(dir, "cannot create it: ", &err))
        }
        _ => at::open_at(&parent_dir, &name, flags, 0),
      }
    }
    opened => opened,
  };
  let dir_file = opened.map_err(|err| match err.raw_os_error() {
    // Linux says ENOTDIR for a symlink opened with O_DIRECTORY | O_NOFOLLOW: look, for the words.
    Some(libc::ELOOP | libc::ENOTDIR)
      if std::fs::symlink_metadata(dir).is_ok_and(|meta| meta.file_type().is_symlink()) =>
    {
      error(dir, "it is a symlink (not followed)")
    }
    Some(libc::ENOTDIR) => error(dir, "not a directory"),
    _ => fail(err),
  })?;
  let meta = dir_file.metadata().map_err(fail)?;
  match not_ours(&meta) {
    Some(reason) => Err(error(dir, reason)),
    None => Ok(dir_file),
  }
}

/// `ERR_FLAKE_STATE_UNAVAILABLE` for `dir` if `err` is a transient OS error (see `transient`),
/// else `ERR_FLAKE_STATE_DIR`; the reason is `context` then `err`.
pub fn io_error(dir: &Path, context: &str, err: &io::Error) -> FlakeError {
  refusal::io_error(dir, context, err, transient(err))
}

/// Refuses `dir` unless it is a real directory (not a symlink), owned by this process's user
/// and writable by nobody else: anyone who can write in it could plant a state file that makes
/// this process reissue ids, or swap one for a symlink.
pub fn check(dir: &Path) -> Result<(), FlakeError> {
  let meta = fs::symlink_metadata(dir).map_err(|err| io_error(dir, "", &err))?;
  refusal::directory(dir, &meta)?;
  not_ours(&meta).map_or(Ok(()), |reason| Err(error(dir, reason)))
}

/// Why a directory or file with `meta` is not this user's alone, if it is not: owned by another
/// user, or writable by group or others.
pub fn not_ours(meta: &Metadata) -> Option<String> {
  if meta.uid() != euid() {
    return Some(format!(
      "owned by uid {}, not by this process's user (uid {})",
      meta.uid(),
      euid()
    ));
  }
  (meta.mode() & 0o022 != 0).then(|| {
    format!(
      "writable by group or others (mode {:o}); chmod go-w it",
      meta.mode() & 0o7777
    )
  })
}

/// The effective uid of this process, which owns what it creates.
pub fn euid() -> u32 {
  // SAFETY: geteuid has no preconditions and cannot fail.
  unsafe { libc::geteuid() }
}

/// The user's own temporary directory, where the system has one apart from `TMPDIR`: on macOS,
/// `confstr(_CS_DARWIN_USER_TEMP_DIR)` (under `/var/folders`, mode 0700: per user, and read from
/// the system, not from `TMPDIR`, which a launchd service may lack).
#[cfg(target_os = "macos")]
pub fn user_temp_dir() -> Option<PathBuf> {
  let mut buf = vec![0u8; 1024];
  // SAFETY: confstr writes at most `buf.len()` bytes, NUL included, and returns the length it
  // needs (0 on failure).
  let needed = unsafe {
    libc::confstr(
      libc::_CS_DARWIN_USER_TEMP_DIR,
      buf.as_mut_ptr().cast(),
      buf.len(),
    )
  };
  if needed == 0 || needed > buf.len() {
    return None;
  }
  buf.truncate(needed - 1);
  let dir = PathBuf::from(OsString::from_vec(buf));
  dir.is_absolute().then_some(dir)
}

/// None outside macOS: `TMPDIR` and `XDG_RUNTIME_DIR` differ between a login session and a
/// service, so they are not read.
#[cfg(not(target_os = "macos"))]
pub fn user_temp_dir() -> Option<PathBuf> {
  None
}

/// The directories named `name` and this user's uid (`name-<uid>`) in the temporary
/// directories every user shares, in order: `/tmp` (every Unix has it, sticky, for every user);
/// then `/var/tmp`, for a `/tmp` that is full, read-only or holds another user's; then
/// `/dev/shm` (Linux), the one writable place a read-only container usually has, last because
/// logind's `RemoveIPC` empties it of a user's files at their last logout.
pub fn shared_temp_dirs(name: &str) -> Vec<PathBuf> {
  let mut roots = vec!["/tmp", "/var/tmp"];
  if cfg!(target_os = "linux") {
    roots.push("/dev/shm");
  }
  roots
    .into_iter()
    .map(|root| Path::new(root).join(format!("{name}-{}", euid())))
    .collect()
}

/// Has `forked` called in the child of every fork from now on; false if it cannot be (no
/// memory for it).
pub fn on_fork(forked: extern "C" fn()) -> bool {
  // SAFETY: a handler that only counts, as a child may run after a fork.
  unsafe { libc::pthread_atfork(None, None, Some(forked)) == 0 }
}

/// A path given as bytes: any bytes but a NUL.
pub fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
  (!bytes.contains(&0)).then(|| PathBuf::from(OsString::from_vec(bytes)))
}

/// The process's command line, as the system gave it. musl, unlike glibc, does not pass
/// `argv` to a shared library's initialisers, so inside an addon `args_os()` is empty there:
/// Linux then says it in `/proc/self/cmdline`.
pub fn arguments() -> Vec<OsString> {
  let args: Vec<_> = std::env::args_os().collect();
  #[cfg(target_os = "linux")]
  if args.is_empty() {
    if let Ok(line) = fs::read("/proc/self/cmdline") {
      return command_line(&line);
    }
  }
  args
}

/// The arguments of a `/proc/<pid>/cmdline`: each ends in a NUL.
#[cfg(target_os = "linux")]
pub fn command_line(line: &[u8]) -> Vec<OsString> {
  use std::os::unix::ffi::OsStrExt;
  if line.is_empty() {
    return Vec::new();
  }
  line
    .strip_suffix(b"\0")
    .unwrap_or(line)
    .split(|&byte| byte == 0)
    .map(|arg| std::ffi::OsStr::from_bytes(arg).to_os_string())
    .collect()
}

/// The host's name, as `os.hostname()` gives it (both ask `gethostname`); why not, if it fails.
pub fn hostname() -> Result<String, String> {
  // POSIX's HOST_NAME_MAX is at most 255: the name and its NUL fit.
  let mut name = [0u8; 256];
  // SAFETY: `name` is writable for its whole length; one byte is left for a NUL should the
  // system cut a longer name without one.
  if unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len() - 1) } != 0 {
    return Err(io::Error::last_os_error().to_string());
  }
  let end = name
    .iter()
    .position(|&byte| byte == 0)
    .unwrap_or(name.len());
  Ok(String::from_utf8_lossy(&name[..end]).into_owned())
}

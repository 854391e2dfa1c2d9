//! Unix: the state directory and its file opened by descriptor (see `at`), a file told from
//! another by its device and inode numbers, and `flock` to make a lock shared in place.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use crate::error::FlakeError;
use crate::host::at;

/// The state directory, open by descriptor: its files are opened, made, linked and removed
/// relative to it, so a directory swapped in at its path cannot redirect them.
pub struct Dir(File);

impl Dir {
  /// Opens the state directory `dir`, made if missing, refused unless it is safe (see
  /// `at::open_dir`).
  pub fn open(dir: &Path) -> Result<Self, FlakeError> {
    at::open_dir(dir).map(Self)
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

//! Windows: the state directory and its file opened by path, no identity kept for a file (one
//! open here cannot be removed by a reset), a lock made shared by letting it go first, no owner
//! checked (ACLs are not read), the user's own temporary directory for the state directory, and
//! paths and arguments as Unicode.

use std::ffi::OsString;
use std::fs::{self, DirBuilder, File, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use super::refusal::{self, error};
use crate::error::FlakeError;

/// The state directory, by path: its files are opened, made, linked and removed by their paths.
pub struct Dir(PathBuf);

impl Dir {
  /// Opens the state directory `dir`, made if missing, refused unless it is safe (see
  /// `prepare`).
  pub fn open(dir: &Path) -> Result<Self, FlakeError> {
    prepare(dir)?;
    Ok(Self(dir.to_path_buf()))
  }

  /// Opens the file `name` in it, to read (and write, if `write`).
  pub fn open_file(&self, name: &str, write: bool) -> io::Result<File> {
    open(&self.0.join(name), write)
  }

  /// Creates the file `name` in it, to write; fails if it exists.
  pub fn create_new(&self, name: &str) -> io::Result<File> {
    OpenOptions::new()
      .write(true)
      .create_new(true)
      .open(self.0.join(name))
  }

  /// Links the file `from` in it as `to`; fails if `to` exists.
  pub fn link(&self, from: &str, to: &str) -> io::Result<()> {
    fs::hard_link(self.0.join(from), self.0.join(to))
  }

  /// Removes the file `name` from it.
  pub fn remove(&self, name: &str) -> io::Result<()> {
    fs::remove_file(self.0.join(name))
  }

  /// Not known here: a first mapping waits the whole horizon instead.
  pub fn changed_at(&self) -> io::Result<u64> {
    Err(io::ErrorKind::Unsupported.into())
  }

  /// None: the directory is known by its path only, there is no descriptor to hold and lock.
  pub fn locked(self) -> Option<File> {
    None
  }
}

/// Not known here (see `Dir::changed_at`): `u64::MAX`, later than any reading, which a first
/// mapping takes as "now".
pub fn changed_at(_meta: &std::fs::Metadata) -> u64 {
  u64::MAX
}

/// Makes `dir` if it is missing, then checks it (`check`). (On Unix, `open_dir` does this by
/// descriptor.)
fn prepare(dir: &Path) -> Result<(), FlakeError> {
  if !dir.is_absolute() {
    return Err(error(dir, "not an absolute path"));
  }
  if let Err(err) = fs::symlink_metadata(dir) {
    if err.kind() != io::ErrorKind::NotFound {
      return Err(io_error(dir, "", &err));
    }
    DirBuilder::new()
      .recursive(true)
      .create(dir)
      .map_err(|err| io_error(dir, "cannot create it: ", &err))?;
  }
  check(dir)
}

/// Opens `path` to read (and write, if `write`).
pub fn open(path: &Path, write: bool) -> io::Result<File> {
  OpenOptions::new().read(true).write(write).open(path)
}

/// Never: opens here do not refuse a symlink, so no failure is for that.
pub fn refused_symlink(_err: &io::Error) -> bool {
  false
}

/// No identity is kept here: a file open here cannot be removed by a reset, so the name cannot
/// have moved, and every file is taken for the one at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity;

/// The identity of the open `file`: the only one there is.
pub fn identity(_file: &File) -> io::Result<Identity> {
  Ok(Identity)
}

/// None: no identity is kept here (see `Identity`), so a first mapping cannot tell a copy
/// from the file its words were written in; it never trusts them anyway (see `changed_at`).
pub fn identity_words(_identity: Identity) -> Option<[u64; 2]> {
  None
}

/// The identity of what `path` names: the only one there is (see `Identity`).
pub fn identity_at(_path: &Path) -> io::Result<Identity> {
  Ok(Identity)
}

/// Fills `buf` from `offset`, without moving a shared cursor.
pub fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
  let mut done = 0;
  while done < buf.len() {
    let n = std::os::windows::fs::FileExt::seek_read(file, &mut buf[done..], offset + done as u64)?;
    if n == 0 {
      return Err(io::ErrorKind::UnexpectedEof.into());
    }
    done += n;
  }
  Ok(())
}

/// Writes all of `buf` at `offset`, without moving a shared cursor.
pub fn write_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
  let mut done = 0;
  while done < buf.len() {
    done += std::os::windows::fs::FileExt::seek_write(file, &buf[done..], offset + done as u64)?;
  }
  Ok(())
}

/// Turns the exclusive lock on `file` into a shared one.
pub fn downgrade(file: &File) -> io::Result<()> {
  // No conversion in place here: the lock is let go, then taken shared (another first mapping
  // may slip in between, and only raises the start further). Let go by one `UnlockFile` of the
  // range `File::lock` locked: `File::unlock` calls it twice, in case a shared lock sits under
  // an exclusive one, and takes the second call's `ERROR_NOT_LOCKED` for success; Wine answers
  // that call `ERROR_LOCK_VIOLATION`, so the unlock failed there though the lock was gone.
  use std::os::windows::io::AsRawHandle;
  // SAFETY: `file` is open for the whole call, and the range is the one its lock took.
  if unsafe { UnlockFile(file.as_raw_handle(), 0, 0, u32::MAX, u32::MAX) } == 0 {
    return Err(io::Error::last_os_error());
  }
  file.lock_shared()
}

#[link(name = "kernel32")]
extern "system" {
  /// Writes the computer's name of `format` and a NUL into `name` (of `*size` characters), and
  /// its length without the NUL into `*size`; nonzero on success.
  fn GetComputerNameExW(format: i32, name: *mut u16, size: *mut u32) -> i32;

  /// Unlocks the byte range at `offset_low`/`offset_high` of `bytes_low`/`bytes_high` bytes
  /// that this handle locked; nonzero on success.
  fn UnlockFile(
    file: std::os::windows::io::RawHandle,
    offset_low: u32,
    offset_high: u32,
    bytes_low: u32,
    bytes_high: u32,
  ) -> i32;
}

/// The name of `err`'s OS error if it is a shortage that passes (handles, memory, disk space,
/// quota): a state directory or file that fails so is unavailable for now, not unusable
/// (`FlakeError::StateUnavailable`).
pub fn transient(err: &io::Error) -> Option<&'static str> {
  // winerror.h's codes.
  Some(match err.raw_os_error()? {
    4 => "ERROR_TOO_MANY_OPEN_FILES",
    8 => "ERROR_NOT_ENOUGH_MEMORY",
    14 => "ERROR_OUTOFMEMORY",
    39 => "ERROR_HANDLE_DISK_FULL",
    112 => "ERROR_DISK_FULL",
    1450 => "ERROR_NO_SYSTEM_RESOURCES",
    1816 => "ERROR_NOT_ENOUGH_QUOTA",
    _ => return None,
  })
}

/// `ERR_FLAKE_STATE_UNAVAILABLE` for `dir` if `err` is a transient OS error (see `transient`),
/// else `ERR_FLAKE_STATE_DIR`; the reason is `context` then `err`.
pub fn io_error(dir: &Path, context: &str, err: &io::Error) -> FlakeError {
  refusal::io_error(dir, context, err, transient(err))
}

/// Refuses `dir` unless it is a real directory (not a symlink). Its owner is not checked here
/// (see `not_ours`).
pub fn check(dir: &Path) -> Result<(), FlakeError> {
  let meta = fs::symlink_metadata(dir).map_err(|err| io_error(dir, "", &err))?;
  refusal::directory(dir, &meta)
}

/// No reason here: uids and mode bits are Unix's (Windows's ACLs are not read).
pub fn not_ours(_meta: &Metadata) -> Option<String> {
  None
}

/// The temporary directory, which is the user's own.
pub fn user_temp_dir() -> Option<PathBuf> {
  Some(std::env::temp_dir())
}

/// None: the temporary directory is already the user's own (`user_temp_dir`).
pub fn shared_temp_dirs(_name: &str) -> Vec<PathBuf> {
  Vec::new()
}

/// True: a process here is never forked, so `forked` is never called.
pub fn on_fork(_forked: extern "C" fn()) -> bool {
  true
}

/// A path given as bytes: a name is Unicode here, so its bytes must be UTF-8 (and hold no NUL).
pub fn path_from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
  String::from_utf8(bytes)
    .ok()
    .filter(|text| !text.contains('\0'))
    .map(PathBuf::from)
}

/// The process's command line, as the system gave it.
pub fn arguments() -> Vec<OsString> {
  std::env::args_os().collect()
}

/// The host's name, as `os.hostname()` gives it: its DNS host name; why not, if it fails.
pub fn hostname() -> Result<String, String> {
  /// winbase.h's `ComputerNameDnsHostname`.
  const DNS_HOSTNAME: i32 = 1;
  // A DNS host name is at most 63 characters; Windows allows a few more: room to spare.
  let mut name = [0u16; 256];
  let mut size = name.len() as u32;
  // SAFETY: `name` is writable for `size` characters, and `size` is a u32 to write.
  if unsafe { GetComputerNameExW(DNS_HOSTNAME, name.as_mut_ptr(), &mut size) } == 0 {
    return Err(io::Error::last_os_error().to_string());
  }
  Ok(String::from_utf16_lossy(
    &name[..(size as usize).min(name.len())],
  ))
}

//! Unix: the calls that open, make, link and remove a name relative to a directory's
//! descriptor, never following a symlink, with which `unix` opens the state directory from its
//! parent's descriptor and the file from the directory's.

use std::ffi::{CStr, CString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// `path` as a C string, unless a NUL cuts it short.
pub fn c_string(path: &Path) -> io::Result<CString> {
  CString::new(path.as_os_str().as_bytes()).map_err(|_| io::ErrorKind::InvalidInput.into())
}

/// The file of `fd`, just returned by an open, or the OS error it stands for.
fn opened(fd: libc::c_int) -> io::Result<File> {
  if fd < 0 {
    return Err(io::Error::last_os_error());
  }
  // SAFETY: a descriptor just returned by open/openat, owned by nothing else.
  Ok(unsafe { File::from_raw_fd(fd) })
}

/// The OS error a call's `status` stands for, if it failed.
fn done(status: libc::c_int) -> io::Result<()> {
  if status < 0 {
    return Err(io::Error::last_os_error());
  }
  Ok(())
}

/// Opens `name` in the directory `at`, with `flags` (never following a symlink).
pub fn open_at(at: &File, name: &CStr, flags: libc::c_int, mode: libc::c_uint) -> io::Result<File> {
  let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
  // SAFETY: a valid descriptor and a NUL-terminated name.
  opened(unsafe { libc::openat(at.as_raw_fd(), name.as_ptr(), flags, mode) })
}

/// Links `from` in `at` as `to` in `at`; fails if `to` exists.
pub fn link_at(at: &File, from: &CStr, to: &CStr) -> io::Result<()> {
  // SAFETY: a valid descriptor and NUL-terminated names.
  done(unsafe {
    libc::linkat(
      at.as_raw_fd(),
      from.as_ptr(),
      at.as_raw_fd(),
      to.as_ptr(),
      0,
    )
  })
}

/// Removes the file `name` from `at`.
pub fn unlink_at(at: &File, name: &CStr) -> io::Result<()> {
  // SAFETY: a valid descriptor and a NUL-terminated name.
  done(unsafe { libc::unlinkat(at.as_raw_fd(), name.as_ptr(), 0) })
}

/// Opens the directory `path` (following symlinks, as the path's parents are).
pub fn open_dir_path(path: &CStr) -> io::Result<File> {
  // SAFETY: a NUL-terminated path.
  opened(unsafe {
    libc::open(
      path.as_ptr(),
      libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    )
  })
}

/// Makes the directory `name` in `at`, with `mode`.
pub fn mkdir_at(at: &File, name: &CStr, mode: libc::mode_t) -> io::Result<()> {
  // SAFETY: a valid descriptor and a NUL-terminated name.
  done(unsafe { libc::mkdirat(at.as_raw_fd(), name.as_ptr(), mode) })
}

//! The state directory and its file, opened by descriptor (Unix): the directory from its
//! parent's descriptor and the file from the directory's, neither following a symlink, and every
//! check an `fstat` of what was opened. A swap of either between a check and an open cannot
//! redirect a mapping: what is checked is what is mapped.

use std::ffi::{CStr, CString};
use std::fs::{DirBuilder, File};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::Path;

use super::dir::{self, error};
use crate::error::FlakeError;

/// `path` as a C string, unless a NUL cuts it short.
pub fn c_string(path: &Path) -> io::Result<CString> {
  CString::new(path.as_os_str().as_bytes()).map_err(|_| io::ErrorKind::InvalidInput.into())
}

fn opened(fd: libc::c_int) -> io::Result<File> {
  if fd < 0 {
    return Err(io::Error::last_os_error());
  }
  // SAFETY: a descriptor just returned by open/openat, owned by nothing else.
  Ok(unsafe { File::from_raw_fd(fd) })
}

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
  let fail = |err: io::Error| dir::io_error(dir, "", &err);
  let name = c_string(Path::new(name)).map_err(fail)?;
  let parent_path = c_string(parent).map_err(fail)?;
  let open_parent = || {
    // SAFETY: a NUL-terminated path.
    opened(unsafe {
      libc::open(
        parent_path.as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
      )
    })
  };
  let parent_dir = match open_parent() {
    Err(err) if err.kind() == io::ErrorKind::NotFound => {
      DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(parent)
        .map_err(|err| dir::io_error(dir, "cannot create its parent: ", &err))?;
      open_parent()
    }
    opened => opened,
  }
  .map_err(|err| dir::io_error(dir, "cannot open its parent: ", &err))?;
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
  let opened = match open_at(&parent_dir, &name, flags, 0) {
    Err(err) if err.kind() == io::ErrorKind::NotFound => {
      // SAFETY: a valid descriptor and a NUL-terminated name.
      let made = done(unsafe { libc::mkdirat(parent_dir.as_raw_fd(), name.as_ptr(), 0o700) });
      match made {
        Err(err) if err.kind() != io::ErrorKind::AlreadyExists => {
          return Err(dir::io_error(dir, "cannot create it: ", &err))
        }
        _ => open_at(&parent_dir, &name, flags, 0),
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
  match dir::not_ours(&meta) {
    Some(reason) => Err(error(dir, reason)),
    None => Ok(dir_file),
  }
}

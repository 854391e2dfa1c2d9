//! How either side of `os` refuses a state directory: `ERR_FLAKE_STATE_DIR`, or
//! `ERR_FLAKE_STATE_UNAVAILABLE` for an OS error that passes (which ones, each side's
//! `transient` says).

use std::fs::Metadata;
use std::path::Path;

use crate::error::FlakeError;

/// `ERR_FLAKE_STATE_DIR` for `dir`, saying `reason`.
pub fn error(dir: &Path, reason: impl Into<String>) -> FlakeError {
  FlakeError::StateDir {
    dir: dir.display().to_string(),
    reason: reason.into(),
  }
}

// The WebAssembly side refuses every directory before any OS error or metadata is read.
/// `ERR_FLAKE_STATE_UNAVAILABLE` for `dir` if `err` is a transient OS error (`errno`, its name,
/// as the side's `transient` says), else `ERR_FLAKE_STATE_DIR`; the reason is `context` then
/// `err`.
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub fn io_error(
  dir: &Path,
  context: &str,
  err: &std::io::Error,
  errno: Option<&'static str>,
) -> FlakeError {
  match errno {
    Some(errno) => FlakeError::StateUnavailable {
      what: "state directory",
      path: dir.display().to_string(),
      reason: format!("{context}{err}"),
      errno,
    },
    None => error(dir, format!("{context}{err}")),
  }
}

/// Refuses `dir`, whose own metadata (a symlink's, not followed) is `meta`, unless it is a real
/// directory.
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub fn directory(dir: &Path, meta: &Metadata) -> Result<(), FlakeError> {
  if meta.file_type().is_symlink() {
    return Err(error(dir, "it is a symlink (not followed)"));
  }
  if !meta.is_dir() {
    return Err(error(dir, "not a directory"));
  }
  Ok(())
}

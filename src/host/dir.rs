//! The state directory: where it is by default, and whether it is safe to share state through.

#[cfg(not(unix))]
use std::fs::DirBuilder;
use std::fs::{self, Metadata};
#[cfg(not(unix))]
use std::io;
use std::path::{Path, PathBuf};

use crate::error::FlakeError;

/// The environment variable naming the state directory.
pub const ENV: &str = "FLAKE_IDGEN_STATE_DIR";

/// `$FLAKE_IDGEN_STATE_DIR`, else `$XDG_RUNTIME_DIR/flake-idgen` (per user, emptied at logout
/// and reboot), else `flake-idgen-<uid>` in the temporary directory.
pub fn default_dir() -> PathBuf {
  let var = |name| std::env::var_os(name).filter(|value| !value.is_empty());
  if let Some(dir) = var(ENV) {
    return PathBuf::from(dir);
  }
  if let Some(runtime) = var("XDG_RUNTIME_DIR") {
    return PathBuf::from(runtime).join("flake-idgen");
  }
  std::env::temp_dir().join(per_user("flake-idgen"))
}

#[cfg(unix)]
fn per_user(name: &str) -> String {
  format!("{name}-{}", euid())
}

// Windows: the temporary directory is already the user's own.
#[cfg(not(unix))]
fn per_user(name: &str) -> String {
  name.into()
}

/// The effective uid of this process, which owns what it creates.
#[cfg(unix)]
pub fn euid() -> u32 {
  // SAFETY: geteuid has no preconditions and cannot fail.
  unsafe { libc::geteuid() }
}

/// `ERR_FLAKE_STATE_DIR` for `dir`, saying `reason`.
pub fn error(dir: &Path, reason: impl Into<String>) -> FlakeError {
  FlakeError::StateDir {
    dir: dir.display().to_string(),
    reason: reason.into(),
  }
}

/// Makes `dir` (mode 0700) if it is missing, then checks it as `check` does. (On Unix,
/// `at::open_dir` does this by descriptor.)
#[cfg(not(unix))]
pub fn prepare(dir: &Path) -> Result<(), FlakeError> {
  if !dir.is_absolute() {
    return Err(error(dir, "not an absolute path"));
  }
  if let Err(err) = fs::symlink_metadata(dir) {
    if err.kind() != io::ErrorKind::NotFound {
      return Err(error(dir, err.to_string()));
    }
    let mut builder = DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
      .create(dir)
      .map_err(|err| error(dir, format!("cannot create it: {err}")))?;
  }
  check(dir)
}

/// Refuses `dir` unless it is a real directory (not a symlink), owned by this process's user
/// and writable by nobody else: anyone who can write in it could plant a state file that makes
/// this process reissue ids, or swap one for a symlink.
pub fn check(dir: &Path) -> Result<(), FlakeError> {
  let meta = fs::symlink_metadata(dir).map_err(|err| error(dir, err.to_string()))?;
  if meta.file_type().is_symlink() {
    return Err(error(dir, "it is a symlink (not followed)"));
  }
  if !meta.is_dir() {
    return Err(error(dir, "not a directory"));
  }
  check_owner(dir, &meta)
}

fn check_owner(dir: &Path, meta: &Metadata) -> Result<(), FlakeError> {
  not_ours(meta).map_or(Ok(()), |reason| Err(error(dir, reason)))
}

/// Why a directory or file with `meta` is not this user's alone, if it is not: owned by another
/// user, or writable by group or others.
#[cfg(unix)]
pub fn not_ours(meta: &Metadata) -> Option<String> {
  use std::os::unix::fs::MetadataExt;
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

/// No reason outside Unix: uids and mode bits are Unix's (Windows's ACLs are not read).
#[cfg(not(unix))]
pub fn not_ours(_meta: &Metadata) -> Option<String> {
  None
}

/// `dir` as a path, if it is an absolute one (and no NUL cuts it short).
pub fn absolute(dir: &str) -> Option<PathBuf> {
  (!dir.contains('\0') && Path::new(dir).is_absolute()).then(|| PathBuf::from(dir))
}

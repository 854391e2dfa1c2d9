//! The state directory: where it is by default, and whether it is safe to share state through.

use std::fs::{self, Metadata};
use std::path::{Path, PathBuf};

use crate::error::FlakeError;

/// The environment variable naming the state directory.
pub const ENV: &str = "FLAKE_IDGEN_STATE_DIR";

/// The state directory generators use by default: `$FLAKE_IDGEN_STATE_DIR` if set, else the
/// first of `candidates()` (see `default_dirs`).
pub fn default_dir() -> PathBuf {
  default_dirs().swap_remove(0)
}

/// The state directories a generator without `stateDir` tries, in order: `$FLAKE_IDGEN_STATE_DIR`
/// alone if set, else `candidates()`.
pub fn default_dirs() -> Vec<PathBuf> {
  match named_dir() {
    Some(dir) => vec![dir],
    None => candidates(),
  }
}

/// The directory `$FLAKE_IDGEN_STATE_DIR` names, if it is set (and not empty).
pub fn named_dir() -> Option<PathBuf> {
  std::env::var_os(ENV)
    .filter(|value| !value.is_empty())
    .map(PathBuf::from)
}

/// The default state directories, in the order they are tried. The same for every process of
/// a user, whatever its environment: `XDG_RUNTIME_DIR` and `TMPDIR` differ between a login
/// session and a service (two directories would be two states of one generator id, so
/// repeated ids), and `XDG_RUNTIME_DIR` is removed at logout under running processes. `/tmp`
/// first (every Unix has it, sticky, for every user); then `/var/tmp`, for a `/tmp` that is full,
/// read-only or holds another user's `flake-idgen-<uid>`; then `/dev/shm` (Linux), the one
/// writable place a read-only container usually has, last because logind's `RemoveIPC` empties
/// it of a user's files at their last logout.
#[cfg(all(unix, not(target_os = "macos")))]
pub fn candidates() -> Vec<PathBuf> {
  let mut roots = vec!["/tmp", "/var/tmp"];
  if cfg!(target_os = "linux") {
    roots.push("/dev/shm");
  }
  roots
    .into_iter()
    .map(|root| Path::new(root).join(per_user("flake-idgen")))
    .collect()
}

/// macOS: the user's own temporary directory (`confstr(_CS_DARWIN_USER_TEMP_DIR)`, under
/// `/var/folders`, mode 0700: per user, and read from the system, not from `TMPDIR`, which a
/// launchd service may lack), then `/tmp` and `/var/tmp` as on other Unixes.
#[cfg(target_os = "macos")]
pub fn candidates() -> Vec<PathBuf> {
  let mut dirs: Vec<PathBuf> = darwin_user_temp_dir()
    .map(|dir| dir.join("flake-idgen"))
    .into_iter()
    .collect();
  for root in ["/tmp", "/var/tmp"] {
    dirs.push(Path::new(root).join(per_user("flake-idgen")));
  }
  dirs
}

#[cfg(target_os = "macos")]
fn darwin_user_temp_dir() -> Option<PathBuf> {
  use std::os::unix::ffi::OsStringExt;
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
  let dir = PathBuf::from(std::ffi::OsString::from_vec(buf));
  dir.is_absolute().then_some(dir)
}

/// Windows: the temporary directory, which is the user's own.
#[cfg(not(unix))]
pub fn candidates() -> Vec<PathBuf> {
  vec![std::env::temp_dir().join(per_user("flake-idgen"))]
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

/// `ERR_FLAKE_STATE_UNAVAILABLE` for `dir` if `err` is a transient OS error (see
/// `os::transient`), else `ERR_FLAKE_STATE_DIR`; the reason is `context` then `err`.
pub fn io_error(dir: &Path, context: &str, err: &std::io::Error) -> FlakeError {
  match super::os::transient(err) {
    Some(errno) => FlakeError::StateUnavailable {
      what: "state directory",
      path: dir.display().to_string(),
      reason: format!("{context}{err}"),
      errno,
    },
    None => error(dir, format!("{context}{err}")),
  }
}

/// Refuses `dir` unless it is a real directory (not a symlink), owned by this process's user
/// and writable by nobody else: anyone who can write in it could plant a state file that makes
/// this process reissue ids, or swap one for a symlink.
pub fn check(dir: &Path) -> Result<(), FlakeError> {
  let meta = fs::symlink_metadata(dir).map_err(|err| io_error(dir, "", &err))?;
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

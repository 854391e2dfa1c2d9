//! The state directory: where it is by default, and whether it is safe to share state through
//! (`check`, `not_ours`: each system's, from `os`).

use std::path::{Path, PathBuf};

use crate::os;
pub use crate::os::{check, not_ours};

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

/// The default state directories, in the order they are tried: the user's own temporary
/// directory where the system has one (`os::user_temp_dir`: macOS's, Windows's), then the
/// shared temporary ones, each with a directory per user (`os::shared_temp_dirs`: `/tmp`,
/// `/var/tmp`, and `/dev/shm` on Linux). The same for every process of a user, whatever its
/// environment: `XDG_RUNTIME_DIR` and `TMPDIR` differ between a login session and a service (two
/// directories would be two states of one generator id, so repeated ids), and `XDG_RUNTIME_DIR`
/// is removed at logout under running processes.
pub fn candidates() -> Vec<PathBuf> {
  let own = os::user_temp_dir().map(|dir| dir.join(NAME));
  own.into_iter().chain(os::shared_temp_dirs(NAME)).collect()
}

/// The name of a default state directory (in a shared temporary directory, with the uid).
const NAME: &str = "flake-idgen";

/// `dir` as a path, if it is an absolute one (and no NUL cuts it short).
pub fn absolute(dir: &str) -> Option<PathBuf> {
  (!dir.contains('\0') && Path::new(dir).is_absolute()).then(|| PathBuf::from(dir))
}

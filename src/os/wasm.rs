//! WebAssembly (WASI): no host scope. WASI shares no memory-mapped file between processes (a
//! module's memory is its own), so a state directory is never opened: `Dir::open` refuses every
//! one, which makes a default generator fall back to process scope with the one loud warning, and
//! an explicit `scope: 'host'` or `stateDir` fail with `ERR_FLAKE_STATE_DIR`. The rest is never
//! reached but for paths and arguments, which are Unicode here.

use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use super::refusal::error;
use crate::error::FlakeError;

/// Why no state directory is used here, for the warning and the error.
const NO_HOST_SCOPE: &str = "the WebAssembly build has no host scope (WASI shares no \
                             memory-mapped file between processes): use scope 'process' or \
                             leases";

/// A state directory: never had here (see `Dir::open`).
pub struct Dir(());

impl Dir {
  /// Refuses `dir`: there is no host scope here.
  pub fn open(dir: &Path) -> Result<Self, FlakeError> {
    Err(error(dir, NO_HOST_SCOPE))
  }

  /// Never called: no `Dir` is made.
  pub fn open_file(&self, _name: &str, _write: bool) -> io::Result<File> {
    Err(unsupported())
  }

  /// Never called: no `Dir` is made.
  pub fn create_new(&self, _name: &str) -> io::Result<File> {
    Err(unsupported())
  }

  /// Never called: no `Dir` is made.
  pub fn link(&self, _from: &str, _to: &str) -> io::Result<()> {
    Err(unsupported())
  }

  /// Never called: no `Dir` is made.
  pub fn remove(&self, _name: &str) -> io::Result<()> {
    Err(unsupported())
  }

  /// Never called: no `Dir` is made.
  pub fn changed_at(&self) -> io::Result<u64> {
    Err(unsupported())
  }

  /// Never called: no `Dir` is made.
  pub fn locked(self) -> Option<File> {
    None
  }
}

fn unsupported() -> io::Error {
  io::Error::new(io::ErrorKind::Unsupported, NO_HOST_SCOPE)
}

/// Later than any reading (as on Windows): never called here.
pub fn changed_at(_meta: &Metadata) -> u64 {
  u64::MAX
}

/// Refused: no state file is opened here (the `state` command reports it).
pub fn open(_path: &Path, _write: bool) -> io::Result<File> {
  Err(unsupported())
}

/// Never: no open here refuses a symlink.
pub fn refused_symlink(_err: &io::Error) -> bool {
  false
}

/// No identity is kept here: no file is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity;

/// The only identity there is.
pub fn identity(_file: &File) -> io::Result<Identity> {
  Ok(Identity)
}

/// None: no identity is kept here.
pub fn identity_words(_identity: Identity) -> Option<[u64; 2]> {
  None
}

/// The only identity there is.
pub fn identity_at(_path: &Path) -> io::Result<Identity> {
  Ok(Identity)
}

/// Never called: no state file is opened.
pub fn read_at(_file: &File, _buf: &mut [u8], _offset: u64) -> io::Result<()> {
  Err(unsupported())
}

/// Never called: no state file is opened.
pub fn write_at(_file: &File, _buf: &[u8], _offset: u64) -> io::Result<()> {
  Err(unsupported())
}

/// Never called: no state file is opened.
pub fn downgrade(_file: &File) -> io::Result<()> {
  Err(unsupported())
}

/// None: nothing here fails for a shortage that passes.
pub fn transient(_err: &io::Error) -> Option<&'static str> {
  None
}

/// Refuses `dir`: there is no host scope here.
pub fn check(dir: &Path) -> Result<(), FlakeError> {
  Err(error(dir, NO_HOST_SCOPE))
}

/// No reason: never called here.
pub fn not_ours(_meta: &Metadata) -> Option<String> {
  None
}

/// None: WASI has no temporary directory of its own (std's `temp_dir` panics there).
pub fn user_temp_dir() -> Option<PathBuf> {
  None
}

/// The default state directory's name under `/tmp`, which `Dir::open` refuses: a default
/// generator's warning names the directory it would have used elsewhere.
pub fn shared_temp_dirs(name: &str) -> Vec<PathBuf> {
  vec![Path::new("/tmp").join(name)]
}

/// True: a WebAssembly instance is never forked, so `forked` is never called.
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

/// The command line WASI was given.
pub fn arguments() -> Vec<OsString> {
  std::env::args_os().collect()
}

/// Never had: WASI gives no host name.
pub fn hostname() -> Result<String, String> {
  Err("WASI gives the WebAssembly build none".into())
}

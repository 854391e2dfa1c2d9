//! The functions behind `flake-idgen state`: the default state directory, the state file of
//! one, and resetting a generator id's state. None of them is on the per-id path.

use std::path::{Path, PathBuf};

use napi::bindgen_prelude::{Buffer, Either};
use napi::{Env, Result};
use napi_derive::napi;

use super::error::thrown;
use crate::error::FlakeError;
use crate::host::{admin, dir};
use crate::input::Input;
use crate::kinds::layout::Shape;
use crate::number::whole;

/// A generator id's last id, as a state file records it.
#[napi(object)]
pub struct StateEntry {
  /// The generator id.
  pub id: u32,
  /// The last id's timestamp, in ms since 1970.
  pub time: f64,
  /// The last id's sequence number.
  pub sequence: u32,
}

/// The state file: its path (as `defaultStateDir` shows a directory), its entries, or why it
/// cannot be read (`error`, `code`).
#[napi(object)]
pub struct StateFile {
  /// The file's path.
  pub path: String,
  /// Every generator id that has issued an id from it, by id.
  pub entries: Vec<StateEntry>,
  /// Why it cannot be read, if it cannot.
  pub error: Option<String>,
  /// The error's code (`ERR_FLAKE_STATE_FILE`), if it cannot be read.
  pub code: Option<String>,
}

/// What a reset did to the state file.
#[napi(object)]
pub struct StateReset {
  /// The file's path.
  pub path: String,
  /// The file held no other id's state, and was removed.
  pub removed: bool,
}

/// The state directory generators use by default (`$FLAKE_IDGEN_STATE_DIR`, read as bytes, else
/// the first of the default candidates: `/tmp/flake-idgen-<uid>` on Linux), printable: a UTF-8
/// path as it is, any other quoted, each byte that is not UTF-8 escaped (`"/tmp/\xFF"`).
#[napi]
pub fn default_state_dir() -> String {
  shown(&dir::default_dir())
}

/// A state directory as the command prints it: a UTF-8 path as it is; any other quoted, each
/// byte that is not UTF-8 escaped (`"/tmp/\xFF"`), so that two such names never print alike.
fn shown(path: &Path) -> String {
  path
    .to_str()
    .map_or_else(|| format!("{path:?}"), str::to_string)
}

/// A directory as the command names it: `undefined` for the default one (the environment read
/// as bytes), a string, or a Buffer of the name's bytes (a name that is not UTF-8).
fn state_dir(dir: Option<Either<String, Buffer>>) -> std::result::Result<PathBuf, FlakeError> {
  let path = match dir {
    None => return Ok(dir::default_dir()),
    Some(Either::A(text)) => return absolute(&text),
    Some(Either::B(bytes)) => from_bytes(bytes.to_vec()),
  };
  match path {
    Some(path) if path.is_absolute() => Ok(path),
    _ => Err(FlakeError::ArgumentValue {
      argument: "dir".into(),
      expected: "an absolute path".into(),
      got: Input::String(path.map_or_else(String::new, |path| path.display().to_string())),
    }),
  }
}

#[cfg(unix)]
fn from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
  use std::os::unix::ffi::OsStringExt;
  (!bytes.contains(&0)).then(|| PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// Outside Unix a name is Unicode: its bytes must be UTF-8.
#[cfg(not(unix))]
fn from_bytes(bytes: Vec<u8>) -> Option<PathBuf> {
  String::from_utf8(bytes)
    .ok()
    .filter(|text| !text.contains('\0'))
    .map(PathBuf::from)
}

/// The bytes of the command line's argument `fromEnd` places from its end (1: the last), if it
/// reads as `expected` once decoded as Node decodes it (invalid UTF-8 replaced): what the
/// command was given where Node's `process.argv` cannot say it. `undefined` if it does not
/// read so (Node's own options are not in `process.argv`, hence counting from the end).
#[napi]
pub fn raw_argument(from_end: u32, expected: String) -> Option<Buffer> {
  let args: Vec<_> = std::env::args_os().collect();
  let arg = args
    .len()
    .checked_sub(from_end as usize)
    .and_then(|at| args.get(at))?;
  (from_end > 0 && arg.to_string_lossy() == expected)
    .then(|| arg.as_encoded_bytes().to_vec().into())
}

/// A state directory and its state file, if it has one.
#[napi(object)]
pub struct StateListing {
  /// The directory, as `defaultStateDir` shows it.
  pub dir: String,
  /// Its state file, if it has one.
  pub file: Option<StateFile>,
}

/// The state file of `dir` (the default directory if `undefined`): none if there is none (or
/// no directory), else its entries or why it cannot be read. Throws `ERR_FLAKE_STATE_DIR` if
/// the directory is not safe to use.
#[napi(ts_args_type = "dir?: string | Buffer | undefined | null")]
pub fn state_files(env: &Env, dir: Option<Either<String, Buffer>>) -> Result<StateListing> {
  let dir = state_dir(dir).map_err(|e| thrown(env, e))?;
  let listed = admin::list(&dir).map_err(|e| thrown(env, e))?;
  let file = listed.map(|file| {
    let path = shown(&file.path);
    match file.entries {
      Ok(entries) => StateFile {
        path,
        entries: entries
          .into_iter()
          .map(|entry| StateEntry {
            id: u32::from(entry.id),
            time: entry.time as f64,
            sequence: u32::from(entry.sequence),
          })
          .collect(),
        error: None,
        code: None,
      },
      Err(err) => StateFile {
        path,
        entries: Vec::new(),
        error: Some(err.to_string()),
        code: Some(err.code().into()),
      },
    }
  });
  Ok(StateListing {
    dir: shown(&dir),
    file,
  })
}

/// Forgets generator `id`'s state in the state file of `dir` (the default directory if
/// `undefined`), and removes the file if that leaves it with no state: one `StateReset`, or
/// none if the file has no state of `id`'s. Throws `ERR_FLAKE_STATE_IN_USE`, changing nothing,
/// while a process has the file open.
#[napi(ts_args_type = "dir: string | Buffer | undefined | null, id: number")]
pub fn reset_state(
  env: &Env,
  dir: Option<Either<String, Buffer>>,
  id: f64,
) -> Result<Vec<StateReset>> {
  let checked = || -> std::result::Result<_, FlakeError> {
    let dir = state_dir(dir)?;
    let id = whole(id)
      .filter(|id| *id <= u64::from(Shape::FLAKE_IDGEN.max_node()))
      .ok_or_else(|| FlakeError::ArgumentRange {
        argument: "id".into(),
        expected: "an integer from 0 to 1023".into(),
        got: Input::Number(id),
      })?;
    admin::reset(&dir, id as u16)
  };
  let done = checked().map_err(|e| thrown(env, e))?;
  Ok(
    done
      .into_iter()
      .map(|reset| StateReset {
        path: shown(&reset.path),
        removed: reset.removed,
      })
      .collect(),
  )
}

fn absolute(dir: &str) -> std::result::Result<PathBuf, FlakeError> {
  dir::absolute(dir).ok_or_else(|| FlakeError::ArgumentValue {
    argument: "dir".into(),
    expected: "an absolute path".into(),
    got: Input::String(dir.into()),
  })
}

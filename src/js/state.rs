//! The functions behind `flake-idgen state`: the default state directory, the state files of
//! one, and resetting what one holds. None of them is on the per-id path.

use std::path::{Path, PathBuf};

use napi::bindgen_prelude::{Buffer, Either};
use napi::{Env, Result};
use napi_derive::napi;

use crate::error::FlakeError;
use crate::host::{admin, dir};
use crate::input::Input;
use crate::js::values::error::thrown;
use crate::number::whole;
use crate::os;

/// A node id's last id, as a state file records it.
#[napi(object)]
pub struct StateEntry {
  /// The node (generator) id.
  pub id: u32,
  /// The start of the last id's time unit, in ms since 1970.
  pub time: f64,
  /// The last id's sequence number.
  pub sequence: u32,
}

/// A state file: its path (as `defaultStateDir` shows a directory), name and layout, what it
/// holds, or why it cannot be read (`error`, `code`).
#[napi(object)]
pub struct StateFile {
  /// The file's path.
  pub path: String,
  /// Its name in the directory, as `resetState` takes it.
  pub name: String,
  /// The layout shape of its ids, as a lease namespace records it (`42/10/12`).
  pub layout: String,
  /// The kinds of ids it serves: `layout` presets, `uuidv7`, `Flake128`; empty for a custom
  /// layout's.
  pub kinds: Vec<String>,
  /// Its start, ms since 1970: no id is issued from it at or before that time (0: none).
  pub start: f64,
  /// Every node id that has issued an id from it, by id.
  pub entries: Vec<StateEntry>,
  /// Why it cannot be read, if it cannot.
  pub error: Option<String>,
  /// The error's code (`ERR_FLAKE_STATE_FILE`), if it cannot be read.
  pub code: Option<String>,
}

/// What a reset did to a state file.
#[napi(object)]
pub struct StateReset {
  /// The file's path.
  pub path: String,
  /// Something was forgotten: false when there was nothing of the target's to forget.
  pub done: bool,
  /// The file is removed (the target was the whole file, or nothing was left in it).
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
    Some(Either::B(bytes)) => os::path_from_bytes(bytes.to_vec()),
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

/// The bytes of the command line's argument `fromEnd` places from its end (1: the last), if it
/// reads as `expected` once decoded as Node decodes it (invalid UTF-8 replaced): what the
/// command was given where Node's `process.argv` cannot say it. `undefined` if it does not
/// read so (Node's own options are not in `process.argv`, hence counting from the end).
#[napi]
pub fn raw_argument(from_end: u32, expected: String) -> Option<Buffer> {
  let args = os::arguments();
  let arg = args
    .len()
    .checked_sub(from_end as usize)
    .and_then(|at| args.get(at))?;
  (from_end > 0 && arg.to_string_lossy() == expected)
    .then(|| arg.as_encoded_bytes().to_vec().into())
}

/// A state directory and its state files.
#[napi(object)]
pub struct StateListing {
  /// The directory, as `defaultStateDir` shows it.
  pub dir: String,
  /// Its state files: flake-idgen's first, then by name.
  pub files: Vec<StateFile>,
}

/// Every state file of `dir` (the default directory if `undefined`; none if there is no
/// directory), each with what it holds or why it cannot be read. Throws `ERR_FLAKE_STATE_DIR`
/// if the directory is not safe to use.
#[napi(ts_args_type = "dir?: string | Buffer | undefined | null")]
pub fn state_files(env: &Env, dir: Option<Either<String, Buffer>>) -> Result<StateListing> {
  let dir = state_dir(dir).map_err(|e| thrown(env, e))?;
  let listed = admin::list(&dir).map_err(|e| thrown(env, e))?;
  let files = listed.into_iter().map(|file| {
    let (contents, error, code) = match file.contents {
      Ok(contents) => (contents, None, None),
      Err(err) => (
        admin::Contents {
          start: 0,
          entries: Vec::new(),
        },
        Some(err.to_string()),
        Some(err.code().into()),
      ),
    };
    StateFile {
      name: file
        .path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default(),
      path: shown(&file.path),
      layout: file.shape.key(),
      kinds: admin::kinds(file.shape)
        .into_iter()
        .map(String::from)
        .collect(),
      start: contents.start as f64,
      entries: contents
        .entries
        .into_iter()
        .map(|entry| StateEntry {
          id: u32::from(entry.id),
          time: entry.time as f64,
          sequence: u32::from(entry.sequence),
        })
        .collect(),
      error,
      code,
    }
  });
  Ok(StateListing {
    dir: shown(&dir),
    files: files.collect(),
  })
}

/// Forgets `what` in the state file `file` of `dir` (the default directory if `undefined`): a
/// node id's state (a number), the start when it is ahead of the clock (`'start'`), or the
/// whole file (`'all'`); removes the file once it holds nothing. Throws
/// `ERR_FLAKE_STATE_IN_USE`, changing nothing, while a process has the file open.
#[napi(
  ts_args_type = "dir: string | Buffer | undefined | null, file: string, what: number | 'start' | 'all'"
)]
pub fn reset_state(
  env: &Env,
  dir: Option<Either<String, Buffer>>,
  file: String,
  what: Either<f64, String>,
) -> Result<StateReset> {
  let checked = || -> std::result::Result<_, FlakeError> {
    let dir = state_dir(dir)?;
    let shape = admin::shape_named(&file)?;
    let target = match what {
      Either::B(text) if text == "start" => admin::Target::Start,
      Either::B(text) if text == "all" => admin::Target::All,
      Either::B(text) => {
        return Err(FlakeError::ArgumentValue {
          argument: "what".into(),
          expected: admin::expected_target(shape),
          got: Input::String(text),
        })
      }
      Either::A(id) => admin::Target::Id(
        whole(id)
          .and_then(|id| u16::try_from(id).ok())
          .ok_or_else(|| FlakeError::ArgumentRange {
            argument: "what".into(),
            expected: admin::expected_target(shape),
            got: Input::Number(id),
          })?,
      ),
    };
    admin::reset(&dir, &file, target)
  };
  let done = checked().map_err(|e| thrown(env, e))?;
  Ok(StateReset {
    path: shown(&done.path),
    done: done.outcome != admin::Outcome::Nothing,
    removed: done.outcome == admin::Outcome::Removed,
  })
}

fn absolute(dir: &str) -> std::result::Result<PathBuf, FlakeError> {
  dir::absolute(dir).ok_or_else(|| FlakeError::ArgumentValue {
    argument: "dir".into(),
    expected: "an absolute path".into(),
    got: Input::String(dir.into()),
  })
}

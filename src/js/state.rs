//! The functions behind `flake-idgen state`: the default state directory, the state file of
//! one, and resetting a generator id's state. None of them is on the per-id path.

use std::path::PathBuf;

use napi::{Env, Result};
use napi_derive::napi;

use super::error::thrown;
use crate::error::FlakeError;
use crate::host::{admin, dir};
use crate::input::Input;
use crate::layout::MAX_NODE;
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

/// The state file: its entries, or why it cannot be read (`error`, `code`).
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

/// The state directory generators use by default: `$FLAKE_IDGEN_STATE_DIR`, else
/// `$XDG_RUNTIME_DIR/flake-idgen`, else `flake-idgen-<uid>` in the temporary directory.
#[napi]
pub fn default_state_dir() -> String {
  dir::default_dir().display().to_string()
}

/// The state file of `dir`: none if there is none (or no directory), else one, with its entries
/// or why it cannot be read. Throws `ERR_FLAKE_STATE_DIR` if the directory is not safe to use.
#[napi]
pub fn state_files(env: &Env, dir: String) -> Result<Vec<StateFile>> {
  let dir = absolute(&dir).map_err(|e| thrown(env, e))?;
  let listed = admin::list(&dir).map_err(|e| thrown(env, e))?;
  Ok(
    listed
      .into_iter()
      .map(|file| {
        let path = file.path.display().to_string();
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
      })
      .collect(),
  )
}

/// Forgets generator `id`'s state in the state file of `dir`, and removes the file if that
/// leaves it with no state: one `StateReset`, or none if the file has no state of `id`'s. Throws
/// `ERR_FLAKE_STATE_IN_USE`, changing nothing, while a process has the file open.
#[napi]
pub fn reset_state(env: &Env, dir: String, id: f64) -> Result<Vec<StateReset>> {
  let checked = || -> std::result::Result<_, FlakeError> {
    let dir = absolute(&dir)?;
    let id = whole(id)
      .filter(|id| *id <= u64::from(MAX_NODE))
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
        path: reset.path.display().to_string(),
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

//! What `flake-idgen state` does: list every state file of a directory (flake-idgen's, and one
//! per other layout shape: UUIDv7's, Flake128's, a custom layout's), and reset what one of them
//! holds: a node id's word, its start, or the whole file. Both read and write through file
//! descriptors, never through a mapping.

use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use super::dir;
use super::file::{error, open_checked, OpenFailure};
use super::format::{word_offset, Format, FILE_NAME, HEADER_LEN, LINE, START_OFFSET};
use crate::clock::system_now_ms;
use crate::error::FlakeError;
use crate::input::Input;
use crate::kinds::layout::{Order, Preset, Shape};
use crate::kinds::KINDS;
use crate::os::{read_at, write_at};
use crate::sequencer::{last_issued, NOTHING_ISSUED};

/// The last id a node id issued, as a state file records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
  /// The node (generator) id.
  pub id: u16,
  /// The start of its time unit, in ms since 1970.
  pub time: u64,
  /// Its sequence number.
  pub sequence: u16,
}

/// What a state file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contents {
  /// Its start, in ms since 1970: no id is issued from it at or before that time (0: none).
  pub start: u64,
  /// Every node id that has issued an id from it, by id.
  pub entries: Vec<Entry>,
}

/// One state file of a directory: the layout shape its name says, what it holds, or why it
/// cannot be read.
#[derive(Debug)]
pub struct Listed {
  /// The file's path.
  pub path: PathBuf,
  /// The shape of the ids whose state it holds.
  pub shape: Shape,
  /// Its contents, or why they cannot be read.
  pub contents: Result<Contents, FlakeError>,
}

/// The kinds of ids a shape's state file serves, as their users name them: the `layout`
/// presets of that shape, then the kinds of `KINDS` made from it by what the package exports
/// (`uuidv7`, `Flake128`); none for a custom layout's.
pub fn kinds(shape: Shape) -> Vec<&'static str> {
  let presets = Preset::ALL
    .into_iter()
    .filter(|preset| preset.shape() == shape)
    .map(Preset::name);
  let kinds = KINDS
    .iter()
    .filter(|row| row.shape == Some(shape))
    .map(|row| row.export);
  presets.chain(kinds).collect()
}

/// The shape whose state file `name` is, if it is one: exactly the name this version gives
/// that shape's file (`epoch-0.state`, `layout-48_0_15.state`); any other name is none of ours.
pub fn shape_of(name: &str) -> Option<Shape> {
  if name == FILE_NAME {
    return Some(Shape::FLAKE_IDGEN);
  }
  let key = name.strip_prefix("layout-")?.strip_suffix(".state")?;
  let mut fields = key.split('_');
  let (time, first, second) = (fields.next()?, fields.next()?, fields.next()?);
  if fields.next().is_some() {
    return None;
  }
  let (time_bits, unit_ms) = match time.split_once('x') {
    Some((bits, unit)) => (bits, unit.strip_suffix("ms")?),
    None => (time, "1"),
  };
  let (order, node_bits, sequence_bits) =
    match (first.strip_prefix("seq"), second.strip_prefix("node")) {
      (Some(sequence), Some(node)) => (Order::SequenceNode, node, sequence),
      _ => (Order::NodeSequence, first, second),
    };
  let shape = Shape {
    time_bits: time_bits.parse().ok()?,
    unit_ms: unit_ms.parse().ok()?,
    node_bits: node_bits.parse().ok()?,
    sequence_bits: sequence_bits.parse().ok()?,
    order,
  }
  .check()
  .ok()?;
  // A name that parses but is not the one written (`layout-048_0_15.state`) is not ours.
  (Format { shape }.file_name() == name).then_some(shape)
}

/// The shape whose state file `name` is, or an error naming the argument `file`.
pub fn shape_named(name: &str) -> Result<Shape, FlakeError> {
  shape_of(name).ok_or_else(|| FlakeError::ArgumentValue {
    argument: "file".into(),
    expected: "the name of a state file as listed (epoch-0.state, or layout-<shape>.state)".into(),
    got: Input::String(name.into()),
  })
}

/// Every state file of `dir`, flake-idgen's first, then by name (a missing directory has
/// none). A snapshot: processes may be issuing ids meanwhile.
pub fn list(dir: &Path) -> Result<Vec<Listed>, FlakeError> {
  match fs::symlink_metadata(dir) {
    Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
    _ => dir::check(dir)?,
  }
  let names = fs::read_dir(dir).map_err(|err| FlakeError::StateDir {
    dir: dir.display().to_string(),
    reason: format!("cannot list it: {err}"),
  })?;
  let mut found: Vec<(String, Shape)> = names
    .filter_map(|entry| {
      let name = entry.ok()?.file_name().into_string().ok()?;
      shape_of(&name).map(|shape| (name, shape))
    })
    .collect();
  found.sort_by(|a, b| (a.0 != FILE_NAME, &a.0).cmp(&(b.0 != FILE_NAME, &b.0)));
  Ok(
    found
      .into_iter()
      .filter_map(|(name, shape)| {
        let path = dir.join(name);
        let file = match open_checked(&path, Format { shape }, false) {
          // Removed since the directory was read.
          Err(OpenFailure::Missing) => return None,
          Err(OpenFailure::Refused(err)) => Err(err),
          Ok(file) => Ok(file),
        };
        let contents = file.and_then(|file| read(&path, &file, Format { shape }));
        Some(Listed {
          path,
          shape,
          contents,
        })
      })
      .collect(),
  )
}

/// The start and the words of `file`, a checked state file of `format`.
fn read(path: &Path, file: &File, format: Format) -> Result<Contents, FlakeError> {
  let failed = |err: io::Error| error(path, err.to_string());
  let mut start = [0; 8];
  read_at(file, &mut start, START_OFFSET as u64).map_err(failed)?;
  let mut words = vec![0; format.words() * LINE];
  read_at(file, &mut words, HEADER_LEN as u64).map_err(failed)?;
  let word = format.shape.word();
  let entries = words
    .chunks_exact(LINE)
    .zip(0..=format.shape.max_node())
    .filter_map(|(line, id)| {
      let state = u64::from_ne_bytes(line[..8].try_into().unwrap());
      last_issued(word, state).map(|(time, sequence)| Entry {
        id,
        time: time.saturating_mul(format.shape.unit()),
        sequence,
      })
    })
    .collect();
  Ok(Contents {
    start: u64::from_ne_bytes(start),
    entries,
  })
}

/// What a reset forgets of a state file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
  /// One node id's word: its next id starts from the clock.
  Id(u16),
  /// The start, when it is ahead of the clock: node ids that never issued ahead of the clock
  /// issue again at once.
  Start,
  /// The whole file: every word and the start.
  All,
}

/// What a reset did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
  /// There was nothing of the target's to forget: no such file, a damaged one (left to the
  /// listing), no state of that id's, or no start ahead of the clock.
  Nothing,
  /// The target's state is forgotten; the file holds the rest.
  Reset,
  /// The file is removed: the target was the whole file, or nothing was left in it.
  Removed,
}

/// A reset's file and what was done to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reset {
  /// The file's path.
  pub path: PathBuf,
  /// What was done.
  pub outcome: Outcome,
}

/// Forgets `target` in the state file `name` of `dir`, and removes the file once it holds
/// nothing (no word, no start ahead of the clock). Refused, with nothing changed, while any
/// process has the file open: it would go on issuing from the state this forgets.
pub fn reset(dir: &Path, name: &str, target: Target) -> Result<Reset, FlakeError> {
  let shape = shape_named(name)?;
  if let Target::Id(id) = target {
    if id > shape.max_node() {
      return Err(FlakeError::ArgumentRange {
        argument: "what".into(),
        expected: expected_target(shape),
        got: Input::Number(f64::from(id)),
      });
    }
  }
  dir::check(dir)?;
  let format = Format { shape };
  let path = dir.join(name);
  let done = |outcome| {
    Ok(Reset {
      path: path.clone(),
      outcome,
    })
  };
  // A damaged file is left to the listing to report: it holds no state a reset could clear.
  let Ok(file) = open_checked(&path, format, true) else {
    return done(Outcome::Nothing);
  };
  match file.try_lock() {
    Ok(()) => {}
    Err(TryLockError::WouldBlock) => {
      return Err(FlakeError::StateInUse {
        path: path.display().to_string(),
      })
    }
    Err(TryLockError::Error(err)) => return Err(error(&path, format!("cannot lock it: {err}"))),
  }
  let contents = read(&path, &file, format)?;
  let ahead = contents.start > system_now_ms();
  let (forgot, words_left, start_left) = match target {
    Target::All => (true, false, false),
    Target::Id(id) => (
      contents.entries.iter().any(|entry| entry.id == id),
      contents.entries.iter().any(|entry| entry.id != id),
      ahead,
    ),
    Target::Start => (ahead, !contents.entries.is_empty(), false),
  };
  if !forgot {
    return done(Outcome::Nothing);
  }
  let failed = |err: io::Error| error(&path, err.to_string());
  if !words_left && !start_left {
    fs::remove_file(&path).map_err(failed)?;
    return done(Outcome::Removed);
  }
  let (bytes, at) = match target {
    Target::Id(id) => (NOTHING_ISSUED.to_ne_bytes(), word_offset(id)),
    _ => (0u64.to_ne_bytes(), START_OFFSET),
  };
  write_at(&file, &bytes, at as u64)
    .and_then(|()| file.sync_all())
    .map_err(failed)?;
  done(Outcome::Reset)
}

/// What a reset of a file of `shape` takes, as its refusal says it.
pub fn expected_target(shape: Shape) -> String {
  format!("a node id from 0 to {}, 'start' or 'all'", shape.max_node())
}

//! The shared states: one per layout shape and node id per process, so that every instance with
//! that id, in any thread and of any epoch, draws from the same state and never repeats an id;
//! and one mapped state file per state directory and shape for host scope. Both are bounded
//! (a word per node id used, one mapping per directory and shape) and kept while they are the
//! state: a generator made after the last one was dropped must still not reissue its ids, and
//! keeping the word is what remembers them. A mapping found lost is let go of (`HostFile::
//! release`) and replaced by the directory's current file for the generators made after; those
//! of before go on refusing (see `host::file`).
//!
//! One node id of a shape has one state in a process: a second state directory for an id that
//! issues from one already is refused, since two states would issue the same ids.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard};

use crate::clock::SystemClock;
use crate::error::FlakeError;
use crate::host::HostFile;
use crate::kinds::layout::Shape;
use crate::kinds::Kind;
use crate::options::{Config, Scope};
use crate::sequencer::{Floor, Sequencer};

/// A generator id's shared state: a word of the process's, or of a mapped state file (host
/// scope), which says how long it may be issued from (see `host::file`).
#[derive(Debug, Clone, Copy)]
pub struct SharedState {
  pub sequencer: &'static Sequencer,
  pub file: Option<&'static HostFile>,
  /// The last id the process took from a mapped file's word (see `Floor`).
  pub floor: Option<&'static Floor>,
}

/// A state word on a cache line of its own: threads busy on different ids do not contend.
#[repr(align(64))]
struct Line(Sequencer);

/// flake-idgen's shape: its 1,024 words, always there, so its generators take no lock.
static PROCESS: [Line; 1024] = [const { Line(Sequencer::new()) }; 1024];

/// The other shapes' words, made on first use (a shape may have 65,536 node ids, of which a
/// process uses a few).
static OTHER_SHAPES: LazyLock<Mutex<HashMap<(Shape, u16), &'static Sequencer>>> =
  LazyLock::new(Default::default);

/// The process's mapped state files, and which directory each node id issues from.
#[derive(Default)]
struct HostFiles {
  /// Keyed by state directory and shape. A lasting failure is kept too: once a directory has
  /// failed so, every generator of the process that may fall back does, so none issues from
  /// the file while another of the same id issues from process state. A transient one
  /// (`StateUnavailable`: descriptors, memory, disk space short for a moment) is not kept, nor
  /// fallen back from (see `shared_state`): the next generator tries the directory again, and
  /// until one gets it none issues, so every generator of the process still lands in one place.
  by_dir: HashMap<(PathBuf, Shape), Result<&'static HostFile, FlakeError>>,
  /// The directories and shapes whose mapping this process lost and has not mapped again: the
  /// next mapping takes the path's file for a new one (`HostFile::open`'s `after_loss`),
  /// however many tries that takes.
  lost: std::collections::HashSet<(PathBuf, Shape)>,
  dir_of_id: HashMap<(Shape, u16), PathBuf>,
  /// The node ids that issue from the process's state (scope `'process'`, or fallen back to
  /// it): never from a directory's too, nor the other way round (`StateScopeTaken`).
  process_ids: std::collections::HashSet<(Shape, u16)>,
}

static HOST_FILES: LazyLock<Mutex<HostFiles>> = LazyLock::new(Default::default);

/// Warnings not yet handed out by `take_fallback`, and which kinds were ever raised.
static WARNINGS: Mutex<Vec<Warning>> = Mutex::new(Vec::new());
static WARNED: [AtomicBool; 2] = [const { AtomicBool::new(false) }; 2];

/// Why host scope is not what the user gets by default: the one thing that may happen
/// silently otherwise, so each kind is warned about once per process.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
  /// No state directory could be used: the generator issues from the process's state.
  ProcessScope { reasons: Vec<FlakeError> },
  /// The first default directory could not be used, `dir` (a later one) is.
  OtherDirectory {
    dir: PathBuf,
    reasons: Vec<FlakeError>,
  },
}

impl Warning {
  const fn kind(&self) -> usize {
    match self {
      Self::ProcessScope { .. } => 0,
      Self::OtherDirectory { .. } => 1,
    }
  }
}

impl std::fmt::Display for Warning {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    let reasons = |f: &mut std::fmt::Formatter<'_>, reasons: &[FlakeError]| {
      reasons
        .iter()
        .enumerate()
        .try_for_each(|(i, reason)| write!(f, "{}{reason}", if i == 0 { "" } else { "; " }))
    };
    match self {
      Self::ProcessScope { reasons: why } => {
        f.write_str("host scope unavailable, ids are unique per process only: ")?;
        reasons(f, why)
      }
      Self::OtherDirectory { dir, reasons: why } => {
        write!(
          f,
          "host scope moved to state directory {}, ids may repeat with processes that can use \
           the one before it: ",
          crate::input::QuotedPath(&dir.display().to_string())
        )?;
        reasons(f, why)
      }
    }
  }
}

// A panic elsewhere cannot leave a map half-written (insert is the only mutation).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
  mutex
    .lock()
    .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The process's state of node id `node` (≤ `shape.max_node()`) of `shape`.
pub fn process(shape: Shape, node: u16) -> SharedState {
  let sequencer = if shape == Shape::FLAKE_IDGEN {
    &PROCESS[usize::from(node)].0
  } else {
    *lock(&OTHER_SHAPES)
      .entry((shape, node))
      .or_insert_with(|| &Box::leak(Box::new(Line(Sequencer::new()))).0)
  };
  SharedState {
    sequencer,
    file: None,
    floor: None,
  }
}

/// The host's state of node id `node` of `shape`, kept in `dir`: the directory's file of the
/// shape is mapped once per process, on first use, and stays mapped until the process ends (or
/// is found lost).
pub fn host(dir: &Path, shape: Shape, node: u16) -> Result<SharedState, FlakeError> {
  let mut files = lock(&HOST_FILES);
  let key = (dir.to_path_buf(), shape);
  let lost = match files.by_dir.get(&key) {
    Some(Ok(file)) if file.is_lost() => Some(*file),
    _ => None,
  };
  if let Some(lost) = lost {
    files.by_dir.remove(&key);
    files.lost.insert(key.clone());
    // A loss the SIGBUS handler marked is released here: it could not let go of anything.
    lost.release();
  }
  let file = match files.by_dir.get(&key) {
    Some(opened) => opened.clone()?,
    None => {
      let after_loss = files.lost.contains(&key);
      let opened = HostFile::open(dir, shape, &mut SystemClock::new(), after_loss);
      // A busy file, or one unavailable for now, is not kept as the directory's failure: it
      // is tried again next time.
      if !matches!(
        opened,
        Err(FlakeError::StateBusy { .. } | FlakeError::StateUnavailable { .. })
      ) {
        if opened.is_ok() {
          files.lost.remove(&key);
        }
        files.by_dir.insert(key, opened.clone());
      }
      opened?
    }
  };
  // Checked once the directory is known usable: an unusable one is the reason to go on to
  // the next candidate, which may be the one the id uses.
  if files.process_ids.contains(&(shape, node)) && one_state_per_process(shape) {
    return Err(FlakeError::StateScopeTaken {
      id: node,
      asked: format!(
        "the state in {}",
        crate::input::QuotedPath(&dir.display().to_string())
      ),
      has: "its own state (scope 'process')".into(),
    });
  }
  match files.dir_of_id.get(&(shape, node)) {
    Some(other) if other != dir => Err(FlakeError::StateDirTaken {
      dir: dir.display().to_string(),
      other: other.display().to_string(),
      id: node,
    }),
    Some(_) => Ok(()),
    None => {
      files.dir_of_id.insert((shape, node), dir.to_path_buf());
      Ok(())
    }
  }?;
  Ok(SharedState {
    sequencer: file.sequencer(node),
    file: Some(file),
    floor: Some(file.floor(node)),
  })
}

/// Notes `warning`, unless one of its kind was noted before in this process.
pub fn warn(warning: Warning) {
  if !WARNED[warning.kind()].swap(true, Ordering::AcqRel) {
    lock(&WARNINGS).push(warning);
  }
}

/// A warning noted and not yet handed out, the first time it is asked for: each is emitted
/// once in the process, by the call that gets it.
pub fn take_fallback() -> Option<Warning> {
  let mut warnings = lock(&WARNINGS);
  (!warnings.is_empty()).then(|| warnings.remove(0))
}

/// The shared state a system-clock configuration issues from: the host's (in a state file) or
/// the process's. When its directory cannot be used, the default directory's next candidates
/// are tried in order (a warning noted if one is used); when none can, a host scope that was
/// not asked for falls back to the process's state (a warning noted), one that was asked for
/// fails with the first directory's error. A directory unavailable for now
/// (`StateUnavailable`), busy, or another than the id's is never fallen back from: the error is
/// thrown, asked for or not, since a sibling process issues from that directory's state.
pub fn shared_state(config: &Config) -> Result<(SharedState, bool), FlakeError> {
  match &config.scope {
    Scope::Process => in_process(config.layout.shape, config.id).map(|state| (state, false)),
    Scope::Host {
      dir,
      alternatives,
      required,
    } => match host(dir, config.layout.shape, config.id) {
      Ok(sequencer) => Ok((sequencer, true)),
      // Another directory, or process scope, would be a second state for the id: its file is
      // used by others (busy), or this process uses another for it, or it is short of
      // something for a moment (others use it, and this process will once it can).
      Err(err) if stays(&err) => Err(err),
      Err(err) => fall_back(config, alternatives, *required, err),
    },
  }
}

/// `shared_state` once the first directory failed with `err`. A directory's failure is kept by
/// the registry, so every generator of the process lands in the same place.
#[cold]
fn fall_back(
  config: &Config,
  alternatives: &[std::path::PathBuf],
  required: bool,
  err: FlakeError,
) -> Result<(SharedState, bool), FlakeError> {
  let mut reasons = vec![err];
  for dir in alternatives {
    match host(dir, config.layout.shape, config.id) {
      Ok(sequencer) => {
        warn(Warning::OtherDirectory {
          dir: dir.clone(),
          reasons,
        });
        return Ok((sequencer, true));
      }
      Err(err) if stays(&err) => return Err(err),
      Err(err) => reasons.push(err),
    }
  }
  // An id this process issues from a directory's state (whose mapping it lost since) goes on
  // refusing rather than issue from a second state.
  let issued_from_host = lock(&HOST_FILES)
    .dir_of_id
    .contains_key(&(config.layout.shape, config.id));
  if required || issued_from_host {
    return Err(reasons.swap_remove(0));
  }
  let state = in_process(config.layout.shape, config.id)?;
  warn(Warning::ProcessScope { reasons });
  Ok((state, false))
}

/// Whether two states of `shape` in one process could issue the same id: not for a kind whose
/// ids carry random bits (UUIDv7s), whose process-wide order `uuidv7.create({ scope:
/// 'process' })` offers beside the host's on purpose.
fn one_state_per_process(shape: Shape) -> bool {
  Kind::wide_of(shape).is_none_or(|wide| wide.row().random_bits == 0)
}

/// The process's state of node id `node` of `shape`, for a generator of scope `'process'` (or
/// fallen back to it): refused for an id this process issues from a directory's state, which
/// would repeat its ids.
fn in_process(shape: Shape, node: u16) -> Result<SharedState, FlakeError> {
  let mut files = lock(&HOST_FILES);
  if let Some(dir) = files
    .dir_of_id
    .get(&(shape, node))
    .filter(|_| one_state_per_process(shape))
  {
    return Err(FlakeError::StateScopeTaken {
      id: node,
      asked: "its own state (scope 'process')".into(),
      has: format!(
        "the state in {}",
        crate::input::QuotedPath(&dir.display().to_string())
      ),
    });
  }
  files.process_ids.insert((shape, node));
  drop(files);
  Ok(process(shape, node))
}

/// Whether `err` ends the search for a state where it is met: no other directory, nor process
/// scope, may be used instead (see `shared_state`).
fn stays(err: &FlakeError) -> bool {
  matches!(
    err,
    FlakeError::StateDirTaken { .. }
      | FlakeError::StateScopeTaken { .. }
      | FlakeError::StateBusy { .. }
      | FlakeError::StateUnavailable { .. }
  )
}

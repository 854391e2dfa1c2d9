//! The shared states: one per generator id per process, so that every instance with that id, in
//! any thread and of any epoch, draws from the same state and never repeats an id; and one
//! mapped state file per state directory for host scope. Both are bounded (1,024 words per
//! process, one mapping per directory) and never released: a generator made after the last one
//! was dropped must still not reissue its ids, and keeping the word is what remembers them. A
//! mapping found lost is replaced by the directory's current file for the generators made after;
//! those of before go on refusing (see `host::file`).
//!
//! One generator id has one state in a process: a second state directory for an id that issues
//! from one already is refused, since two states would issue the same ids.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard};

use crate::clock::SystemClock;
use crate::error::FlakeError;
use crate::generator::SharedState;
use crate::host::{dir, HostFile};
use crate::layout::MAX_NODE;
use crate::sequencer::Sequencer;

/// A state word on a cache line of its own: threads busy on different ids do not contend.
#[repr(align(64))]
struct Line(Sequencer);

static PROCESS: [Line; MAX_NODE as usize + 1] =
  [const { Line(Sequencer::new()) }; MAX_NODE as usize + 1];

/// The process's mapped state files, and which directory each generator id issues from.
#[derive(Default)]
struct HostFiles {
  /// Keyed by state directory. A failure is kept too: once a directory has failed, every
  /// generator of the process that may fall back does, so none issues from the file while
  /// another of the same id issues from process state.
  by_dir: HashMap<PathBuf, Result<&'static HostFile, FlakeError>>,
  dir_of_id: HashMap<u16, PathBuf>,
}

static HOST_FILES: LazyLock<Mutex<HostFiles>> = LazyLock::new(Default::default);

/// Why the first fallback to process scope happened, until `take_fallback` hands it out.
static FALLBACK: Mutex<Option<FlakeError>> = Mutex::new(None);
static FELL_BACK: AtomicBool = AtomicBool::new(false);

// A panic elsewhere cannot leave a map half-written (insert is the only mutation).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
  mutex
    .lock()
    .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The process's state of generator `node` (≤ `MAX_NODE`).
pub fn process(node: u16) -> SharedState {
  SharedState {
    sequencer: &PROCESS[usize::from(node)].0,
    file: None,
  }
}

/// The host's state of generator `node`, kept in `dir`: the directory's file is mapped once per
/// process, on first use, and stays mapped until the process ends (or is found lost).
pub fn host(dir: &Path, node: u16) -> Result<SharedState, FlakeError> {
  let mut files = lock(&HOST_FILES);
  if let Some(other) = files.dir_of_id.get(&node).filter(|other| *other != dir) {
    return Err(dir::error(
      dir,
      format!(
        "generator id {node} already issues from the state in \"{}\" in this process: one id has one state (give its generators one stateDir)",
        other.display()
      ),
    ));
  }
  let reopen = matches!(files.by_dir.get(dir), Some(Ok(file)) if file.is_lost());
  if reopen {
    files.by_dir.remove(dir);
  }
  let file = files
    .by_dir
    .entry(dir.to_path_buf())
    .or_insert_with(|| HostFile::open(dir, &mut SystemClock))
    .clone()?;
  files.dir_of_id.insert(node, dir.to_path_buf());
  Ok(SharedState {
    sequencer: file.sequencer(node),
    file: Some(file),
  })
}

/// Notes that a generator fell back to process scope because of `err`.
pub fn fell_back(err: &FlakeError) {
  if !FELL_BACK.swap(true, Ordering::AcqRel) {
    *lock(&FALLBACK) = Some(err.clone());
  }
}

/// The reason of the process's first fallback, the first time it is asked for: the one warning
/// a process emits.
pub fn take_fallback() -> Option<FlakeError> {
  lock(&FALLBACK).take()
}

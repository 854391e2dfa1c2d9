//! The shared states: one per generator id per process, so that every instance with that id, in
//! any thread and of any epoch, draws from the same state and never repeats an id; and one
//! mapped state file per state directory for host scope. Both are bounded (1,024 words per
//! process, one mapping per directory) and never released: a generator made after the last one
//! was dropped must still not reissue its ids, and keeping the word is what remembers them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard};

use crate::error::FlakeError;
use crate::host::HostFile;
use crate::layout::MAX_NODE;
use crate::sequencer::Sequencer;

/// A state word on a cache line of its own: threads busy on different ids do not contend.
#[repr(align(64))]
struct Line(Sequencer);

static PROCESS: [Line; MAX_NODE as usize + 1] =
  [const { Line(Sequencer::new()) }; MAX_NODE as usize + 1];

/// Keyed by state directory. A failure is kept too: once a directory has failed, every
/// generator of the process that may fall back does, so none issues from the file while another
/// of the same id issues from process state.
type HostFiles = HashMap<PathBuf, Result<&'static HostFile, FlakeError>>;

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
pub fn process(node: u16) -> &'static Sequencer {
  &PROCESS[usize::from(node)].0
}

/// The host's state of generator `node`, kept in `dir`: the directory's file is mapped once per
/// process, on first use, and stays mapped until the process ends.
pub fn host(dir: &Path, node: u16) -> Result<&'static Sequencer, FlakeError> {
  let mut files = lock(&HOST_FILES);
  let file = files
    .entry(dir.to_path_buf())
    .or_insert_with(|| HostFile::open(dir).map(|file| &*Box::leak(Box::new(file))));
  file.clone().map(|file| file.sequencer(node))
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

//! One sequencer per (generator id, epoch) per process, so that every instance configured the
//! same way, in any thread, draws from the same state and never repeats an id; and one mapping
//! per (state directory, epoch) for host scope. Entries are never removed: a generator created
//! after the last one was dropped must still not reissue its ids.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use once_cell::sync::Lazy;

use crate::error::FlakeError;
use crate::host::HostFile;
use crate::sequencer::Sequencer;

/// Keyed by (generator id, epoch).
type Sequencers = HashMap<(u16, u64), Arc<Sequencer>>;

static SEQUENCERS: Lazy<Mutex<Sequencers>> = Lazy::new(Default::default);

/// Keyed by (state directory, epoch). A failure is kept too: once a directory has failed, every
/// generator of the process that may fall back does, so none issues from the file while another
/// of the same id issues from process state.
type HostFiles = HashMap<(PathBuf, u64), Result<&'static HostFile, FlakeError>>;

static HOST_FILES: Lazy<Mutex<HostFiles>> = Lazy::new(Default::default);

/// Why the first fallback to process scope happened, until `take_fallback` hands it out.
static FALLBACK: Mutex<Option<FlakeError>> = Mutex::new(None);
static FELL_BACK: AtomicBool = AtomicBool::new(false);

// A panic elsewhere cannot leave a map half-written (insert is the only mutation).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
  mutex
    .lock()
    .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The process's state of generator `node` on `epoch`.
pub fn shared(node: u16, epoch: u64) -> Arc<Sequencer> {
  Arc::clone(
    lock(&SEQUENCERS)
      .entry((node, epoch))
      .or_insert_with(|| Arc::new(Sequencer::new())),
  )
}

/// The host's state of generator `node` on `epoch`, kept in `dir`: the file is mapped once per
/// process, on first use, and stays mapped until the process ends.
pub fn host(dir: &Path, node: u16, epoch: u64) -> Result<&'static Sequencer, FlakeError> {
  let mut files = lock(&HOST_FILES);
  let file = files
    .entry((dir.to_path_buf(), epoch))
    .or_insert_with(|| HostFile::open(dir, epoch).map(|file| &*Box::leak(Box::new(file))));
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

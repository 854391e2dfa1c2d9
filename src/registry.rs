//! One sequencer per (generator id, epoch) per process, so that every instance configured the
//! same way, in any thread, draws from the same state and never repeats an id. Entries are never
//! removed: a generator created after the last one was dropped must still not reissue its ids.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use once_cell::sync::Lazy;

use crate::sequencer::Sequencer;

/// Keyed by (generator id, epoch).
type Sequencers = HashMap<(u16, u64), Arc<Sequencer>>;

static SEQUENCERS: Lazy<Mutex<Sequencers>> = Lazy::new(Default::default);

pub fn shared(node: u16, epoch: u64) -> Arc<Sequencer> {
  // A panic elsewhere cannot leave the map half-written (insert is the only mutation).
  let mut sequencers = SEQUENCERS
    .lock()
    .unwrap_or_else(|poisoned| poisoned.into_inner());
  Arc::clone(
    sequencers
      .entry((node, epoch))
      .or_insert_with(|| Arc::new(Sequencer::new())),
  )
}

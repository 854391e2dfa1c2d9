//! Generators by small integer, per JS thread, so that one id function per thread serves every
//! generator: JS writes the slot of a call into the scratch, and the call site that calls the
//! function sees one function however many generators it calls (V8 calls a native function it
//! has seen alone at a site faster).
//!
//! A slot names either a configuration, a shared state with its settings (the first
//! `CONFIGURATIONS` a thread makes: the fast way, one field per call and nothing to decode), or
//! a shared state alone (`READS_FIELDS` set), whose calls write their settings into the scratch
//! too. So the table holds at most `CONFIGURATIONS` slots plus 1,024 per state directory and
//! 1,024 for the process, however many configurations come and go (an epoch per instance, say),
//! and nothing in it is ever released: there is nothing to free, so no finalizer.

use std::collections::HashMap;

use crate::generator::Settings;
use crate::js::protocol::Decoded;
use crate::sequencer::Sequencer;

/// The most configurations a thread keeps a slot of their own for.
pub const CONFIGURATIONS: usize = 4096;
/// Set in a slot that names a state alone: its calls' settings are in the scratch.
pub const READS_FIELDS: u32 = 1 << 30;

/// A table of shared states and configurations, one per JS thread.
#[derive(Debug, Default)]
pub struct Slots {
  configurations: Vec<(&'static Sequencer, Settings)>,
  by_configuration: HashMap<(*const Sequencer, Settings), u32>,
  states: Vec<Slot>,
  by_state: HashMap<*const Sequencer, u32>,
}

/// A shared state, and the settings of the last call for it: a loop over many generators, each
/// of its own id, decodes no settings once each has been called.
#[derive(Debug)]
pub struct Slot {
  pub state: &'static Sequencer,
  pub decoded: Decoded,
}

impl Slots {
  /// The slot of a generator with `settings` on `state`: its configuration's, or past
  /// `CONFIGURATIONS`, its state's (with `READS_FIELDS`).
  pub fn slot_of(&mut self, state: &'static Sequencer, settings: Settings) -> u32 {
    let key = (std::ptr::from_ref(state), settings);
    if let Some(slot) = self.by_configuration.get(&key) {
      return *slot;
    }
    if self.configurations.len() < CONFIGURATIONS {
      let slot = self.configurations.len() as u32;
      self.configurations.push((state, settings));
      self.by_configuration.insert(key, slot);
      return slot;
    }
    READS_FIELDS
      | *self.by_state.entry(state).or_insert_with(|| {
        self.states.push(Slot {
          state,
          decoded: Decoded::default(),
        });
        (self.states.len() - 1) as u32
      })
  }

  /// The configuration in `slot` (without `READS_FIELDS`), if one is.
  #[inline(always)]
  pub fn configuration(&self, slot: u32) -> Option<&(&'static Sequencer, Settings)> {
    self.configurations.get(slot as usize)
  }

  /// The state in `slot` (with `READS_FIELDS`), if one is.
  #[inline(always)]
  pub fn state(&self, slot: u32) -> Option<&Slot> {
    self.states.get((slot & !READS_FIELDS) as usize)
  }
}

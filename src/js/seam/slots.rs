//! Generators by small integer, per JS thread, so that one id function per thread serves every
//! generator: JS writes the slot of a call into the scratch, and the call site that calls the
//! function sees one function however many generators it calls (V8 calls a native function it
//! has seen alone at a site faster).
//!
//! A slot names either a configuration, a shared state with its settings (the first
//! `CONFIGURATIONS` a thread makes: the fast way, one field per call and nothing to decode), or
//! a shared state alone (`SLOT_READS_FIELDS` set), whose calls write their settings into the
//! scratch too. So the table holds at most `CONFIGURATIONS` slots plus 1,024 per state directory
//! and 1,024 for the process, however many configurations come and go (an epoch per instance,
//! say), and nothing in it is ever released: there is nothing to free, so no finalizer.
//!
//! The settings fields a call writes are decoded here too (`Decoded`), once per change: for each
//! state alone, and for the private calls (`PRIVATE_SLOT`), whose state JS keeps. And each slot
//! keeps the tally of the instance that last took ids through it (`InstanceTally`), beside what
//! the call reads anyway; and another for its leased generators (`SLOT_FENCED`), whose last
//! ids a release reports (`CallTally::last_taken_ms`): a plain generator of their configuration
//! taking ids costs them nothing of that.

use std::cell::Cell;
use std::collections::HashMap;

use super::instance_tally::InstanceTally;
use super::protocol::{
  decode_settings, SettingsFields, PRIVATE_SLOT, SLOT_FENCED, SLOT_READS_FIELDS,
};
use crate::generator::Settings;
use crate::registry::SharedState;
use crate::sequencer::Sequencer;

/// The most configurations a thread keeps a slot of their own for.
pub const CONFIGURATIONS: usize = 4096;

/// A table of shared states and configurations, one per JS thread.
#[derive(Debug, Default)]
pub struct Slots {
  configurations: Vec<Configuration>,
  /// The tally of each configuration's leased generators, by its slot: off the per-id path,
  /// and so not in its cache line.
  fenced_tallies: Vec<InstanceTally>,
  by_configuration: HashMap<(*const Sequencer, Settings), u32>,
  states: Vec<Slot>,
  by_state: HashMap<*const Sequencer, u32>,
  /// The settings of the last private call (a shared state's are remembered by its slot).
  private: Decoded,
}

/// A configuration: a shared state, the settings its generators issue by, and the tally it
/// keeps. On a cache line of its own: a call reads the whole of it, and 64 generators called
/// in turn read 64 of them.
#[derive(Debug)]
#[repr(align(64))]
pub struct Configuration {
  pub state: SharedState,
  pub settings: Settings,
  pub tally: InstanceTally,
}

/// A shared state, and the settings of the last call for it: a loop over many generators, each
/// of its own id, decodes no settings once each has been called.
#[derive(Debug)]
pub struct Slot {
  pub state: SharedState,
  pub decoded: Decoded,
  pub tally: InstanceTally,
  pub fenced_tally: InstanceTally,
}

impl Slots {
  /// The slot of a generator with `settings` on `state`: its configuration's, or past
  /// `CONFIGURATIONS`, its state's (with `SLOT_READS_FIELDS`).
  pub fn slot_of(&mut self, state: SharedState, settings: Settings) -> u32 {
    let key = (std::ptr::from_ref(state.sequencer), settings);
    if let Some(slot) = self.by_configuration.get(&key) {
      return *slot;
    }
    if self.configurations.len() < CONFIGURATIONS {
      let slot = self.configurations.len() as u32;
      self.configurations.push(Configuration {
        state,
        settings,
        tally: InstanceTally::default(),
      });
      self.fenced_tallies.push(InstanceTally::default());
      self.by_configuration.insert(key, slot);
      return slot;
    }
    SLOT_READS_FIELDS
      | *self.by_state.entry(state.sequencer).or_insert_with(|| {
        self.states.push(Slot {
          state,
          decoded: Decoded::default(),
          tally: InstanceTally::default(),
          fenced_tally: InstanceTally::default(),
        });
        (self.states.len() - 1) as u32
      })
  }

  /// The configuration in `slot` (without `SLOT_READS_FIELDS`), if one is.
  #[inline(always)]
  pub fn configuration(&self, slot: u32) -> Option<&Configuration> {
    self.configurations.get(slot as usize)
  }

  /// The state in `slot` (with `SLOT_READS_FIELDS`), if one is.
  #[inline(always)]
  pub fn state(&self, slot: u32) -> Option<&Slot> {
    self.states.get((slot & !SLOT_READS_FIELDS) as usize)
  }

  /// The tally a call for `slot` counts in, if it is a slot: its leased generators' with
  /// `SLOT_FENCED`, else its plain ones'; none for `PRIVATE_SLOT`. A plain generator's call
  /// finds it with the configuration instead (`calls::generator`).
  pub fn tally(&self, slot: u32) -> Option<&InstanceTally> {
    if slot == PRIVATE_SLOT {
      return None;
    }
    let fenced = slot & SLOT_FENCED != 0;
    match slot & !SLOT_FENCED {
      slot if slot & SLOT_READS_FIELDS != 0 => self.state(slot).map(|state| match fenced {
        true => &state.fenced_tally,
        false => &state.tally,
      }),
      slot if fenced => self.fenced_tallies.get(slot as usize),
      slot => self
        .configuration(slot)
        .map(|configuration| &configuration.tally),
    }
  }

  /// The settings of a private call whose settings fields are `fields` (see `Decoded`).
  #[inline(always)]
  pub fn private_settings(&self, fields: SettingsFields) -> Option<Settings> {
    self.private.settings(fields)
  }
}

/// The settings fields last decoded, and what they decoded to: calls for the generator of the
/// last call decode nothing, they compare two words.
#[derive(Debug, Default)]
pub struct Decoded(Cell<(SettingsFields, Option<Settings>)>);

impl Decoded {
  /// The settings of `fields` (see `decode_settings`).
  #[inline(always)]
  pub fn settings(&self, fields: SettingsFields) -> Option<Settings> {
    let (last_fields, last) = self.0.get();
    if fields == last_fields {
      return last;
    }
    let settings = decode_settings(fields);
    self.0.set((fields, settings));
    settings
  }
}

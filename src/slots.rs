//! Shared states by small integer, per JS thread, so that one id function per thread serves
//! every generator: JS writes the slot of the state a call issues from into the scratch, and
//! the call site that calls the function sees one function however many generators it calls (V8
//! calls a native function it has seen alone at a site faster).
//!
//! A slot names a state, not a configuration: generators of one id share a state whatever
//! their epoch or other settings, which each call writes beside the slot. So the table holds at
//! most 1,024 slots per state directory plus 1,024 for the process, however many generators
//! and configurations come and go, and nothing in it is ever released.

use std::collections::HashMap;

use crate::sequencer::Sequencer;

/// A table of shared states, one per JS thread.
#[derive(Debug, Default)]
pub struct Slots {
  states: Vec<&'static Sequencer>,
  by_state: HashMap<*const Sequencer, u32>,
}

impl Slots {
  /// The slot of `state`: the one it already has, or a new one.
  pub fn slot_of(&mut self, state: &'static Sequencer) -> u32 {
    *self.by_state.entry(state).or_insert_with(|| {
      self.states.push(state);
      (self.states.len() - 1) as u32
    })
  }

  /// The state in `slot`, if one is.
  #[inline(always)]
  pub fn get(&self, slot: u32) -> Option<&'static Sequencer> {
    self.states.get(slot as usize).copied()
  }
}

//! Generators by small integer, so that one id function per thread serves every generator: JS
//! passes the slot, and the call site that calls the function sees one function however many
//! generators it calls (V8 calls a native function it has seen alone at a site faster).
//!
//! Instances of one configuration on the system clock share a slot; each instance with a clock
//! of its own gets a slot of its own, since it keeps a private state. A slot is released when
//! JS no longer holds it; its number is then reused.

use std::collections::HashMap;

use crate::error::FlakeError;
use crate::generator::Generator;
use crate::options::{Config, Scope};

/// What makes two system-clock configurations the same generator.
type Shared = (u16, u64, u16, u64, Scope);

/// A table of generators, one per JS thread.
#[derive(Debug, Default)]
pub struct Slots {
  generators: Vec<Option<(Generator, Option<Shared>)>>,
  free: Vec<u32>,
  shared: HashMap<Shared, u32>,
}

impl Slots {
  /// The slot of a generator configured by `config`: the one already made for the same
  /// configuration on the system clock, or a new one; fails only as `Generator::new` does.
  pub fn configure(&mut self, config: &Config) -> Result<u32, FlakeError> {
    let shared = (!config.custom_clock).then(|| {
      (
        config.id,
        config.epoch,
        config.seq_mask,
        config.allowed_future_ms,
        config.scope.clone(),
      )
    });
    if let Some(slot) = shared.as_ref().and_then(|key| self.shared.get(key)) {
      return Ok(*slot);
    }
    let entry = Some((Generator::new(config)?, shared.clone()));
    let slot = match self.free.pop() {
      Some(slot) => {
        self.generators[slot as usize] = entry;
        slot
      }
      None => {
        self.generators.push(entry);
        (self.generators.len() - 1) as u32
      }
    };
    if let Some(key) = shared {
      self.shared.insert(key, slot);
    }
    Ok(slot)
  }

  /// The generator in `slot`, if one is.
  #[inline(always)]
  pub fn get(&self, slot: u32) -> Option<&Generator> {
    match self.generators.get(slot as usize) {
      Some(Some((generator, _))) => Some(generator),
      _ => None,
    }
  }

  /// Empties `slot`; returns whether it held a generator.
  pub fn release(&mut self, slot: u32) -> bool {
    let Some(entry) = self.generators.get_mut(slot as usize) else {
      return false;
    };
    let Some((_, shared)) = entry.take() else {
      return false;
    };
    if let Some(key) = shared {
      self.shared.remove(&key);
    }
    self.free.push(slot);
    true
  }
}

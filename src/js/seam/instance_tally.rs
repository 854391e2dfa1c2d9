//! The `Tally` of a generator instance, kept by the slot it issues through (see `slots`), for
//! the instance that last took ids through that slot in the thread: JS names the instance of
//! each call (`SCRATCH_INSTANCE`), so a switch between instances writes one number, and the
//! tallies stay on the native side.
//!
//! Only the last instance's tally is kept. One that finds the slot's tally another's counts its
//! ids afresh, and that is all `sync_take` needs: an instance took every id of a unit itself
//! only if no other instance took one of them, so its ids of the unit were taken one after the
//! other through its slot, and counted in one tally. An instance that has no tally (another took
//! ids through the slot since) took none of the unit's last ids, and so waits, as it should.
//! A lease also reports its last id from its tally; its generator counts apart from the plain
//! ones of its configuration (`Slots::tally`), so that theirs leave it exact.

use std::cell::Cell;

use crate::generator::{Generator, Ids, Tally};

/// A slot's tally: the instance it counts for (0: none yet), and its `Tally`.
#[derive(Debug, Default)]
pub struct InstanceTally(Cell<(u32, Tally)>);

impl InstanceTally {
  /// The tally of `instance`, if it took the last ids through the slot.
  #[inline(always)]
  pub fn of(&self, instance: u32) -> Option<Tally> {
    let (counted, tally) = self.0.get();
    (counted == instance).then_some(tally)
  }

  /// Counts `ids`, just taken by `instance`.
  #[inline(always)]
  pub fn count(&self, instance: u32, ids: &Ids) {
    let tally = self.of(instance).unwrap_or_default();
    self.0.set((instance, tally.add(ids)));
  }

  /// Counts `instance`'s ids from none (a lease installed: its ids under the lease).
  pub fn restart(&self, instance: u32) {
    self.0.set((instance, Tally::default()));
  }

  /// Counts the ids just taken as no instance's (0, which `new_instance` never gives): every
  /// instance's tally is gone, as if another generator had taken them.
  pub fn forget(&self) {
    self.0.set((0, Tally::default()));
  }
}

/// The tally of one call's instance in its slot's `InstanceTally`; none for a private call,
/// whose state no other instance takes from (see `Generator::took_all`).
#[derive(Debug, Clone, Copy)]
pub struct CallTally<'a> {
  kept: Option<&'a InstanceTally>,
  instance: u32,
}

impl<'a> CallTally<'a> {
  pub fn new(kept: Option<&'a InstanceTally>, instance: u32) -> Self {
    Self { kept, instance }
  }

  /// The instance's `Tally`: none counted when another instance took ids through the slot since.
  pub fn get(&self) -> Tally {
    self
      .kept
      .and_then(|kept| kept.of(self.instance))
      .unwrap_or_default()
  }

  /// Counts `ids`, just taken by the instance.
  #[inline(always)]
  pub fn count(&self, ids: &Ids) {
    if let Some(kept) = self.kept {
      kept.count(self.instance, ids);
    }
  }

  /// Counts the ids of `taken`, if it took any. By reference: an error is large, and a result
  /// moved through here cost the 64-generator `next()` 2.5 %.
  #[inline(always)]
  pub fn count_taken<E>(&self, taken: &Result<Ids, E>) {
    if let Ok(ids) = taken {
      self.count(ids);
    }
  }

  /// Counts ids just taken for the instance by an async batch (`issueSlice`) as another
  /// generator's: a batch waits for the clock rather than fail, so the units it fills are not
  /// the instance's own to throw `next()`'s overflow for (see `sync_take`). Its `next()` then
  /// waits a unit a batch used up, as a second generator of its id does: a member serving
  /// batches from the app's generator leaves the app's `next()` no more refusals than that.
  /// Ids stay unique either way (the state's compare-and-swap hands them out); a lease's last id
  /// is then the state's, never below the batch's (`last_taken_ms`).
  #[inline(always)]
  pub fn count_apart(&self) {
    if let Some(kept) = self.kept {
      kept.forget();
    }
  }

  /// Counts the instance's ids from none (see `InstanceTally::restart`).
  pub fn restart(&self) {
    if let Some(kept) = self.kept {
      kept.restart(self.instance);
    }
  }

  /// The time (ms since 1970) of the last ids the instance took from `generator`'s shared
  /// state, if it took any; when its tally is another's (a leased generator's is only another
  /// leased one's of its configuration, in its thread: see `Slots::tally`), the state's last,
  /// anyone's, and so never before its own: a ceiling written from it stays above every id the
  /// instance issued.
  pub fn last_taken_ms(&self, generator: &Generator) -> Option<u64> {
    match self.kept?.of(self.instance) {
      Some(tally) => generator.last_taken_ms(tally),
      None => generator.last_issued_ms(),
    }
  }
}

//! The tally a slot keeps for the instance that last took ids through it (`js::instance_tally`):
//! an instance's own ids, counted afresh after another instance's, and a lease's last id never
//! reported below its own.

use super::NOW;
use crate::generator::{Generator, Settings, Tally};
use crate::js::seam::instance_tally::{CallTally, InstanceTally};
use crate::kinds::layout::Shape;
use crate::registry::SharedState;
use crate::sequencer::Sequencer;

/// Two instances of one configuration.
const MINE: u32 = 1;
const TWIN: u32 = 2;

/// A generator of 4,096 ids a millisecond on a fresh shared state of the process's kind.
fn generator() -> Generator<'static> {
  let settings = Settings {
    node: 3,
    epoch: 0,
    seq_mask: 4095,
    allowed_future_ms: 0,
    shape: Shape::FLAKE_IDGEN,
  };
  let state = SharedState {
    sequencer: Box::leak(Box::new(Sequencer::new())),
    file: None,
    floor: None,
  };
  Generator::shared(&settings, state)
}

#[test]
fn an_instance_counts_its_own_ids_until_another_takes_through_the_slot() {
  let generator = generator();
  let kept = InstanceTally::default();
  assert_eq!(kept.of(MINE), None);
  for _ in 0..3 {
    kept.count(MINE, &generator.take(NOW, 1).unwrap());
  }
  assert_eq!(kept.of(MINE), Some(Tally(NOW << 20 | 3)));
  // A new unit counts from its first id.
  kept.count(MINE, &generator.take(NOW + 1, 2).unwrap());
  assert_eq!(kept.of(MINE), Some(Tally((NOW + 1) << 20 | 2)));
  // Another instance's ids: the tally is its, and mine none.
  kept.count(TWIN, &generator.take(NOW + 1, 1).unwrap());
  assert_eq!(kept.of(MINE), None);
  assert_eq!(kept.of(TWIN), Some(Tally((NOW + 1) << 20 | 1)));
  // Mine again, from none: the ids it took before the twin's are not counted in its unit.
  kept.count(MINE, &generator.take(NOW + 1, 1).unwrap());
  assert_eq!(kept.of(MINE), Some(Tally((NOW + 1) << 20 | 1)));
  kept.restart(TWIN);
  assert_eq!(kept.of(TWIN), Some(Tally::default()));
  assert_eq!(kept.of(MINE), None);
}

#[test]
fn a_whole_unit_taken_after_another_instances_ids_is_all_its_own() {
  let generator = generator();
  let kept = InstanceTally::default();
  kept.count(TWIN, &generator.take(NOW, 1).unwrap());
  kept.count(MINE, &generator.take(NOW + 1, 4096).unwrap());
  let call = CallTally::new(Some(&kept), MINE);
  assert!(generator.took_all(call.get()));
  // The twin's is gone: it took none of this unit.
  assert!(!generator.took_all(CallTally::new(Some(&kept), TWIN).get()));
}

#[test]
fn a_lease_reports_its_own_last_id_or_the_states_never_below_it() {
  let generator = generator();
  let leased = generator.fenced(u64::MAX - 1);
  let kept = InstanceTally::default();
  let (mine, twin) = (
    CallTally::new(Some(&kept), MINE),
    CallTally::new(Some(&kept), TWIN),
  );
  mine.restart();
  assert_eq!(mine.last_taken_ms(&leased), None);
  mine.count(&leased.take(NOW, 1).unwrap());
  // Later ids of the state, by a generator counted in another slot, are not the lease's.
  generator.take(NOW + 40, 1).unwrap();
  assert_eq!(mine.last_taken_ms(&leased), Some(NOW));
  // Another leased generator of its configuration took ids since (the same tally): its own are
  // not known, the state's last is above them.
  twin.count(&generator.take(NOW + 50, 1).unwrap());
  assert_eq!(mine.last_taken_ms(&leased), Some(NOW + 50));
  // A private call keeps no tally.
  assert_eq!(CallTally::new(None, MINE).get(), Tally::default());
}

#[test]
fn an_async_batchs_ids_leave_the_instance_no_unit_of_its_own() {
  let generator = generator();
  let leased = generator.fenced(u64::MAX - 1);
  let kept = InstanceTally::default();
  let mine = CallTally::new(Some(&kept), MINE);
  mine.count(&generator.take(NOW, 1).unwrap());
  // A batch of the same instance takes the rest of the unit: the unit is not the instance's
  // own, so its next() waits for the next one, as a twin's would, rather than throw.
  generator.take(NOW, 4095).unwrap();
  mine.count_apart();
  assert!(!generator.took_all(mine.get()));
  assert!(!generator.took_all(CallTally::new(Some(&kept), TWIN).get()));
  // A unit the instance took whole by itself afterwards is its own again.
  mine.count(&generator.take(NOW + 1, 4096).unwrap());
  assert!(generator.took_all(mine.get()));
  // A lease's last id after a batch's is the state's: never below the batch's ids.
  mine.count(&leased.take(NOW + 2, 1).unwrap());
  leased.take(NOW + 30, 5).unwrap();
  mine.count_apart();
  assert_eq!(mine.last_taken_ms(&leased), Some(NOW + 30));
}

//! A leased generator on its id's shared state (issue 39, item 1): fenced by its own ceiling
//! while the other generators of the state go on; its floor raises the state and never lowers
//! it; the last id it reports is its own, not the state's.

use super::{decode, NOW};
use crate::error::FlakeError;
use crate::generator::Tally;
use crate::generator::{Generator, Settings, CLOSED};
use crate::kinds::layout::Shape;
use crate::registry::SharedState;
use crate::sequencer::Sequencer;

/// Two ids a millisecond, epoch 0, borrowing up to `allowed` ms ahead.
fn settings(allowed: u32) -> Settings {
  Settings {
    node: 5,
    epoch: 0,
    seq_mask: 1,
    allowed_future_ms: allowed,
    shape: Shape::FLAKE_IDGEN,
  }
}

/// A plain generator on a fresh shared state of the process's kind (no file).
fn plain(allowed: u32) -> Generator<'static> {
  let state = SharedState {
    sequencer: Box::leak(Box::new(Sequencer::new())),
    file: None,
    floor: None,
  };
  Generator::shared(&settings(allowed), state)
}

#[test]
fn a_leased_generator_stops_at_its_own_ceiling_while_the_others_of_its_state_go_on() {
  let others = plain(10);
  let leased = others.fenced(NOW + 1);
  // NOW and NOW + 1 are all it has, however far it may borrow.
  let ids: Vec<_> = (0..4)
    .map(|_| decode(leased.next_id(NOW).unwrap()))
    .collect();
  assert_eq!(
    ids,
    [(NOW, 5, 0), (NOW, 5, 1), (NOW + 1, 5, 0), (NOW + 1, 5, 1)]
  );
  let expired = Err(FlakeError::LeaseExpired { ceiling: NOW + 1 });
  assert_eq!(leased.next_id(NOW), expired);
  assert_eq!(leased.next_id(NOW + 2), expired);
  // The same state, unfenced: it goes on past the lease's ceiling.
  assert_eq!(decode(others.next_id(NOW + 2).unwrap()), (NOW + 2, 5, 0));
  // A renewal's higher ceiling: the lease goes on above every id of the state.
  let renewed = others.fenced(NOW + 10);
  assert_eq!(decode(renewed.next_id(NOW + 2).unwrap()), (NOW + 2, 5, 1));
  assert_eq!(
    others.fenced(CLOSED).next_id(NOW + 3),
    Err(FlakeError::LeaseClosed)
  );
}

#[test]
fn a_floor_raises_the_shared_state_above_it_and_never_lowers_it() {
  let others = plain(0);
  let leased = others.fenced(u64::MAX - 1);
  // A fresh state, raised: every generator of it issues above the floor.
  leased.raise_above(NOW + 5).unwrap();
  assert!(matches!(
    others.next_id(NOW + 4),
    Err(FlakeError::ClockBackwards { .. })
  ));
  assert!(matches!(
    others.next_id(NOW + 5),
    Err(FlakeError::SequenceOverflow { .. })
  ));
  assert_eq!(decode(others.next_id(NOW + 6).unwrap()), (NOW + 6, 5, 0));
  // A floor below what the state issued changes nothing.
  leased.raise_above(NOW).unwrap();
  assert_eq!(decode(leased.next_id(NOW + 6).unwrap()), (NOW + 6, 5, 1));
  // Nor does a floor in the unit of its last id once that unit is full.
  leased.raise_above(NOW + 6).unwrap();
  assert_eq!(decode(others.next_id(NOW + 7).unwrap()), (NOW + 7, 5, 0));
  // One in the unit of its last id with sequence numbers left: the rest of the unit is given up.
  leased.raise_above(NOW + 7).unwrap();
  assert!(others.next_id(NOW + 7).is_err());
  assert_eq!(decode(others.next_id(NOW + 8).unwrap()), (NOW + 8, 5, 0));
}

#[test]
fn the_last_id_a_leased_generator_reports_is_its_own() {
  let others = plain(0);
  let leased = others.fenced(u64::MAX - 1);
  assert_eq!(leased.last_taken_ms(Tally::default()), None);
  let mut tally = Tally::default();
  let mine = leased.take(NOW, 1).unwrap();
  tally = tally.add(&mine);
  // Later ids of the state, by another generator, are not the lease's.
  others.next_id(NOW + 40).unwrap();
  assert_eq!(leased.last_taken_ms(tally), Some(NOW));
}

#[cfg(unix)]
#[test]
fn on_a_mapped_state_file_the_ceiling_is_the_lease_s_and_the_file_s_others_go_on() {
  use super::host::{generator, mapped};
  let dir = super::temp_dir("leased");
  let file = mapped(&dir);
  let others = generator(file, 9);
  let leased = others.fenced(NOW + 1);
  leased.raise_above(NOW - 1).unwrap();
  let mut taken = Vec::new();
  let refused = loop {
    match leased.next_id(NOW + 1) {
      Ok(id) => taken.push(decode(id)),
      Err(err) => break err,
    }
  };
  assert_eq!(refused, FlakeError::LeaseExpired { ceiling: NOW + 1 });
  assert_eq!(taken.len(), 4096);
  assert!(taken
    .iter()
    .all(|&(time, node, _)| time == NOW + 1 && node == 9));
  assert_eq!(decode(others.next_id(NOW + 2).unwrap()), (NOW + 2, 9, 0));
}

//! A synchronous call on a shared state (`sync_take`), on a fake clock and fake real time: a
//! unit other takers used up is waited out, the instance's own throws the overflow as
//! flake-idgen's does, and no clock, stalled, stepping back or always beaten to a unit, makes
//! it hang.

use super::{decode, NOW};
use crate::clock::{Time, STALL_GRACE_MS};
use crate::error::FlakeError;
use crate::generator::Tally;
use crate::generator::{Generator, Ids, Settings};
use crate::kinds::layout::Shape;
use crate::registry::SharedState;
use crate::sequencer::{Met, Sequencer};
use crate::sync_take::{wait_out, BUSY_MS, BUSY_UNITS};

/// A clock that moves `step` ms per pause (0: never), real time moving as much (at least 1 ms);
/// `on_pause` runs after each (another taker's turn); `back` ms are taken off every reading
/// after the first pause (a clock stepped back).
struct FakeWait<'a> {
  now: u64,
  real: u64,
  step: u64,
  back: u64,
  pauses: u32,
  on_pause: Box<dyn FnMut(u64) + 'a>,
}

impl FakeWait<'_> {
  fn new(now: u64, step: u64) -> Self {
    Self {
      now,
      real: 0,
      step,
      back: 0,
      pauses: 0,
      on_pause: Box::new(|_| {}),
    }
  }
}

impl Time for FakeWait<'_> {
  fn now_ms(&mut self) -> u64 {
    self.now - if self.pauses > 0 { self.back } else { 0 }
  }

  fn real_ms(&mut self) -> u64 {
    self.real
  }

  fn pause(&mut self, _now_ms: u64, _target_ms: u64) {
    self.pauses += 1;
    self.now += self.step;
    self.real += self.step.max(1);
    (self.on_pause)(self.now);
  }
}

fn settings(shape: Shape, seq_mask: u16, allowed_future_ms: u32) -> Settings {
  Settings {
    node: 7,
    epoch: 0,
    seq_mask,
    allowed_future_ms,
    shape,
  }
}

/// A generator id's state shared by the process's generators of it (a fresh one per test).
fn shared_state() -> SharedState {
  SharedState {
    sequencer: Box::leak(Box::new(Sequencer::new())),
    file: None,
    floor: None,
  }
}

fn flake_idgen(state: SharedState) -> Generator<'static> {
  Generator::shared(&settings(Shape::FLAKE_IDGEN, 4095, 0), state)
}

/// What `issue()` does: one id by `time`'s clock, waiting as `wait_out` says; the tally counts
/// what it took.
fn next_sync(
  generator: &Generator,
  tally: &mut Tally,
  time: &mut impl Time,
) -> Result<Ids, FlakeError> {
  let now_ms = time.now_ms();
  let taken = match generator.take(now_ms, 1) {
    Err(refusal @ FlakeError::SequenceOverflow { .. }) => {
      wait_out(generator, *tally, 1, time, now_ms, refusal)
    }
    taken => taken,
  };
  if let Ok(ids) = &taken {
    *tally = tally.add(ids);
  }
  taken
}

/// `count` ids at `now_ms`, the tally counting them.
fn take_all(generator: &Generator, tally: &mut Tally, now_ms: u64, count: u32) {
  let ids = generator.take(now_ms, count).expect("ids");
  assert_eq!(ids.count, count);
  *tally = tally.add(&ids);
}

#[test]
fn a_unit_used_up_by_another_taker_is_waited_out_into_the_next() {
  let state = shared_state();
  let (neighbour, mine) = (flake_idgen(state), flake_idgen(state));
  take_all(&neighbour, &mut Tally::default(), NOW, 4096);
  let mut time = FakeWait::new(NOW, 1);
  let ids = next_sync(&mine, &mut Tally::default(), &mut time).expect("waited, not thrown at");
  assert_eq!(decode(ids.first), (NOW + 1, 7, 0));
  assert_eq!(ids.met, Some(Met::Waited));
  assert_eq!(time.pauses, 1);
}

#[test]
fn a_unit_shared_with_another_taker_is_waited_out_even_with_most_of_its_ids_taken() {
  let state = shared_state();
  let (neighbour, mine) = (flake_idgen(state), flake_idgen(state));
  let mut tally = Tally::default();
  take_all(&mine, &mut tally, NOW, 4095);
  take_all(&neighbour, &mut Tally::default(), NOW, 1);
  let mut time = FakeWait::new(NOW, 1);
  let ids = next_sync(&mine, &mut tally, &mut time).expect("4,095 of 4,096 is not every one");
  assert_eq!(decode(ids.first), (NOW + 1, 7, 0));
}

#[test]
fn the_generators_own_4096_ids_throw_the_overflow_at_once() {
  let state = shared_state();
  let mine = flake_idgen(state);
  let mut tally = Tally::default();
  let mut time = FakeWait::new(NOW, 1);
  for sequence in 0..4096 {
    let ids = next_sync(&mine, &mut tally, &mut time).unwrap();
    assert_eq!(decode(ids.first), (NOW, 7, sequence));
  }
  assert_eq!(
    next_sync(&mine, &mut tally, &mut time),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
  assert_eq!(time.pauses, 0, "it did not wait");
  // The next millisecond is its own again.
  time.now += 1;
  assert_eq!(
    decode(next_sync(&mine, &mut tally, &mut time).unwrap().first),
    (NOW + 1, 7, 0)
  );
}

#[test]
fn own_ids_taken_in_runs_count_too_and_a_smaller_seq_mask_is_its_own_limit() {
  let state = shared_state();
  let mine = Generator::shared(&settings(Shape::FLAKE_IDGEN, 1, 0), state);
  let mut tally = Tally::default();
  take_all(&mine, &mut tally, NOW, 2);
  let mut time = FakeWait::new(NOW, 1);
  assert_eq!(
    next_sync(&mine, &mut tally, &mut time),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
  assert_eq!(time.pauses, 0);
}

#[test]
fn a_private_state_is_all_its_own_and_throws_at_once() {
  let state = Box::leak(Box::new(Sequencer::new()));
  let mine = Generator::private(&settings(Shape::FLAKE_IDGEN, 4095, 0), state, u64::MAX);
  // Ids taken without counting them: a private state's are its own whatever the tally says.
  mine.take(NOW, 4096).unwrap();
  let mut time = FakeWait::new(NOW, 1);
  assert_eq!(
    next_sync(&mine, &mut Tally::default(), &mut time),
    Err(FlakeError::SequenceOverflow { wait_ms: 1 })
  );
  assert_eq!(time.pauses, 0);
}

#[test]
fn a_clock_that_never_advances_is_given_up_on_with_its_own_error() {
  let state = shared_state();
  let (neighbour, mine) = (flake_idgen(state), flake_idgen(state));
  take_all(&neighbour, &mut Tally::default(), NOW, 4096);
  let mut time = FakeWait::new(NOW, 0);
  let refused = next_sync(&mine, &mut Tally::default(), &mut time);
  // The wait should have taken 1 ms: given up once real time is past it by the grace.
  assert_eq!(
    refused,
    Err(FlakeError::ClockStalled {
      waited_ms: 1 + STALL_GRACE_MS + 1
    })
  );
  assert_eq!(refused.unwrap_err().code(), "ERR_FLAKE_CLOCK_STALLED");
  assert_eq!(u64::from(time.pauses), 1 + STALL_GRACE_MS + 1);
}

#[test]
fn a_thread_descheduled_while_it_waits_reads_a_clock_that_moved_and_takes() {
  let state = shared_state();
  let (neighbour, mine) = (flake_idgen(state), flake_idgen(state));
  take_all(&neighbour, &mut Tally::default(), NOW, 4096);
  // A pause of 500 ms of real time, far past the grace: the clock moved as much.
  let mut time = FakeWait::new(NOW, 500);
  let ids = next_sync(&mine, &mut Tally::default(), &mut time).expect("not given up");
  assert_eq!(decode(ids.first), (NOW + 500, 7, 0));
}

#[test]
fn takers_that_win_every_unit_end_the_wait_after_a_bounded_time() {
  let state = shared_state();
  let (neighbour, mine) = (flake_idgen(state), flake_idgen(state));
  take_all(&neighbour, &mut Tally::default(), NOW, 4096);
  let mut time = FakeWait::new(NOW, 1);
  // The neighbour takes each new millisecond whole before this call's turn.
  time.on_pause = Box::new(|now| take_all(&neighbour, &mut Tally::default(), now, 4096));
  let refused = next_sync(&mine, &mut Tally::default(), &mut time);
  assert_eq!(
    refused,
    Err(FlakeError::SequenceBusy {
      units: BUSY_MS as u32,
      waited_ms: BUSY_MS
    })
  );
  assert_eq!(refused.unwrap_err().code(), "ERR_FLAKE_SEQUENCE_BUSY");
  assert_eq!(time.pauses, BUSY_MS as u32);
}

#[test]
fn a_thread_descheduled_for_long_still_gets_its_races_before_it_gives_up() {
  let state = shared_state();
  let (neighbour, mine) = (flake_idgen(state), flake_idgen(state));
  take_all(&neighbour, &mut Tally::default(), NOW, 4096);
  // Each pause lasts 500 ms, past the whole bound, and the neighbour wins each unit meanwhile.
  let mut time = FakeWait::new(NOW, 500);
  time.on_pause = Box::new(|now| take_all(&neighbour, &mut Tally::default(), now, 4096));
  assert_eq!(
    next_sync(&mine, &mut Tally::default(), &mut time),
    Err(FlakeError::SequenceBusy {
      units: BUSY_UNITS,
      waited_ms: 1500
    })
  );
}

#[test]
fn a_clock_stepping_back_during_the_wait_throws_as_a_clock_behind() {
  let state = shared_state();
  let (neighbour, mine) = (flake_idgen(state), flake_idgen(state));
  take_all(&neighbour, &mut Tally::default(), NOW, 4096);
  let mut time = FakeWait::new(NOW, 0);
  time.back = 3;
  assert_eq!(
    next_sync(&mine, &mut Tally::default(), &mut time),
    Err(FlakeError::ClockBackwards { ms: 3, wait_ms: 4 })
  );
  assert_eq!(time.pauses, 1);
}

#[test]
fn a_state_borrowed_further_ahead_than_a_unit_throws_the_overflow_without_waiting() {
  let state = shared_state();
  let borrower = Generator::shared(&settings(Shape::FLAKE_IDGEN, 4095, 5), state);
  let mine = flake_idgen(state);
  // Every id up to 5 ms ahead.
  for _ in 0..=5 {
    take_all(&borrower, &mut Tally::default(), NOW, 4096);
  }
  let mut time = FakeWait::new(NOW, 1);
  assert_eq!(
    next_sync(&mine, &mut Tally::default(), &mut time),
    Err(FlakeError::SequenceOverflow { wait_ms: 6 })
  );
  assert_eq!(time.pauses, 0);
}

/// A 41-bit layout of 1000 ms units: a unit long enough for its waits to be counted in pauses.
const SECONDS: Shape = Shape {
  unit_ms: 1000,
  time_bits: 41,
  ..Shape::FLAKE_IDGEN
};

#[test]
fn a_coarse_unit_is_waited_out_to_its_end() {
  let shape = SECONDS;
  let state = shared_state();
  let neighbour = Generator::shared(&settings(shape, 4095, 0), state);
  let mine = Generator::shared(&settings(shape, 4095, 0), state);
  let second = NOW / 1000 * 1000;
  take_all(&neighbour, &mut Tally::default(), second + 250, 4096);
  let mut time = FakeWait::new(second + 250, 250);
  let ids = next_sync(&mine, &mut Tally::default(), &mut time).expect("waited");
  assert_eq!(ids.time, NOW / 1000 + 1);
  assert_eq!(time.pauses, 3, "to the next second, 750 ms on");
}

#[test]
fn a_coarse_unit_that_others_win_again_blocks_for_one_unit_at_most() {
  let shape = SECONDS;
  let state = shared_state();
  let neighbour = Generator::shared(&settings(shape, 4095, 0), state);
  let mine = Generator::shared(&settings(shape, 4095, 0), state);
  let second = NOW / 1000 * 1000;
  // 276 ms into a second whose ids the neighbour took, as it takes each next one first.
  take_all(&neighbour, &mut Tally::default(), second + 276, 4096);
  let mut time = FakeWait::new(second + 276, 2);
  time.on_pause = Box::new(|now| _ = neighbour.take(now, 4096));
  let refused = next_sync(&mine, &mut Tally::default(), &mut time);
  // The second's end was waited for (724 ms); a second wait would end 1,724 ms in.
  assert_eq!(
    refused,
    Err(FlakeError::SequenceBusy {
      units: 1,
      waited_ms: 724
    })
  );
  assert!(time.real <= 1000, "blocked {} ms", time.real);
}

#[test]
fn a_tally_counts_one_unit_and_starts_again_at_the_next() {
  let ids = |time, count| Ids {
    first: 0,
    count,
    step: 1,
    time,
    met: None,
  };
  let tally = Tally::default().add(&ids(NOW, 4000)).add(&ids(NOW, 95));
  assert!(tally.holds(NOW, 4095));
  assert!(!tally.holds(NOW, 4096));
  assert!(tally.add(&ids(NOW, 1)).holds(NOW, 4096));
  let next = tally.add(&ids(NOW + 1, 1));
  assert!(next.holds(NOW + 1, 1) && !next.holds(NOW + 1, 2) && !next.holds(NOW, 1));
  assert!(!Tally::default().holds(0, 1));
  // The latest time a state holds, a unit's every id: the top two bits stay clear, so JS,
  // which carries a tally as the double of its bits, never sees a NaN.
  let max_time = Shape::FLAKE_IDGEN.word().max_time();
  let full = Tally::default().add(&ids(max_time, 65_536));
  assert!(full.holds(max_time, 65_536));
  assert_eq!(full.0 >> 62, 0);
  assert!(!f64::from_bits(full.0).is_nan());
}

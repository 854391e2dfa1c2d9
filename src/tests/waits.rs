//! Every wait for the system clock is one bounded wait (`clock::wait_for`): a clock that stands
//! still or steps back during it is given up on within the wait plus `STALL_GRACE_MS` of real
//! time, with a coded error; and a first mapping of a state file, whose start it waits for,
//! returns within that bound too, its ids refused until the clock passes the start.

use std::time::{SystemTime, UNIX_EPOCH};

use super::host::{on, SECONDS};
use super::temp_dir;
use crate::clock::{wait_for, Time, STALL_GRACE_MS};
use crate::error::FlakeError;
use crate::host::file::{HostFile, HORIZON_MS, TICK_MS};
use crate::kinds::layout::Shape;

/// What the clock does during a wait.
#[derive(Clone, Copy)]
enum Fault {
  /// It keeps time.
  None,
  /// It stands still (a paused VM, a test harness).
  Frozen,
  /// It steps back by this many ms at the first pause, then keeps time.
  Back(u64),
}

/// A clock with a fault, and real time, moved by pauses as `SystemClock`'s would move them: a
/// sleep through all but the last ms of the pause's target, or a spin of 1 ms.
struct Faulty {
  now: u64,
  real: u64,
  fault: Fault,
  pauses: u32,
}

impl Faulty {
  fn new(now: u64, fault: Fault) -> Self {
    Self {
      now,
      real: 0,
      fault,
      pauses: 0,
    }
  }
}

impl Time for Faulty {
  fn now_ms(&mut self) -> u64 {
    self.now
  }

  fn real_ms(&mut self) -> u64 {
    self.real
  }

  fn pause(&mut self, now_ms: u64, target_ms: u64) {
    let slept = target_ms.saturating_sub(now_ms).saturating_sub(1).max(1);
    self.real += slept;
    self.now = match self.fault {
      Fault::None => self.now + slept,
      Fault::Frozen => self.now,
      Fault::Back(ms) if self.pauses == 0 => self.now + slept - ms,
      Fault::Back(_) => self.now + slept,
    };
    self.pauses += 1;
  }
}

/// The system clock, ms since 1970 (state files' change times are the kernel's).
fn real_now() -> u64 {
  SystemTime::now()
    .duration_since(UNIX_EPOCH)
    .unwrap()
    .as_millis() as u64
}

const NOW: u64 = super::NOW;

#[test]
fn a_clock_that_keeps_time_is_waited_for() {
  let mut time = Faulty::new(NOW, Fault::None);
  assert_eq!(wait_for(&mut time, NOW, NOW + 1000, STALL_GRACE_MS), Ok(()));
  assert!(time.now >= NOW + 1000);
}

#[test]
fn a_frozen_clock_is_given_up_on_within_the_wait_and_the_grace() {
  for wait in [1, 30, 1000, 1030] {
    let mut time = Faulty::new(NOW, Fault::Frozen);
    let given_up = wait_for(&mut time, NOW, NOW + wait, STALL_GRACE_MS);
    let Err(FlakeError::ClockStalled { waited_ms }) = given_up else {
      panic!("{wait} ms: {given_up:?}");
    };
    assert_eq!(given_up.unwrap_err().code(), "ERR_FLAKE_CLOCK_STALLED");
    // A sleep toward the target is cut at the bound: never a second sleep of the whole wait.
    assert!(
      waited_ms <= wait + STALL_GRACE_MS + 1 && time.real == waited_ms,
      "{wait} ms: waited {waited_ms}, real {}",
      time.real
    );
  }
}

#[test]
fn a_clock_stepped_back_during_the_wait_is_given_up_on_at_once_as_behind() {
  let mut time = Faulty::new(NOW, Fault::Back(2000));
  let given_up = wait_for(&mut time, NOW, NOW + 1000, STALL_GRACE_MS);
  // The first pause slept 999 ms, the clock moved 999 - 2000.
  assert_eq!(
    given_up,
    Err(FlakeError::ClockBackwards {
      ms: 1001,
      wait_ms: 2001
    })
  );
  assert_eq!(given_up.unwrap_err().code(), "ERR_FLAKE_CLOCK_BACKWARDS");
  assert_eq!(time.pauses, 1);
}

#[test]
fn a_clock_stepped_forward_during_the_wait_ends_it() {
  let mut time = Faulty::new(NOW, Fault::Back(0));
  time.now += 3_600_000;
  assert_eq!(wait_for(&mut time, NOW, NOW + 1000, STALL_GRACE_MS), Ok(()));
  assert_eq!(time.pauses, 0);
}

#[test]
fn a_first_mapping_returns_within_its_bound_whatever_the_clock_does_and_refuses_until_the_start() {
  for shape in [Shape::FLAKE_IDGEN, SECONDS] {
    for fault in [Fault::Frozen, Fault::Back(2000)] {
      let dir = temp_dir("wait-bounded");
      // Just after the directory was made: the start is the horizon ahead, to be waited for.
      let now = real_now();
      let mut time = Faulty::new(now, fault);
      let file = HostFile::open(&dir, shape, &mut time, false).expect("opened all the same");
      let bound = HORIZON_MS + TICK_MS + u64::from(shape.unit_ms) + STALL_GRACE_MS + 1;
      assert!(
        time.pauses > 0 && time.real <= bound,
        "unit {}: waited {} ms of real time, bound {bound}",
        shape.unit_ms,
        time.real
      );
      // Ids wait for the clock to pass the start: refused as a clock behind, never issued.
      let refused = on(file, shape, 3).take(time.now, 1).unwrap_err();
      assert_eq!(refused.code(), "ERR_FLAKE_CLOCK_BACKWARDS", "{refused}");
      file.release();
    }
  }
}

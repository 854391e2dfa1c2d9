//! Host scope where its machinery runs out or meets what it did not expect: any number of lost
//! files, a busy file never fallen back from, a file whose content went back, a start another
//! clock put far ahead, and first mappings that need not wait. Against fake clocks, on real
//! files (whose change times are the kernel's: the fake clock is set from the real one where
//! they meet).

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::time::{SystemTime, UNIX_EPOCH};

use super::host::{generator, mapped, on, SECONDS};
use super::{config, decode, temp_dir, FakeTime, NOW};
use crate::host::file::{HostFile, HORIZON_MS, TICK_MS};
use crate::host::format::{Format, FILE_NAME, START_OFFSET};
use crate::input::Input;
use crate::kinds::layout::{Order, Shape};
use crate::options::{RawOptions, Scope};
use crate::registry::shared_state;

/// The system clock, ms since 1970.
fn real_now() -> u64 {
  SystemTime::now()
    .duration_since(UNIX_EPOCH)
    .unwrap()
    .as_millis() as u64
}

fn read_word(path: &std::path::Path, at: usize) -> u64 {
  let mut bytes = [0; 8];
  File::open(path)
    .unwrap()
    .read_exact_at(&mut bytes, at as u64)
    .unwrap();
  u64::from_ne_bytes(bytes)
}

fn write_word(path: &std::path::Path, at: usize, word: u64) {
  let file = OpenOptions::new().write(true).open(path).unwrap();
  file.write_all_at(&word.to_ne_bytes(), at as u64).unwrap();
}

/// As `cp backup file` does: truncates the file in place, then writes `bytes` back.
fn copy_over(path: &std::path::Path, bytes: &[u8]) {
  let file = OpenOptions::new().write(true).open(path).unwrap();
  file.set_len(0).unwrap();
  file.write_all_at(bytes, 0).unwrap();
}

#[test]
fn any_number_of_lost_files_can_be_let_go_of_and_replaced() {
  let dir = temp_dir("many-losses");
  // Past the 256 mappings a process could hold before.
  for round in 0..300 {
    let file = mapped(&dir);
    let generator = generator(file, 1);
    assert!(generator.next_id(NOW + round).is_ok(), "round {round}");
    fs::remove_file(dir.join(FILE_NAME)).unwrap();
    let err = generator.next_id(NOW + round + HORIZON_MS + 1).unwrap_err();
    assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST", "round {round}");
  }
}

#[test]
fn a_lost_file_is_let_go_of_with_its_lock() {
  let dir = temp_dir("let-go");
  let file = mapped(&dir);
  let generator = generator(file, 2);
  generator.next_id(NOW).unwrap();
  let moved = dir.join("moved-away");
  fs::rename(dir.join(FILE_NAME), &moved).unwrap();
  // Still held: the mapping's shared lock refuses an exclusive one.
  assert!(File::open(&moved).unwrap().try_lock().is_err());
  let err = generator.next_id(NOW + HORIZON_MS + 1).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST");
  // Let go of: nothing holds it now (a reset could take it), and it still refuses.
  assert!(File::open(&moved).unwrap().try_lock().is_ok());
  assert_eq!(
    generator.next_id(NOW + 1).unwrap_err().code(),
    "ERR_FLAKE_STATE_LOST"
  );
}

#[test]
fn a_file_whose_content_went_back_is_lost_and_none_of_its_ids_repeat() {
  let dir = temp_dir("went-back");
  let file = mapped(&dir);
  let path = dir.join(FILE_NAME);
  let ids = generator(file, 3);
  ids.next_id(NOW).unwrap();
  let backup = fs::read(&path).unwrap();
  let mut last = 0;
  for _ in 0..5 {
    last = ids.next_id(NOW).unwrap();
  }
  copy_over(&path, &backup);
  let err = ids.next_id(NOW).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST");
  assert!(err.to_string().contains("went back"), "{err}");
  // A generator made after (as the error says) starts on the path's file as a new one.
  let mut time = FakeTime(NOW);
  let again = HostFile::open(&dir, Shape::FLAKE_IDGEN, &mut time, true).unwrap();
  let next = generator(again, 3).next_id(time.0).unwrap();
  assert!(next > last, "{:?} <= {:?}", decode(next), decode(last));
}

#[test]
fn after_a_loss_a_file_grown_back_in_place_is_a_new_file() {
  for shape in [Shape::FLAKE_IDGEN, SECONDS] {
    let dir = temp_dir("grown-back");
    let mut time = FakeTime(NOW);
    let file = HostFile::open(&dir, shape, &mut time, false).unwrap();
    let path = dir.join(Format { shape }.file_name());
    let lost = on(file, shape, 4);
    let now = time.0;
    let backup = fs::read(&path).unwrap();
    let mut last = 0;
    for _ in 0..1000 {
      last = lost.take(now, 1).unwrap().first;
    }
    // Truncated, noticed on the next touch (SIGBUS), then the old bytes written back.
    OpenOptions::new()
      .write(true)
      .open(&path)
      .unwrap()
      .set_len(0)
      .unwrap();
    assert_eq!(
      lost.take(now, 1).unwrap_err().code(),
      "ERR_FLAKE_STATE_LOST"
    );
    fs::OpenOptions::new()
      .write(true)
      .open(&path)
      .unwrap()
      .write_all_at(&backup, 0)
      .unwrap();
    let again = HostFile::open(&dir, shape, &mut time, true).unwrap();
    let next = on(again, shape, 4).take(time.0, 1).unwrap().first;
    assert!(
      next > last,
      "unit {} ms: {next:#x} <= {last:#x}",
      shape.unit_ms
    );
  }
}

#[test]
fn a_first_mapping_of_a_directory_nobody_holds_waits_for_nothing() {
  let dir = temp_dir("no-wait");
  let path = dir.join(Format { shape: SECONDS }.file_name());
  // Made by a process that has since ended (its mapping let go of).
  HostFile::open(&dir, SECONDS, &mut FakeTime(NOW), false)
    .unwrap()
    .release();
  assert!(path.exists());
  // Past the time unit the horizon after the directory's last change ends in, by the real
  // clock.
  let now = real_now() + HORIZON_MS + TICK_MS + u64::from(SECONDS.unit_ms);
  let mut time = FakeTime(now);
  let file = HostFile::open(&dir, SECONDS, &mut time, false).unwrap();
  assert_eq!(time.0, now, "waited");
  assert!(on(file, SECONDS, 5).take(now, 1).is_ok());
}

#[test]
fn a_first_mapping_just_after_a_change_waits_the_horizon_after_it() {
  let dir = temp_dir("wait-after-change");
  let before = real_now();
  let mut time = FakeTime(before);
  HostFile::open(&dir, Shape::FLAKE_IDGEN, &mut time, false).unwrap();
  assert!(time.0 > before + HORIZON_MS, "{} after {before}", time.0);
}

#[test]
fn a_start_put_far_ahead_by_another_clock_is_not_waited_for() {
  let dir = temp_dir("start-ahead");
  let held = mapped(&dir);
  // As a process whose clock is an hour ahead would have left it.
  write_word(&dir.join(FILE_NAME), START_OFFSET, NOW + 3_600_000);
  let mut time = FakeTime(NOW);
  let joined = HostFile::open(&dir, Shape::FLAKE_IDGEN, &mut time, false).unwrap();
  assert!(
    time.0 <= NOW + 2 * (HORIZON_MS + TICK_MS),
    "waited until {}",
    time.0
  );
  assert!(generator(joined, 6).next_id(time.0).is_ok());
  assert!(generator(held, 6).next_id(time.0 + 1).is_ok());
}

#[test]
fn a_state_ahead_of_the_clock_is_counted_on_by_128_bit_kinds_only() {
  let dir = temp_dir("count-on");
  let uuid = Shape {
    time_bits: 48,
    unit_ms: 1,
    node_bits: 0,
    sequence_bits: 15,
    order: Order::NodeSequence,
  };
  let file = HostFile::open(&dir, uuid, &mut FakeTime(NOW), false).unwrap();
  let ahead = NOW + 3_600_000;
  // A process whose clock is an hour ahead took one.
  on(file, uuid, 0).take(ahead, 1).unwrap();
  let behind = on(file, uuid, 0);
  assert_eq!(
    behind.take(NOW + 100, 1).unwrap_err().code(),
    "ERR_FLAKE_CLOCK_BACKWARDS"
  );
  let counting = behind.counting_on();
  let mut last = 0;
  for _ in 0..100_000 {
    let ids = counting.take(NOW + 100, 1).unwrap();
    assert!(ids.first > last);
    last = ids.first;
  }
  // 100,000 ids past a 15-bit counter: the units after the state's, not the clock's.
  let unit = last >> 15;
  assert!((ahead + 3..ahead + 5).contains(&unit), "{unit}");
}

#[test]
fn a_busy_file_is_an_error_never_a_fall_back() {
  let (busy, other) = (temp_dir("busy"), temp_dir("busy-other"));
  mapped(&busy).release();
  let locked = File::open(busy.join(FILE_NAME)).unwrap();
  locked.lock().unwrap();
  let mut config = config(RawOptions {
    id: Input::Number(9.0),
    ..RawOptions::default()
  });
  config.scope = Scope::Host {
    dir: busy.to_path_buf(),
    alternatives: vec![other.to_path_buf()],
    required: false,
  };
  let err = shared_state(&config).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_FILE");
  assert!(err.to_string().contains("locked"), "{err}");
  assert!(!other.exists(), "fell back to {}", other.display());
  // Tried again once it is let go of.
  drop(locked);
  assert!(shared_state(&config).unwrap().1);
}

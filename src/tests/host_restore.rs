//! A state file put back under processes that map it (an older copy written over it in place,
//! as `pwrite` or `cp backup file` do, or truncated and grown back), and a state file that cannot
//! be written whole (a full disk). Two mappings of one file in this process stand for two
//! processes: each has its own lock (so the second is a later mapping) and its own floors.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;

use super::host::{on, SECONDS};
use super::{temp_dir, FakeTime, NOW};
use crate::host::file::{write_whole, HostFile, HORIZON_MS};
use crate::host::format::{fresh, Format, FILE_LEN};
use crate::kinds::layout::Shape;

/// The three ways the issue put a file back: an older copy written over it in place, the same
/// with a truncation first (`cp backup file`), and truncated to its header and grown back.
const RESTORES: [&str; 3] = ["pwrite", "cp", "truncate-grow"];

fn restore(how: &str, path: &std::path::Path, backup: &[u8]) {
  let file = OpenOptions::new().write(true).open(path).unwrap();
  match how {
    "pwrite" => file.write_all_at(backup, 0).unwrap(),
    "cp" => {
      file.set_len(0).unwrap();
      file.write_all_at(backup, 0).unwrap();
    }
    _ => {
      file.set_len(4096).unwrap();
      file.set_len(backup.len() as u64).unwrap();
    }
  }
}

#[test]
fn a_process_mapping_a_file_after_it_was_put_back_repeats_no_id_of_one_mapping_it_before() {
  for shape in [Shape::FLAKE_IDGEN, SECONDS] {
    for how in RESTORES {
      let what = format!("unit {} ms, {how}", shape.unit_ms);
      let dir = temp_dir("restored");
      let path = dir.join(Format { shape }.file_name());
      let mut time = FakeTime(NOW);
      // A: the first mapping, issuing on ids 1 and 2, then idle.
      let a = HostFile::open(&dir, shape, &mut time, false).unwrap();
      let (a1, a2) = (on(a, shape, 1), on(a, shape, 2));
      let now = time.0;
      let backup = fs::read(&path).unwrap();
      let mut ids_a: Vec<u64> = (0..1000).map(|_| a1.take(now, 1).unwrap().first).collect();
      a2.take(now, 1).unwrap();
      restore(how, &path, &backup);
      // B: a later mapping, on the same clock, on A's id.
      let (later, ids_b) = thousand_ids_of_a_new_mapping(&dir, shape, now);
      let last_a = *ids_a.iter().max().unwrap();
      let repeated = ids_b.iter().filter(|id| ids_a.contains(id)).count();
      assert_eq!(repeated, 0, "{what}: B repeated A's ids");
      assert!(ids_b.iter().all(|&id| id > last_a), "{what}: B below A");
      // A wakes past its horizon: id 2's word went back, and nobody moved it since.
      let err = a1.take(later.max(now + HORIZON_MS + 1), 1).unwrap_err();
      assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST", "{what}");
      assert!(err.to_string().contains("node id 2"), "{what}: {err}");
      ids_a.extend(ids_b);
      ids_a.sort_unstable();
      ids_a.dedup();
      assert_eq!(ids_a.len(), 2000, "{what}");
    }
  }
}

/// B: a mapping of `dir`'s file opened on a clock reading `now` (moved on by the wait for its
/// start), and 1,000 ids of node id 1 from it: the clock after, and the ids.
fn thousand_ids_of_a_new_mapping(dir: &std::path::Path, shape: Shape, now: u64) -> (u64, Vec<u64>) {
  let mut later = FakeTime(now);
  let b = HostFile::open(dir, shape, &mut later, false).unwrap();
  let b1 = on(b, shape, 1);
  let ids = (0..1000)
    .map(|_| b1.take(later.0, 1).unwrap().first)
    .collect();
  (later.0, ids)
}

#[test]
fn a_later_mapping_starts_the_horizon_after_its_clock_whatever_start_the_file_holds() {
  for shape in [Shape::FLAKE_IDGEN, SECONDS] {
    let dir = temp_dir("later-start");
    HostFile::open(&dir, shape, &mut FakeTime(NOW), false).unwrap();
    let now = NOW + 10_000;
    let mut time = FakeTime(now);
    let later = HostFile::open(&dir, shape, &mut time, false).unwrap();
    let unit = shape.unit();
    let fresh = (now + HORIZON_MS + crate::host::file::TICK_MS) / unit * unit + unit - 1;
    assert_eq!(time.0, fresh + 1, "unit {unit} ms");
    assert!(on(later, shape, 3).take(time.0, 1).is_ok());
  }
}

#[test]
fn a_process_that_wakes_after_a_restore_nobody_moved_past_reports_it_at_once() {
  let dir = temp_dir("woken");
  let mut time = FakeTime(NOW);
  let a = HostFile::open(&dir, SECONDS, &mut time, false).unwrap();
  let path = dir.join(Format { shape: SECONDS }.file_name());
  let backup = fs::read(&path).unwrap();
  let a4 = on(a, SECONDS, 4);
  a4.take(time.0, 1).unwrap();
  restore("pwrite", &path, &backup);
  // Its next take is past the horizon: the renewal finds the word below what it took.
  let err = a4.take(time.0 + 5 * HORIZON_MS, 1).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST");
  assert!(err.to_string().contains("went back"), "{err}");
}

/// A file system that takes `room` bytes, then is full.
struct Full {
  written: Vec<u8>,
  room: usize,
}

impl Write for Full {
  fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
    let n = buf.len().min(self.room - self.written.len());
    if n == 0 {
      return Err(io::Error::from_raw_os_error(libc::ENOSPC));
    }
    self.written.extend_from_slice(&buf[..n]);
    Ok(n)
  }

  fn flush(&mut self) -> io::Result<()> {
    Ok(())
  }
}

#[test]
fn a_state_file_written_on_a_full_disk_fails_with_the_systems_error_wherever_it_stops() {
  // 65,536 of 69,632 bytes: what a dropped buffer left at the name.
  for room in [0, 100, 4096, 8192, 65_536, FILE_LEN - 1] {
    let err = write_whole(
      Format::DEFAULT,
      Full {
        written: Vec::new(),
        room,
      },
    )
    .err()
    .unwrap_or_else(|| panic!("{room} bytes of room: no error"));
    assert_eq!(err.raw_os_error(), Some(libc::ENOSPC), "{room}: {err}");
  }
  let whole = write_whole(
    Format::DEFAULT,
    Full {
      written: Vec::new(),
      room: FILE_LEN,
    },
  )
  .unwrap();
  assert_eq!(whole.written, fresh());
}

/// A clock an hour past the kernel's: every change a test makes to a file is an hour old to it,
/// as a copy restored from yesterday's backup is.
fn an_hour_ahead() -> FakeTime {
  FakeTime(crate::os::now_ms() + 3_600_000)
}

#[test]
fn a_copy_put_in_place_with_old_change_times_repeats_no_id_of_the_live_file_it_hid() {
  for shape in [Shape::FLAKE_IDGEN, SECONDS] {
    let what = format!("unit {} ms", shape.unit_ms);
    let dir = temp_dir("copied-in");
    let path = dir.join(Format { shape }.file_name());
    let mut time = an_hour_ahead();
    // A: the file's first mapping, a backup of it, then 1,000 ids, then idle with it mapped.
    let a = HostFile::open(&dir, shape, &mut time, false).unwrap();
    let now = time.0;
    let backup = fs::read(&path).unwrap();
    let a1 = on(a, shape, 1);
    let ids_a: Vec<u64> = (0..1000).map(|_| a1.take(now, 1).unwrap().first).collect();
    // The backup put where the file was. Renamed here (a bind mount needs root), which changes
    // the directory's time, but an hour before this clock: as old as a bind mount's, which
    // changes none.
    let copy = dir.join("copy");
    fs::write(&copy, &backup).unwrap();
    fs::rename(&copy, &path).unwrap();
    // B: the copy's first mapping (A holds the file it hid), on the same clock.
    let (later, ids_b) = thousand_ids_of_a_new_mapping(&dir, shape, now);
    let last_a = *ids_a.iter().max().unwrap();
    assert!(ids_b.iter().all(|&id| id > last_a), "{what}: B below A");
    // A, past its horizon, finds another file at its path.
    let err = a1.take(later.max(now + HORIZON_MS + 1), 1).unwrap_err();
    assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST", "{what}");
    assert!(
      err.to_string().contains("put in its place"),
      "{what}: {err}"
    );
  }
}

#[test]
fn a_first_mapping_of_the_file_its_words_were_written_in_trusts_its_old_change_times() {
  for shape in [Shape::FLAKE_IDGEN, SECONDS] {
    let what = format!("unit {} ms", shape.unit_ms);
    let dir = temp_dir("at-home");
    let mut time = an_hour_ahead();
    let a = HostFile::open(&dir, shape, &mut time, false).unwrap();
    let last_a = on(a, shape, 1).take(time.0, 1).unwrap().first;
    // Every process of it ended: the next is a first mapping again, of the same file.
    a.release();
    let now = time.0;
    let mut later = FakeTime(now);
    let b = HostFile::open(&dir, shape, &mut later, false).unwrap();
    assert_eq!(
      later.0, now,
      "{what}: waited for a file that is where it was written"
    );
    let first_b = on(b, shape, 1).take(later.0, 1).unwrap().first;
    assert!(first_b > last_a, "{what}: B below A");
  }
}

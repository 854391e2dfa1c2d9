//! A mapped state file that stops being the host's (removed, replaced, truncated, its directory
//! removed or made unsafe) is noticed within the horizon, and a file started after it issues
//! above every id the old one still could: against a fake clock, on real files.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use super::host::{borrowing, generator, mapped, mapped_at, planted, refused};
use super::{decode, temp_dir, NOW};
use crate::host::file::{HORIZON_MS, TICK_MS};
use crate::host::format::{fresh, FILE_LEN, FILE_NAME};
use crate::input::Input;
use crate::options::RawOptions;
use crate::registry::shared_state;

fn lost_code(result: Result<u64, crate::error::FlakeError>) -> String {
  result.expect_err("refused").code().to_string()
}

#[test]
fn a_removed_file_is_noticed_within_the_horizon_and_for_good() {
  let dir = temp_dir("removed");
  let file = mapped(&dir);
  let id = generator(file, 5);
  id.next_id(NOW).unwrap();
  fs::remove_file(dir.join(FILE_NAME)).unwrap();
  // Within the horizon after it was last seen, the mapping issues without looking again.
  id.next_id(NOW + HORIZON_MS).unwrap();
  let err = id.next_id(NOW + HORIZON_MS + 1).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST");
  assert!(err.to_string().contains("it was removed"), "{err}");
  // Lost for good: a later reading, or one within the old horizon, is refused too.
  assert_eq!(lost_code(id.next_id(NOW + 10_000)), "ERR_FLAKE_STATE_LOST");
  assert_eq!(lost_code(id.next_id(NOW + 1)), "ERR_FLAKE_STATE_LOST");
}

#[test]
fn a_file_put_in_its_place_or_its_directory_removed_is_noticed() {
  let replaced = temp_dir("replaced");
  let file = mapped(&replaced);
  generator(file, 1).next_id(NOW).unwrap();
  let stale = replaced.join("stale");
  fs::copy(replaced.join(FILE_NAME), &stale).unwrap();
  fs::rename(&stale, replaced.join(FILE_NAME)).unwrap();
  let err = generator(file, 1)
    .next_id(NOW + HORIZON_MS + 1)
    .unwrap_err();
  assert!(
    err
      .to_string()
      .contains("another file was put in its place"),
    "{err}"
  );

  let removed = temp_dir("dir-removed");
  let file = mapped(&removed);
  generator(file, 1).next_id(NOW).unwrap();
  fs::remove_dir_all(&*removed).unwrap();
  fs::create_dir(&*removed).unwrap();
  let err = generator(file, 1)
    .next_id(NOW + HORIZON_MS + 1)
    .unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST");
}

#[test]
fn a_directory_made_writable_by_others_is_a_lost_state() {
  let dir = temp_dir("opened-up");
  let file = mapped(&dir);
  generator(file, 2).next_id(NOW).unwrap();
  fs::set_permissions(&*dir, fs::Permissions::from_mode(0o777)).unwrap();
  let err = generator(file, 2)
    .next_id(NOW + HORIZON_MS + 1)
    .unwrap_err();
  assert!(err.to_string().contains("no longer safe"), "{err}");
}

#[test]
fn a_truncated_file_is_a_lost_state_not_a_crash() {
  for len in [0, 4096] {
    let dir = temp_dir("truncated");
    let file = mapped(&dir);
    let id = generator(file, 9);
    id.next_id(NOW).unwrap();
    fs::OpenOptions::new()
      .write(true)
      .open(dir.join(FILE_NAME))
      .unwrap()
      .set_len(len)
      .unwrap();
    // Within the horizon: the word's page is gone, the fault is caught, the words are spent.
    let err = id.next_id(NOW + 1).unwrap_err();
    assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST", "{len}: {err}");
    assert!(err.to_string().contains("truncated"), "{err}");
    assert_eq!(lost_code(id.next_id(NOW + 5_000)), "ERR_FLAKE_STATE_LOST");
    // Another id's word, on a page never touched before: spent too.
    assert_eq!(
      lost_code(generator(file, 1000).next_id(NOW + 2)),
      "ERR_FLAKE_STATE_LOST"
    );
  }
}

#[test]
fn a_first_mapping_starts_past_the_horizon_and_later_ones_the_horizon_after_their_clock() {
  let dir = temp_dir("start");
  // The file was made just now by the system clock, which is ahead of the fake one: the start
  // is then the horizon (and a tick of the kernel's file times) after the fake clock.
  let first = mapped_at(&dir, NOW);
  let start = NOW + HORIZON_MS + TICK_MS;
  // Nothing at or before the start, whatever the word says.
  let err = generator(first, 4).next_id(start).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_CLOCK_BACKWARDS");
  assert_eq!(
    decode(generator(first, 4).next_id(start + 1).unwrap()).0,
    start + 1
  );
  // A second mapping while the first is held trusts nothing the file says (it may have been
  // put back): it starts the horizon after its own clock, the file's start left as it was.
  let joined = mapped_at(&dir, NOW + 10);
  let err = generator(joined, 5).next_id(start + 10).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_CLOCK_BACKWARDS");
  assert!(generator(joined, 5).next_id(start + 11).is_ok());
  assert!(generator(first, 6).next_id(start + 2).is_ok());
}

#[test]
fn a_file_started_after_a_loss_issues_above_every_id_the_lost_one_could() {
  let dir = temp_dir("successor");
  let old = mapped_at(&dir, NOW - 100);
  let a = generator(old, 7);
  let mut last_a = a.next_id(NOW).unwrap();
  // Removed at NOW + 3; process B starts on the directory a moment later, at NOW + 4.
  a.next_id(NOW + 3).unwrap();
  fs::remove_file(dir.join(FILE_NAME)).unwrap();
  let b = generator(mapped_at(&dir, NOW + 4), 7);
  // A issues whatever it still may (borrowing nothing) until it notices...
  for now in NOW + 3..NOW + 100 {
    match a.next_id(now) {
      Ok(id) => last_a = id,
      Err(err) => {
        assert_eq!(err.code(), "ERR_FLAKE_STATE_LOST");
        break;
      }
    }
  }
  // ...and B's first id is above all of them.
  let first_b = (NOW + 4..NOW + 100)
    .find_map(|now| b.next_id(now).ok())
    .unwrap();
  assert!(
    first_b > last_a,
    "{:?} <= {:?}",
    decode(first_b),
    decode(last_a)
  );
}

#[test]
fn borrowing_on_host_scope_reaches_the_horizon_and_no_further() {
  let dir = temp_dir("borrow");
  let file = mapped(&dir);
  let generator = borrowing(file, 8, 1000.0);
  let mut last = 0;
  let err = loop {
    match generator.next_id(NOW) {
      Ok(id) => last = id,
      Err(err) => break err,
    }
  };
  assert_eq!(err.code(), "ERR_FLAKE_SEQUENCE_OVERFLOW");
  assert_eq!(decode(last), (NOW + HORIZON_MS, 8, 4095));
}

#[test]
fn a_parent_others_can_write_needs_the_sticky_bit() {
  let parent = temp_dir("open-parent");
  fs::create_dir(&*parent).unwrap();
  fs::set_permissions(&*parent, fs::Permissions::from_mode(0o777)).unwrap();
  let (code, message) = refused(&parent.join("state"));
  assert_eq!(code, "ERR_FLAKE_STATE_DIR");
  assert!(message.contains("without the sticky bit"), "{message}");
  fs::set_permissions(&*parent, fs::Permissions::from_mode(0o1777)).unwrap();
  mapped(&parent.join("state"));
}

#[test]
fn one_generator_id_issues_from_one_state_directory_in_a_process() {
  let (a, b) = (planted("one-a", &[]), planted("one-b", &[]));
  let config = |dir: &std::path::Path| {
    super::config(RawOptions {
      id: Input::Number(1021.0),
      state_dir: Input::String(dir.display().to_string()),
      ..RawOptions::default()
    })
  };
  assert!(shared_state(&config(&a)).is_ok());
  assert!(shared_state(&config(&a)).is_ok());
  let err = shared_state(&config(&b)).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_DIR");
  let message = err.to_string();
  assert!(
    message.contains(&*a.display().to_string()) && message.contains(&*b.display().to_string()),
    "{message}"
  );
  // Another id may use the other directory.
  let other = super::config(RawOptions {
    id: Input::Number(1022.0),
    state_dir: Input::String(b.display().to_string()),
    ..RawOptions::default()
  });
  assert!(shared_state(&other).is_ok());
  assert_eq!(
    fs::metadata(b.join(FILE_NAME)).unwrap().len(),
    FILE_LEN as u64
  );
  let _ = fresh;
}

#[test]
fn a_directory_swapped_for_a_symlink_while_opened_is_never_followed() {
  use std::os::unix::fs::{symlink, MetadataExt};
  use std::sync::atomic::{AtomicBool, Ordering};
  let dir = temp_dir("swapped");
  mapped(&dir);
  let target = planted("swap-target", &[(FILE_NAME, &fresh())]);
  let target_ino = fs::metadata(&*target).unwrap().ino();
  let aside = dir.with_extension("aside");
  let stop = AtomicBool::new(false);
  let (mut opened, mut refused) = (0, 0);
  std::thread::scope(|scope| {
    scope.spawn(|| {
      // Errors ignored: an open between two steps may have made the directory anew.
      while !stop.load(Ordering::Relaxed) {
        let _ = fs::rename(&*dir, &aside);
        let _ = symlink(&*target, &*dir);
        let _ = fs::remove_file(&*dir);
        let _ = fs::rename(&aside, &*dir);
      }
    });
    for _ in 0..3_000 {
      match crate::os::open_dir(&dir) {
        Ok(opened_dir) => {
          opened += 1;
          assert_ne!(
            opened_dir.metadata().unwrap().ino(),
            target_ino,
            "followed the symlink"
          );
        }
        Err(err) => {
          refused += 1;
          assert_eq!(err.code(), "ERR_FLAKE_STATE_DIR", "{err}");
        }
      }
    }
    stop.store(true, Ordering::Relaxed);
  });
  assert!(opened > 0, "never opened ({refused} refused)");
  let _ = fs::remove_dir_all(&aside);
}

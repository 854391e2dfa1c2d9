//! Host scope: state words in a mapped file, shared by every mapping of it as by every process
//! of a host; files refused when they are not safe or not ours; the state listed and reset.

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};

use super::{config, decode, temp_dir, NOW};
use crate::generator::{Generator, Settings};
use crate::host::format::{file_name, fresh, word_offset, FILE_LEN};
use crate::host::{admin, HostFile};
use crate::input::Input;
use crate::options::RawOptions;

fn generator(file: &'static HostFile, id: u16) -> Generator<'static> {
  let config = config(RawOptions {
    id: Input::Number(f64::from(id)),
    ..RawOptions::default()
  });
  Generator::shared(&Settings::from(&config), file.sequencer(id))
}

fn mapped(dir: &std::path::Path, epoch: u64) -> &'static HostFile {
  Box::leak(Box::new(HostFile::open_epoch(dir, epoch).unwrap()))
}

#[test]
fn two_mappings_of_a_file_share_each_ids_state_as_two_processes_do() {
  let dir = temp_dir("share");
  let (a, b) = (mapped(&dir, 0), mapped(&dir, 0));
  let (first, second) = (generator(a, 7), generator(b, 7));
  let mut last = 0;
  for i in 0..10_000u64 {
    // The same fake clock for both: only a shared word keeps their ids apart.
    let now = NOW + i / 3_000;
    let id = if i % 2 == 0 { &first } else { &second }
      .next_id(now)
      .or_else(|_| first.next_id(now + 1))
      .unwrap();
    assert!(id > last, "{id} after {last}");
    last = id;
  }
  // Another generator id in the same file has a state of its own.
  assert_eq!(decode(generator(b, 8).next_id(NOW).unwrap()), (NOW, 8, 0));
  let perms = fs::metadata(&*dir).unwrap().permissions().mode() & 0o777;
  assert_eq!(perms, 0o700);
}

#[test]
fn a_file_continues_above_the_last_id_a_mapping_issued() {
  let dir = temp_dir("continue");
  let before = generator(mapped(&dir, 0), 3).next_id(NOW).unwrap();
  // As a process started later: a mapping of its own, and a clock that has not moved.
  let after = generator(mapped(&dir, 0), 3).next_id(NOW).unwrap();
  assert_eq!(after, before + 1);
  assert!(generator(mapped(&dir, 0), 3).next_id(NOW - 5).is_err());
}

fn refused(dir: &std::path::Path, epoch: u64) -> (String, String) {
  let err = HostFile::open_epoch(dir, epoch).unwrap_err();
  (err.code().to_string(), err.to_string())
}

#[test]
fn files_not_ours_are_refused_and_left_as_they_are() {
  let dir = temp_dir("bad");
  mapped(&dir, 0);
  let good = fs::read(dir.join(file_name(0))).unwrap();
  let mut cases: Vec<(u64, Vec<u8>, &str)> = vec![
    (
      1,
      good[..100].to_vec(),
      "it is 100 bytes, a state file is 69632",
    ),
    (2, Vec::new(), "it is 0 bytes"),
    (3, [&good[..], &[0]].concat(), "it is 69633 bytes"),
  ];
  let mut magic = fresh(4);
  magic[0] = b'X';
  cases.push((4, magic, "wrong magic"));
  let mut version = fresh(5);
  version[8] = 2;
  cases.push((5, version, "format version 2, this version reads 1"));
  cases.push((6, fresh(60), "holds epoch 60, its name says 6"));
  for (epoch, bytes, reason) in cases {
    let path = dir.join(file_name(epoch));
    fs::write(&path, &bytes).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let (code, message) = refused(&dir, epoch);
    assert_eq!(code, "ERR_FLAKE_STATE_FILE", "{message}");
    assert!(message.contains(reason), "{message}");
    assert_eq!(fs::read(&path).unwrap(), bytes, "epoch {epoch} changed");
  }
  let writable = dir.join(file_name(7));
  fs::write(&writable, fresh(7)).unwrap();
  fs::set_permissions(&writable, fs::Permissions::from_mode(0o666)).unwrap();
  assert!(refused(&dir, 7).1.contains("writable by group or others"));
}

#[test]
fn symlinks_are_not_followed() {
  let dir = temp_dir("links");
  mapped(&dir, 0);
  symlink(dir.join(file_name(0)), dir.join(file_name(1))).unwrap();
  let (code, message) = refused(&dir, 1);
  assert_eq!(code, "ERR_FLAKE_STATE_FILE");
  assert!(message.contains("symlink"), "{message}");
  let link = temp_dir("link-to-dir");
  symlink(&*dir, &*link).unwrap();
  let (code, message) = refused(&link, 0);
  assert_eq!(code, "ERR_FLAKE_STATE_DIR");
  assert!(message.contains("symlink"), "{message}");
}

#[test]
fn a_directory_others_can_write_is_refused() {
  let dir = temp_dir("open-dir");
  fs::create_dir(&*dir).unwrap();
  fs::set_permissions(&*dir, fs::Permissions::from_mode(0o777)).unwrap();
  let (code, message) = refused(&dir, 0);
  assert_eq!(code, "ERR_FLAKE_STATE_DIR");
  assert!(
    message.contains("writable by group or others (mode 777)"),
    "{message}"
  );
  // Another user's: only root can make one to test with.
  let theirs = temp_dir("their-dir");
  fs::create_dir(&*theirs).unwrap();
  fs::set_permissions(&*theirs, fs::Permissions::from_mode(0o700)).unwrap();
  if std::os::unix::fs::chown(&*theirs, Some(65534), None).is_ok() {
    let (code, message) = refused(&theirs, 0);
    assert_eq!(code, "ERR_FLAKE_STATE_DIR");
    assert!(message.contains("owned by uid 65534"), "{message}");
  }
  let relative = refused(std::path::Path::new("relative"), 0);
  assert!(
    relative.1.contains("not an absolute path"),
    "{}",
    relative.1
  );
}

#[test]
fn state_is_listed_and_a_reset_refused_while_mapped() {
  let dir = temp_dir("admin");
  let file = mapped(&dir, 1000);
  generator(file, 3).take(NOW, 5).unwrap();
  let listed = admin::list(&dir).unwrap();
  assert_eq!(listed.len(), 1);
  assert_eq!(listed[0].epoch, 1000);
  let entries = listed[0].entries.as_ref().unwrap();
  assert_eq!(entries.len(), 1);
  assert_eq!(
    (entries[0].id, entries[0].delta, entries[0].sequence),
    (3, NOW, 4)
  );
  let err = admin::reset(&dir, 3, None).unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_IN_USE");
  assert!(
    admin::list(&dir).unwrap()[0]
      .entries
      .as_ref()
      .unwrap()
      .len()
      == 1
  );
}

#[test]
fn a_reset_clears_one_word_or_removes_a_file_left_empty() {
  let dir = temp_dir("reset");
  // Written as a process that has since exited left it: no mapping holds it.
  fs::create_dir(&*dir).unwrap();
  fs::set_permissions(&*dir, fs::Permissions::from_mode(0o700)).unwrap();
  let mut bytes = fresh(0);
  for (id, word) in [(1u16, 5u64 << 22), (2, 6 << 22)] {
    let at = word_offset(id);
    bytes[at..at + 8].copy_from_slice(&word.to_ne_bytes());
  }
  let path = dir.join(file_name(0));
  fs::write(&path, &bytes).unwrap();
  fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
  let done = admin::reset(&dir, 1, None).unwrap();
  assert_eq!((done.len(), done[0].removed), (1, false));
  let left = admin::list(&dir).unwrap();
  let ids: Vec<u16> = left[0]
    .entries
    .as_ref()
    .unwrap()
    .iter()
    .map(|e| e.id)
    .collect();
  assert_eq!(ids, [2]);
  assert_eq!(fs::metadata(&path).unwrap().len(), FILE_LEN as u64);
  assert!(admin::reset(&dir, 1, None).unwrap().is_empty());
  assert!(admin::reset(&dir, 2, Some(0)).unwrap()[0].removed);
  assert!(!path.exists());
}

#[test]
fn a_hand_edited_word_is_refused_or_passed_never_a_panic() {
  let dir = temp_dir("hand-edited");
  fs::create_dir(&*dir).unwrap();
  fs::set_permissions(&*dir, fs::Permissions::from_mode(0o700)).unwrap();
  let mut bytes = fresh(0);
  // Delta 5 with a lead of 1,000: more than the delta, which no sequencer writes.
  let word = (5u64 << 22) | (1000 << 12);
  bytes[word_offset(1)..word_offset(1) + 8].copy_from_slice(&word.to_ne_bytes());
  let path = dir.join(file_name(0));
  fs::write(&path, bytes).unwrap();
  fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
  let file = mapped(&dir, 0);
  // Refused while the clock is behind the state, issued above it once the clock passes it.
  assert!(generator(file, 1).take(3, 1).is_err());
  assert_eq!(decode(generator(file, 1).next_id(6).unwrap()), (6, 1, 0));
}

#[test]
fn a_reset_skips_files_it_cannot_read() {
  let dir = temp_dir("reset-skips");
  fs::create_dir(&*dir).unwrap();
  fs::set_permissions(&*dir, fs::Permissions::from_mode(0o700)).unwrap();
  let mut bytes = fresh(0);
  bytes[word_offset(1)..word_offset(1) + 8].copy_from_slice(&(9u64 << 22).to_ne_bytes());
  for (epoch, content) in [(0, bytes), (1, vec![0; 10])] {
    let path = dir.join(file_name(epoch));
    fs::write(&path, content).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
  }
  let done = admin::reset(&dir, 1, None).unwrap();
  assert_eq!((done.len(), done[0].epoch, done[0].removed), (1, 0, true));
  assert!(dir.join(file_name(1)).exists());
}

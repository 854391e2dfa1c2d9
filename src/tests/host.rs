//! Host scope: state words in a mapped file, shared by every mapping of it as by every process
//! of a host; files refused when they are not safe or not ours; the state listed and reset.

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};

use super::{config, decode, temp_dir, FakeTime, NOW};
use crate::generator::{Generator, Settings};
use crate::host::format::{fresh, word_offset, FILE_NAME};
use crate::host::HostFile;
use crate::input::Input;
use crate::kinds::layout::Shape;
use crate::options::RawOptions;
use crate::registry::SharedState;

pub(super) fn generator(file: &'static HostFile, id: u16) -> Generator<'static> {
  borrowing(file, id, 0.0)
}

/// A generator of `id` on `file` that borrows up to `allowed` ms ahead of the clock.
pub(super) fn borrowing(file: &'static HostFile, id: u16, allowed: f64) -> Generator<'static> {
  let config = config(RawOptions {
    id: Input::Number(f64::from(id)),
    allowed_future_ms: Input::Number(allowed),
    ..RawOptions::default()
  });
  let shared = SharedState {
    sequencer: file.sequencer(id),
    file: Some(file),
    floor: Some(file.floor(id)),
  };
  Generator::shared(&Settings::from(&config), shared)
}

pub(super) fn mapped(dir: &std::path::Path) -> &'static HostFile {
  HostFile::open(dir, Shape::FLAKE_IDGEN, &mut FakeTime::before_now(), false).unwrap()
}

/// Mapped by a process whose clock reads `now` (the start is then the horizon after it).
pub(super) fn mapped_at(dir: &std::path::Path, now: u64) -> &'static HostFile {
  HostFile::open(dir, Shape::FLAKE_IDGEN, &mut FakeTime(now), false).unwrap()
}

/// A directory (0700) holding `files` (name, content), each mode 0600, as processes that have
/// since exited (or something else) left them.
pub(super) fn planted(name: &str, files: &[(&str, &[u8])]) -> super::TempDir {
  let dir = temp_dir(name);
  fs::create_dir(&*dir).unwrap();
  fs::set_permissions(&*dir, fs::Permissions::from_mode(0o700)).unwrap();
  for (file, bytes) in files {
    let path = dir.join(file);
    fs::write(&path, bytes).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
  }
  dir
}

/// A fresh file's content with `words` (id, state word) written in.
fn with_words(words: &[(u16, u64)]) -> Vec<u8> {
  let mut bytes = fresh();
  for &(id, word) in words {
    let at = word_offset(id);
    bytes[at..at + 8].copy_from_slice(&word.to_ne_bytes());
  }
  bytes
}

#[test]
fn two_mappings_of_a_file_share_each_ids_state_as_two_processes_do() {
  let dir = temp_dir("share");
  let (a, b) = (mapped(&dir), mapped(&dir));
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
  // The header files of earlier builds have, epoch field 0 included: they still open.
  let header = fs::read(dir.join(FILE_NAME)).unwrap()[..32].to_vec();
  assert_eq!(
    (&header[..8], &header[16..24]),
    (&b"FLAKEIDS"[..], &[0u8; 8][..])
  );
  assert_eq!(header, fresh()[..32]);
}

#[test]
fn a_file_continues_above_the_last_id_a_mapping_issued() {
  let dir = temp_dir("continue");
  let before = generator(mapped(&dir), 3).next_id(NOW).unwrap();
  // As a process started later: a mapping of its own, and a clock that has not moved.
  let after = generator(mapped(&dir), 3).next_id(NOW).unwrap();
  assert_eq!(after, before + 1);
  assert!(generator(mapped(&dir), 3).next_id(NOW - 5).is_err());
}

pub(super) fn refused(dir: &std::path::Path) -> (String, String) {
  let err =
    HostFile::open(dir, Shape::FLAKE_IDGEN, &mut FakeTime::before_now(), false).unwrap_err();
  (err.code().to_string(), err.to_string())
}

#[test]
fn files_not_ours_are_refused_and_left_as_they_are() {
  let good = fresh();
  let mut magic = fresh();
  magic[0] = b'X';
  let mut version = fresh();
  version[8] = 2;
  let mut epoch = fresh();
  epoch[16..24].copy_from_slice(&60u64.to_le_bytes());
  let cases: Vec<(Vec<u8>, &str)> = vec![
    (
      good[..100].to_vec(),
      "it is 100 bytes, a state file of its layout is 69632",
    ),
    (Vec::new(), "it is 0 bytes"),
    ([&good[..], &[0]].concat(), "it is 69633 bytes"),
    (magic, "wrong magic"),
    (version, "format version 2, this version reads 1"),
    (epoch, "holds epoch 60, its name says 0"),
  ];
  for (bytes, reason) in cases {
    let dir = planted("bad", &[(FILE_NAME, &bytes)]);
    let (code, message) = refused(&dir);
    assert_eq!(code, "ERR_FLAKE_STATE_FILE", "{message}");
    assert!(message.contains(reason), "{message}");
    assert_eq!(
      fs::read(dir.join(FILE_NAME)).unwrap(),
      bytes,
      "{reason}: changed"
    );
  }
  let writable = planted("writable", &[(FILE_NAME, &good)]);
  fs::set_permissions(writable.join(FILE_NAME), fs::Permissions::from_mode(0o666)).unwrap();
  assert!(refused(&writable).1.contains("writable by group or others"));
}

#[test]
fn symlinks_are_not_followed() {
  let dir = temp_dir("links");
  mapped(&dir);
  let other = planted("link-to-file", &[]);
  symlink(dir.join(FILE_NAME), other.join(FILE_NAME)).unwrap();
  let (code, message) = refused(&other);
  assert_eq!(code, "ERR_FLAKE_STATE_FILE");
  assert!(message.contains("symlink"), "{message}");
  let link = temp_dir("link-to-dir");
  symlink(&*dir, &*link).unwrap();
  let (code, message) = refused(&link);
  assert_eq!(code, "ERR_FLAKE_STATE_DIR");
  assert!(message.contains("symlink"), "{message}");
}

#[test]
fn a_directory_others_can_write_is_refused() {
  let dir = temp_dir("open-dir");
  fs::create_dir(&*dir).unwrap();
  fs::set_permissions(&*dir, fs::Permissions::from_mode(0o777)).unwrap();
  let (code, message) = refused(&dir);
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
    let (code, message) = refused(&theirs);
    assert_eq!(code, "ERR_FLAKE_STATE_DIR");
    assert!(message.contains("owned by uid 65534"), "{message}");
  }
  let relative = refused(std::path::Path::new("relative"));
  assert!(
    relative.1.contains("not an absolute path"),
    "{}",
    relative.1
  );
}

#[test]
fn a_hand_edited_word_is_refused_or_passed_never_a_panic() {
  // Delta 50 with a lead of 1,000: more than the delta, which no sequencer writes.
  let word = (50u64 << 22) | (1000 << 12);
  let dir = planted("hand-edited", &[(FILE_NAME, &with_words(&[(1, word)]))]);
  let file = mapped_at(&dir, 0);
  // Refused while the clock is behind the state, issued above it once the clock passes it.
  assert!(generator(file, 1).take(30, 1).is_err());
  assert_eq!(decode(generator(file, 1).next_id(51).unwrap()), (51, 1, 0));
}

/// flake-idgen's bits with a 1000 ms time unit: a coarse layout, the longest first-mapping wait,
/// on which a restored state file repeated every id.
pub(super) const SECONDS: Shape = Shape {
  unit_ms: 1000,
  ..Shape::FLAKE_IDGEN
};

/// A generator of `id` issuing from `file` of `shape`, on the system clock's shared state.
pub(super) fn on(file: &'static HostFile, shape: Shape, id: u16) -> Generator<'static> {
  let settings = Settings {
    node: id,
    epoch: 0,
    seq_mask: (1 << shape.sequence_bits) - 1,
    allowed_future_ms: 0,
    shape,
  };
  let shared = SharedState {
    sequencer: file.sequencer(id),
    file: Some(file),
    floor: Some(file.floor(id)),
  };
  Generator::shared(&settings, shared)
}

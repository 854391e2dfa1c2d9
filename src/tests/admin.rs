//! `flake-idgen state`'s core: every state file of a directory listed (each layout shape's,
//! UUIDv7's, Flake128's), a node id's word, a start or a whole file reset, refused while mapped.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::host::{generator, mapped, planted};
use super::{temp_dir, FakeTime, NOW};
use crate::host::admin::{self, Outcome, Target};
use crate::host::format::{word_offset, Format, FILE_NAME, START_OFFSET};
use crate::host::HostFile;
use crate::kinds::layout::{Order, Preset, Shape};
use crate::kinds::{flake128, uuid};

/// A custom layout of 10 ms units, sequence before node: a name with every part of a key.
const CUSTOM: Shape = Shape {
  time_bits: 40,
  unit_ms: 10,
  node_bits: 13,
  sequence_bits: 10,
  order: Order::SequenceNode,
};

/// A fresh file of `shape` with its start and `words` (node id, time in the shape's units,
/// sequence) written in.
fn file_of(shape: Shape, start: u64, words: &[(u16, u64, u16)]) -> Vec<u8> {
  let mut bytes = Vec::new();
  Format { shape }.write_fresh(&mut bytes).unwrap();
  bytes[START_OFFSET..START_OFFSET + 8].copy_from_slice(&start.to_ne_bytes());
  let shift = shape.word().time_shift();
  for &(id, time, sequence) in words {
    let at = word_offset(id);
    let word = time << shift | u64::from(sequence);
    bytes[at..at + 8].copy_from_slice(&word.to_ne_bytes());
  }
  bytes
}

fn name(shape: Shape) -> String {
  Format { shape }.file_name()
}

/// (id, time, sequence) of each entry of the file named `file` in `dir`.
fn entries(dir: &Path, file: &str) -> Vec<(u16, u64, u16)> {
  let listed = admin::list(dir).unwrap();
  let found = listed.into_iter().find(|f| f.path == dir.join(file));
  let contents = found.expect(file).contents.unwrap();
  contents
    .entries
    .iter()
    .map(|e| (e.id, e.time, e.sequence))
    .collect()
}

fn start_of(dir: &Path, file: &str) -> u64 {
  let listed = admin::list(dir).unwrap();
  let found = listed.into_iter().find(|f| f.path == dir.join(file));
  found.expect(file).contents.unwrap().start
}

#[test]
fn every_shapes_file_is_named_so_that_its_name_reads_back() {
  let shapes = Preset::ALL.map(Preset::shape);
  for shape in shapes
    .into_iter()
    .chain([uuid::SHAPE, flake128::SHAPE, CUSTOM])
  {
    assert_eq!(
      admin::shape_of(&name(shape)),
      Some(shape),
      "{}",
      name(shape)
    );
  }
  assert_eq!(name(uuid::SHAPE), "layout-48_0_15.state");
  assert_eq!(name(CUSTOM), "layout-40x10ms_seq10_node13.state");
  // Names no version writes: flake-idgen's shape under a layout name, a number written
  // otherwise, a shape no layout has, temporary files, other kinds of files.
  for stray in [
    "layout-42_10_12.state",
    "layout-048_0_15.state",
    "layout-+48_0_15.state",
    "layout-48_0_15_1.state",
    "layout-48_0_0.state",
    "layout-40x10_seq10_node13.state",
    ".layout-48_0_15.state.1-0.tmp",
    "epoch-1000.state",
    "layout-48_0_15.state~",
  ] {
    assert_eq!(admin::shape_of(stray), None, "{stray}");
  }
  assert_eq!(admin::kinds(Shape::FLAKE_IDGEN), ["flake-idgen", "discord"]);
  assert_eq!(admin::kinds(uuid::SHAPE), ["uuidv7"]);
  assert_eq!(admin::kinds(flake128::SHAPE), ["Flake128"]);
  assert!(admin::kinds(CUSTOM).is_empty());
}

#[test]
fn every_state_file_is_listed_with_its_start_and_words_in_ms() {
  let (ahead, old) = (NOW + 3_600_000, NOW - 5000);
  let uuid_file = name(uuid::SHAPE);
  let custom_file = name(CUSTOM);
  let dir = planted(
    "list-all",
    &[
      (
        &custom_file,
        &file_of(CUSTOM, old, &[(8191, NOW / 10, 1023)]),
      ),
      (&uuid_file, &file_of(uuid::SHAPE, ahead, &[(0, ahead, 7)])),
      (FILE_NAME, &file_of(Shape::FLAKE_IDGEN, 0, &[(3, NOW, 9)])),
      ("layout-048_0_15.state", b"not ours"),
    ],
  );
  let listed = admin::list(&dir).unwrap();
  let names: Vec<_> = listed.iter().map(|f| f.path.clone()).collect();
  assert_eq!(
    names,
    [FILE_NAME, &custom_file, &uuid_file].map(|n| dir.join(n))
  );
  let shapes: Vec<_> = listed.iter().map(|f| f.shape).collect();
  assert_eq!(shapes, [Shape::FLAKE_IDGEN, CUSTOM, uuid::SHAPE]);
  assert_eq!(entries(&dir, FILE_NAME), [(3, NOW, 9)]);
  // A 10 ms unit's time is its first ms.
  assert_eq!(entries(&dir, &custom_file), [(8191, NOW / 10 * 10, 1023)]);
  assert_eq!(entries(&dir, &uuid_file), [(0, ahead, 7)]);
  let starts: Vec<_> = listed
    .iter()
    .map(|f| f.contents.as_ref().unwrap().start)
    .collect();
  assert_eq!(starts, [0, old, ahead]);
}

#[test]
fn files_mapped_by_generators_of_every_kind_are_listed_and_refuse_every_reset() {
  let dir = temp_dir("admin");
  assert!(admin::list(&dir).unwrap().is_empty(), "no directory yet");
  let file = mapped(&dir);
  generator(file, 3).take(NOW, 5).unwrap();
  for shape in [uuid::SHAPE, flake128::SHAPE, CUSTOM] {
    HostFile::open(&dir, shape, &mut FakeTime::before_now(), false).unwrap();
  }
  let listed = admin::list(&dir).unwrap();
  assert_eq!(listed.len(), 4);
  assert_eq!(entries(&dir, FILE_NAME), [(3, NOW, 4)]);
  // The first mapping set each start (a horizon past its clock, a second before NOW).
  for file in &listed {
    let start = file.contents.as_ref().unwrap().start;
    assert!(start > NOW - 1000 && start < NOW, "{start}");
  }
  for file in &listed {
    let name = file.path.file_name().unwrap().to_str().unwrap();
    for target in [Target::Id(0), Target::Start, Target::All] {
      let err = admin::reset(&dir, name, target).unwrap_err();
      assert_eq!(err.code(), "ERR_FLAKE_STATE_IN_USE", "{name} {target:?}");
    }
  }
  assert_eq!(entries(&dir, FILE_NAME), [(3, NOW, 4)]);
  assert_eq!(admin::list(&dir).unwrap().len(), 4);
}

#[test]
fn a_reset_clears_one_word_or_removes_a_file_left_empty() {
  let words = file_of(Shape::FLAKE_IDGEN, 0, &[(1, 5, 0), (2, 6, 0)]);
  let dir = planted("reset", &[(FILE_NAME, &words)]);
  let path = dir.join(FILE_NAME);
  let reset = |target| admin::reset(&dir, FILE_NAME, target).unwrap();
  assert_eq!(reset(Target::Id(1)).outcome, Outcome::Reset);
  assert_eq!(entries(&dir, FILE_NAME), [(2, 6, 0)]);
  assert_eq!(reset(Target::Id(1)).outcome, Outcome::Nothing);
  // A start that is not ahead of the clock holds nothing back: nothing to reset.
  assert_eq!(reset(Target::Start).outcome, Outcome::Nothing);
  let done = reset(Target::Id(2));
  assert_eq!((&done.path, done.outcome), (&path, Outcome::Removed));
  assert!(!path.exists());
  assert!(admin::list(&dir).unwrap().is_empty());
  assert_eq!(reset(Target::Id(2)).outcome, Outcome::Nothing);
  assert_eq!(reset(Target::All).outcome, Outcome::Nothing);
}

#[test]
fn a_start_ahead_of_the_clock_is_kept_by_an_id_reset_and_forgotten_by_its_own() {
  // Ahead of the system clock, which a reset compares the start with.
  let ahead = crate::clock::system_now_ms() + 3_600_000;
  let uuid_file = name(uuid::SHAPE);
  let dir = planted(
    "reset-start",
    &[(&uuid_file, &file_of(uuid::SHAPE, ahead, &[(0, ahead, 7)]))],
  );
  let reset = |target| admin::reset(&dir, &uuid_file, target).unwrap().outcome;
  // The word goes; the start stays, holding back what a lost file before it may have issued.
  assert_eq!(reset(Target::Id(0)), Outcome::Reset);
  assert!(entries(&dir, &uuid_file).is_empty());
  assert_eq!(start_of(&dir, &uuid_file), ahead);
  // The start goes too, and the file holds nothing more.
  assert_eq!(reset(Target::Start), Outcome::Removed);
  assert!(!dir.join(&uuid_file).exists());

  // With words left, the start alone is reset; the words stay as they were.
  let custom_file = name(CUSTOM);
  let planted_words = file_of(CUSTOM, ahead, &[(9, ahead / 10, 3)]);
  fs::write(dir.join(&custom_file), planted_words).unwrap();
  fs::set_permissions(dir.join(&custom_file), fs::Permissions::from_mode(0o600)).unwrap();
  assert_eq!(
    admin::reset(&dir, &custom_file, Target::Start)
      .unwrap()
      .outcome,
    Outcome::Reset
  );
  assert_eq!(start_of(&dir, &custom_file), 0);
  assert_eq!(entries(&dir, &custom_file), [(9, ahead / 10 * 10, 3)]);
  assert_eq!(
    admin::reset(&dir, &custom_file, Target::All)
      .unwrap()
      .outcome,
    Outcome::Removed
  );
  assert!(admin::list(&dir).unwrap().is_empty());
}

#[test]
fn a_reset_names_a_file_of_ours_and_a_node_id_of_its_shape() {
  let dir = temp_dir("reset-args");
  let uuid_file = name(uuid::SHAPE);
  let err = admin::reset(&dir, &uuid_file, Target::Id(1)).unwrap_err();
  assert_eq!(err.code(), "ERR_OUT_OF_RANGE");
  assert_eq!(
    err.to_string(),
    "The \"what\" argument must be a node id from 0 to 0, 'start' or 'all', got 1"
  );
  for stray in ["../epoch-0.state", "layout-42_10_12.state", ""] {
    let err = admin::reset(&dir, stray, Target::All).unwrap_err();
    assert_eq!(err.code(), "ERR_INVALID_ARG_VALUE", "{stray}");
    assert!(
      err.to_string().starts_with("The \"file\" argument"),
      "{err}"
    );
  }
  assert!(!dir.exists(), "nothing created");
}

#[test]
fn a_reset_leaves_a_damaged_file_to_the_listing() {
  let dir = planted("reset-damaged", &[(FILE_NAME, &[0; 10])]);
  for target in [Target::Id(1), Target::Start, Target::All] {
    let done = admin::reset(&dir, FILE_NAME, target).unwrap();
    assert_eq!(done.outcome, Outcome::Nothing);
  }
  assert_eq!(fs::read(dir.join(FILE_NAME)).unwrap(), [0; 10]);
  let listed = admin::list(&dir).unwrap();
  let err = listed[0].contents.as_ref().unwrap_err();
  assert_eq!(err.code(), "ERR_FLAKE_STATE_FILE");
  assert!(err.to_string().contains("it is 10 bytes"), "{err}");
}

#[test]
fn files_named_like_other_epochs_are_never_listed_nor_touched() {
  // No build that shipped wrote them: whatever they hold is not this package's state.
  let word = file_of(Shape::FLAKE_IDGEN, 0, &[(1, 9, 0)]);
  let strays: [(&str, &[u8]); 3] = [
    ("epoch-1000.state", &word),
    ("epoch-00.state", &word),
    ("epoch-1.state", b"not a state file"),
  ];
  let dir = planted("strays", &strays);
  assert!(admin::list(&dir).unwrap().is_empty());
  let reset = |target| admin::reset(&dir, FILE_NAME, target).unwrap().outcome;
  assert_eq!(reset(Target::Id(1)), Outcome::Nothing);
  fs::write(
    dir.join(FILE_NAME),
    file_of(Shape::FLAKE_IDGEN, 0, &[(1, 7, 0)]),
  )
  .unwrap();
  fs::set_permissions(dir.join(FILE_NAME), fs::Permissions::from_mode(0o600)).unwrap();
  assert_eq!(entries(&dir, FILE_NAME), [(1, 7, 0)]);
  assert_eq!(reset(Target::Id(1)), Outcome::Removed);
  // A generator's file is created anew beside them.
  assert_eq!(
    super::decode(generator(mapped(&dir), 1).next_id(NOW).unwrap()),
    (NOW, 1, 0)
  );
  for (name, bytes) in strays {
    assert_eq!(fs::read(dir.join(name)).unwrap(), bytes, "{name} changed");
  }
}

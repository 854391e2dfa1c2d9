//! When a state directory cannot be used: the default directory's next candidates, then the
//! process's state, each with its warning; the same place for every generator of the process.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use super::{config, temp_dir, TempDir};
use crate::error::FlakeError;
use crate::host::dir;
use crate::input::Input;
use crate::kinds::layout::Shape;
use crate::options::{Config, RawOptions, Scope};
use crate::registry::shared_state;
use crate::registry::{self, Warning};

/// A directory others can write: refused.
fn unusable(name: &str) -> TempDir {
  let dir = temp_dir(name);
  fs::create_dir(&*dir).unwrap();
  fs::set_permissions(&*dir, fs::Permissions::from_mode(0o777)).unwrap();
  dir
}

fn host(id: u16, dirs: &[&TempDir], required: bool) -> Config {
  let mut config = config(RawOptions {
    id: Input::Number(f64::from(id)),
    ..RawOptions::default()
  });
  let mut dirs: Vec<PathBuf> = dirs.iter().map(|dir| dir.to_path_buf()).collect();
  config.scope = Scope::Host {
    dir: dirs.remove(0),
    alternatives: dirs,
    required,
  };
  config
}

#[test]
fn an_unusable_directory_moves_every_generator_to_the_next_usable_one() {
  let (first, second, third) = (unusable("first"), unusable("second"), temp_dir("third"));
  for required in [false, true] {
    for id in [3, 4, 3] {
      let (state, on_host) = shared_state(&host(id, &[&first, &second, &third], required)).unwrap();
      assert!(on_host);
      assert!(std::ptr::eq(
        state.sequencer,
        registry::host(&third, Shape::FLAKE_IDGEN, id)
          .unwrap()
          .sequencer
      ));
    }
  }
  assert!(third.join("epoch-0.state").exists());
}

#[test]
fn with_none_usable_the_process_state_or_the_first_error() {
  let (first, second) = (unusable("none-first"), unusable("none-second"));
  let (state, on_host) = shared_state(&host(5, &[&first, &second], false)).unwrap();
  assert!(!on_host);
  assert!(std::ptr::eq(
    state.sequencer,
    registry::process(Shape::FLAKE_IDGEN, 5).sequencer
  ));
  let err = shared_state(&host(5, &[&first, &second], true)).unwrap_err();
  assert_eq!(
    err,
    registry::host(&first, Shape::FLAKE_IDGEN, 5).unwrap_err()
  );
}

#[test]
fn each_warning_names_every_directory_tried_and_why() {
  let reason = |dir: &str| FlakeError::StateDir {
    dir: dir.into(),
    reason: "writable by group or others (mode 777); chmod go-w it".into(),
  };
  let process = Warning::ProcessScope {
    reasons: vec![reason("/tmp/a"), reason("/var/tmp/a")],
  };
  assert_eq!(
    process.to_string(),
    "host scope unavailable, ids are unique per process only: state directory \"/tmp/a\" \
     cannot be used: writable by group or others (mode 777); chmod go-w it; state directory \
     \"/var/tmp/a\" cannot be used: writable by group or others (mode 777); chmod go-w it"
  );
  let moved = Warning::OtherDirectory {
    dir: "/var/tmp/a".into(),
    reasons: vec![reason("/tmp/a")],
  };
  assert_eq!(
    moved.to_string(),
    "host scope moved to state directory \"/var/tmp/a\", ids may repeat with processes that \
     can use the one before it: state directory \"/tmp/a\" cannot be used: writable by group \
     or others (mode 777); chmod go-w it"
  );
}

#[test]
fn the_default_directories_do_not_depend_on_the_environment() {
  // Whatever XDG_RUNTIME_DIR and TMPDIR say (a test must not change the process's environment:
  // the candidates are computed from constants and the effective uid alone).
  let uid = crate::os::euid();
  let expected: Vec<PathBuf> = if cfg!(target_os = "linux") {
    vec!["/tmp", "/var/tmp", "/dev/shm"]
  } else if cfg!(target_os = "macos") {
    return;
  } else {
    vec!["/tmp", "/var/tmp"]
  }
  .into_iter()
  .map(|root| PathBuf::from(format!("{root}/flake-idgen-{uid}")))
  .collect();
  assert_eq!(dir::candidates(), expected);
}

//! A state directory or file the OS is short of something for (descriptors, memory, disk
//! space) is unavailable for now: a coded error, thrown whether host scope was asked for or
//! not, never fallen back from (another directory, process scope) and never kept: the next
//! generator tries again.

use std::io;
use std::path::Path;
use std::process::Command;

use super::{config, temp_dir};
use crate::error::FlakeError;
use crate::host::file;
use crate::input::Input;
use crate::options::{RawOptions, Scope};
use crate::os;
use crate::registry::shared_state;

#[test]
fn shortages_are_transient_and_everything_else_lasts() {
  for (errno, name) in [
    (libc::EMFILE, "EMFILE"),
    (libc::ENFILE, "ENFILE"),
    (libc::ENOMEM, "ENOMEM"),
    (libc::EAGAIN, "EAGAIN"),
    (libc::EINTR, "EINTR"),
    (libc::ENOSPC, "ENOSPC"),
    (libc::EDQUOT, "EDQUOT"),
  ] {
    let err = io::Error::from_raw_os_error(errno);
    assert_eq!(os::transient(&err), Some(name));
    let path = Path::new("/tmp/flake-idgen-x/epoch-0.state");
    let unavailable = file::io_error(path, "cannot map it: ", &err);
    assert_eq!(unavailable.code(), "ERR_FLAKE_STATE_UNAVAILABLE");
    let message = unavailable.to_string();
    assert!(
      message.contains(name) && message.contains("epoch-0.state") && message.contains("transient"),
      "{message}"
    );
    let dir_error = os::io_error(Path::new("/tmp/flake-idgen-x"), "", &err);
    assert_eq!(dir_error.code(), "ERR_FLAKE_STATE_UNAVAILABLE");
  }
  for errno in [
    libc::EACCES,
    libc::EROFS,
    libc::ENOTDIR,
    libc::ELOOP,
    libc::EPERM,
  ] {
    let err = io::Error::from_raw_os_error(errno);
    assert_eq!(os::transient(&err), None, "{err}");
    let path = Path::new("/tmp/flake-idgen-x");
    assert_eq!(os::io_error(path, "", &err).code(), "ERR_FLAKE_STATE_DIR");
    assert_eq!(
      file::io_error(path, "", &err).code(),
      "ERR_FLAKE_STATE_FILE"
    );
  }
  // Not an OS error at all: lasting.
  assert_eq!(os::transient(&io::Error::other("x")), None);
}

/// Set in the child process `descriptors_run_out_then_come_back` runs itself in.
const CHILD: &str = "FLAKE_IDGEN_TEST_TRANSIENT_CHILD";

/// Descriptors taken until an open fails (under a soft limit of 64), so that the next open of
/// a state directory fails with EMFILE; given back when dropped.
struct Exhausted(Vec<std::fs::File>);

impl Exhausted {
  fn take() -> Self {
    let mut limit = libc::rlimit {
      rlim_cur: 0,
      rlim_max: 0,
    };
    // SAFETY: a valid rlimit to fill, then to set: lowering the soft limit needs no privilege.
    assert_eq!(
      unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
      0
    );
    limit.rlim_cur = limit.rlim_max.min(64);
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) }, 0);
    let mut files = Vec::new();
    while let Ok(file) = std::fs::File::open("/dev/null") {
      files.push(file);
    }
    Self(files)
  }
}

#[test]
fn descriptors_run_out_then_come_back() {
  if std::env::var_os(CHILD).is_some() {
    return;
  }
  // The limit is the process's: lowered in a child of its own, never under the other tests.
  let status = Command::new(std::env::current_exe().unwrap())
    .args([
      "--exact",
      "tests::transient::in_a_child_descriptors_run_out_then_come_back",
      "--ignored",
      "--test-threads=1",
      "--nocapture",
    ])
    .env(CHILD, "1")
    .status()
    .unwrap();
  assert!(status.success(), "the child failed: {status}");
}

#[test]
#[ignore = "run by descriptors_run_out_then_come_back in a child process"]
fn in_a_child_descriptors_run_out_then_come_back() {
  assert!(std::env::var_os(CHILD).is_some(), "run in a child only");
  for required in [false, true] {
    let (first, second) = (temp_dir("emfile-first"), temp_dir("emfile-second"));
    let id = if required { 8 } else { 7 };
    let mut config = config(RawOptions {
      id: Input::Number(f64::from(id)),
      ..RawOptions::default()
    });
    config.scope = Scope::Host {
      dir: first.to_path_buf(),
      alternatives: vec![second.to_path_buf()],
      required,
    };
    let exhausted = Exhausted::take();
    // Neither the next directory nor the process's state: the error, coded.
    for _ in 0..2 {
      let err = shared_state(&config)
        .map(|(_, on_host)| on_host)
        .unwrap_err();
      assert!(
        matches!(
          err,
          FlakeError::StateUnavailable {
            errno: "EMFILE",
            ..
          }
        ),
        "{err}"
      );
    }
    assert!(
      !second.join("epoch-0.state").exists(),
      "fell back to the next directory"
    );
    drop(exhausted);
    // Nothing kept: the directory is mapped now.
    let (state, on_host) = shared_state(&config).expect("tried again");
    assert!(on_host && state.file.is_some());
    assert!(first.join("epoch-0.state").exists());
  }
}

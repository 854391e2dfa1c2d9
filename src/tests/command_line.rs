//! The command line as `/proc/self/cmdline` says it, read where `args_os()` is empty (musl).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use crate::os::command_line;

fn args(list: &[&[u8]]) -> Vec<OsString> {
  list
    .iter()
    .map(|arg| OsString::from_vec(arg.to_vec()))
    .collect()
}

#[test]
fn each_argument_ends_in_a_nul_and_keeps_its_bytes() {
  let line = b"node\0/bin/flake-idgen\0state\0--state-dir\0/tmp/state-\xff\0";
  assert_eq!(
    command_line(line),
    args(&[
      b"node",
      b"/bin/flake-idgen",
      b"state",
      b"--state-dir",
      b"/tmp/state-\xff"
    ])
  );
}

#[test]
fn an_empty_argument_is_kept() {
  assert_eq!(command_line(b"node\0\0x\0"), args(&[b"node", b"", b"x"]));
  assert_eq!(command_line(b"\0"), args(&[b""]));
}

#[test]
fn no_line_no_arguments() {
  assert!(command_line(b"").is_empty());
}

#[test]
fn this_process_reads_as_args_os_does() {
  let line = std::fs::read("/proc/self/cmdline").unwrap();
  assert_eq!(command_line(&line), std::env::args_os().collect::<Vec<_>>());
}

//! What the crate needs of the operating system, one side per system, chosen once here (as
//! memmap2 does). For host scope: opening the state directory and its file, creating the file
//! under a temporary name and linking it into place, telling a file from another put at its
//! path, reading and writing at an offset, turning the first mapping's exclusive lock into a
//! shared one, which directories and files are the user's own, where a state directory goes by
//! default, and the paths and arguments the `state` command is given; for `random`, a handler
//! for forks; for `clock`, the system clock; for `idFrom`, the host's name. Every side (unix,
//! windows, wasm) has the same names and types, so `dir`, `file`, `admin`, `random`, `clock`,
//! `options::id_from` and `js::state` read the same on every system.
//! Outside `os/`, only two things are gated on a target (`tests::layers` lists each file): the
//! SIGBUS guard, Linux's alone (`host/mod.rs`, `host/file.rs`, `sequencer.rs`'s `spent`), and the
//! WebAssembly build's plain exports and the scratch they use (`js/mod.rs`,
//! `js/seam/protocol.rs`, `js/generator/setup.rs`, `js/seam/thread.rs`). WebAssembly (WASI) has
//! no host scope: its side refuses every state directory.

#[cfg_attr(unix, path = "unix.rs")]
#[cfg_attr(windows, path = "windows.rs")]
#[cfg_attr(target_family = "wasm", path = "wasm.rs")]
mod imp;

#[cfg(unix)]
mod at;
mod refusal;

#[cfg(all(test, target_os = "linux"))]
pub use imp::command_line;
#[cfg(all(unix, target_pointer_width = "64"))]
pub use imp::now_ms;
pub use imp::{
  arguments, changed_at, check, downgrade, hostname, identity, identity_at, identity_words,
  not_ours, on_fork, open, path_from_bytes, read_at, refused_symlink, shared_temp_dirs, transient,
  user_temp_dir, write_at, Dir, Identity,
};
#[cfg(all(test, unix))]
pub use imp::{euid, io_error, open_dir};

/// Milliseconds since 1970 by the system clock, as `Date.now()` reads it; 0 before 1970. By
/// `clock_gettime` on a 64-bit Unix (see `unix.rs`), by std elsewhere.
#[cfg(not(all(unix, target_pointer_width = "64")))]
pub fn now_ms() -> u64 {
  std::time::SystemTime::now()
    .duration_since(std::time::UNIX_EPOCH)
    .map_or(0, |since| {
      since.as_secs() * 1000 + u64::from(since.subsec_millis())
    })
}

//! What the state file needs of the operating system, one side per system, chosen once here (as
//! memmap2 does): opening the state directory and its file, creating the file under a temporary
//! name and linking it into place, telling a file from another put at its path, reading and
//! writing at an offset, and turning the first mapping's exclusive lock into a shared one. Both
//! sides have the same names and types, so `file` and `admin` read the same on every system.

#[cfg_attr(unix, path = "unix.rs")]
#[cfg_attr(windows, path = "windows.rs")]
mod imp;

pub use imp::{
  changed_at, downgrade, identity, identity_at, open, read_at, refused_symlink, transient,
  write_at, Dir, Identity,
};

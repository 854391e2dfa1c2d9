//! Host scope: generator state shared by every process of a host (of a user) through a
//! memory-mapped file per state directory, each generator id's state word compared-and-swapped
//! in place exactly as threads of one process do.

pub mod admin;
pub mod dir;
pub mod file;
pub mod format;
#[cfg(any(target_os = "linux", target_os = "android"))]
mod sigbus;

pub use file::HostFile;

//! Everything that touches N-API: reading JS values, throwing errors, the exported functions and
//! the raw functions on the per-id path.

mod batches;
mod decompose;
mod error;
mod exports;
mod id_functions;
mod input;
mod messages;
pub(crate) mod protocol;
pub(crate) mod slots;
mod state;
mod thread;

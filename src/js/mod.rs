//! The N-API layer, the only part of the crate that knows N-API: reading JS values and throwing
//! errors, the protocol with `lib/native.js` (`protocol`) and the per-thread tables it names
//! generators by (`slots`, `thread`), the raw functions on the per-id path (`id_functions`) and
//! the exported ones.

mod batches;
mod calls;
mod decompose;
mod error;
mod id_functions;
mod input;
pub(crate) mod instance_tally;
mod kinds;
pub(crate) mod layout;
mod messages;
mod private_state;
pub(crate) mod protocol;
mod setup;
pub(crate) mod slots;
pub(crate) mod state;
mod thread;
#[cfg(target_family = "wasm")]
mod wasm_exports;
mod wide_functions;

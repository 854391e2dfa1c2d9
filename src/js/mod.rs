//! The N-API layer, the only part of the crate that knows N-API: reading JS values and throwing
//! errors (`values`), the protocol with `lib/binding/native.js` and the per-thread tables it
//! names generators by, with the raw functions on the per-id path (`seam`), a generator's setup
//! and its calls off that path (`generator`), ids and layouts read back (`read_back`), the
//! command's state files (`state`) and the WebAssembly build's plain exports (`wasm_exports`).

mod generator;
mod read_back;
pub(crate) mod seam;
pub(crate) mod state;
mod values;
#[cfg(target_family = "wasm")]
mod wasm_exports;

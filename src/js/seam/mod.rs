//! The per-id seam, what `next()` and its 128-bit kin call: the protocol with
//! `lib/binding/native.js` (`protocol`), the per-thread tables it names generators by (`thread`,
//! `slots`, with each slot's `instance_tally`), what the raw functions share (`calls`), and the
//! raw functions themselves, for 64-bit ids (`id_functions`) and 128-bit ones
//! (`wide_functions`).

pub(crate) mod calls;
pub(crate) mod id_functions;
pub(crate) mod instance_tally;
pub(crate) mod protocol;
pub(crate) mod slots;
pub(crate) mod thread;
pub(crate) mod wide_functions;

//! A generator's calls off the per-id path, through the same scratch fields: the thread's
//! setup and each configuration (`setup`), many ids into a Buffer of JS's (`batches`), and the
//! state a lease drives (`private_state`).

mod batches;
mod private_state;
pub(crate) mod setup;

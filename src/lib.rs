//! flake-idgen-rs: 64-bit k-ordered unique ids for Node.js, a drop-in for flake-idgen 1.4.0.
//!
//! The core (`layout`, `sequencer`, `generator`, `options`) is plain Rust that takes its clock
//! as a parameter; `js` is the only part that knows about N-API.
#![deny(clippy::all)]
// napi-derive registers the exports only outside `cfg(test)`, so in the test build the whole
// N-API layer looks unused; the library build still reports real dead code.
#![cfg_attr(test, allow(dead_code))]

mod batch;
mod clock;
mod decompose;
mod error;
mod generator;
mod host;
mod input;
mod js;
mod layout;
mod options;
mod registry;
mod sequencer;
mod slots;
mod stats;

#[cfg(test)]
mod tests;

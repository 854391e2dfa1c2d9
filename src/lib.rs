//! flake-idgen-rs: 64-bit k-ordered unique ids for Node.js, a drop-in for flake-idgen 1.4.0.
//!
//! Two layers. The core, every module but `js`, is plain Rust that takes its clock as a
//! parameter: the kinds of id and their bits (`kinds`: 64-bit layouts and their read-back,
//! UUIDv7, Boundary's flake), the state behind ids (`sequencer`, `registry`, `host`),
//! generators and batches (`generator`, `sync_take`, `batch`, `stats`), clock readings
//! (`clock`), random bits (`random`), options and the values they come as (`options`, `input`,
//! `number`), the OS (`os`), errors (`error`). `js` is the N-API layer on top of it, the only one that knows N-API: the
//! exported functions, the protocol with `lib/binding/native.js` and the per-thread tables it serves.
//! The core never uses `js` (`tests::layers` checks), so it can be tested without Node.
#![deny(clippy::all)]
// The export macros register the exports only outside `cfg(test)`, so in the test build the
// whole N-API layer looks unused; the library build still reports real dead code.
#![cfg_attr(test, allow(dead_code))]

mod batch;
mod clock;
mod error;
mod generator;
mod host;
mod input;
mod js;
mod kinds;
mod number;
mod options;
mod os;
mod random;
mod registry;
mod sequencer;
mod stats;
mod sync_take;

#[cfg(test)]
mod tests;

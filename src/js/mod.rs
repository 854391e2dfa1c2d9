//! Everything that touches N-API: reading JS values, throwing errors, the exported functions and
//! the raw functions on the per-id path.

mod error;
mod exports;
mod handle;
mod hot;
mod input;
mod parts;
mod report;
mod scratch;

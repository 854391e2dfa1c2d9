//! The id layout's numbers, for the JS modules that state limits of their own (the lease pool,
//! the command).

use napi_derive::napi;

use crate::layout;

/// Bits of the timestamp.
#[napi]
pub const TIMESTAMP_BITS: u32 = 42;
/// Bits of the generator id (datacenter and worker).
#[napi]
pub const NODE_BITS: u32 = layout::NODE_BITS;
/// Bits of the per-millisecond counter.
#[napi]
pub const SEQUENCE_BITS: u32 = layout::SEQUENCE_BITS;
/// The largest generator id.
#[napi]
pub const MAX_NODE: u32 = layout::MAX_NODE as u32;
/// The largest datacenter or worker id.
#[napi]
pub const MAX_PART: u32 = layout::MAX_PART as u32;

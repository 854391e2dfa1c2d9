//! The id's layout, for JS: the lease code records it and bounds generator ids by it, with these
//! numbers rather than copies of them. Each is `crate::layout`'s, which stays free of N-API.

use napi_derive::napi;

use crate::layout;

/// Bits of an id's timestamp, in ms since the epoch: the high ones.
#[napi]
pub const TIMESTAMP_BITS: u32 = layout::TIMESTAMP_BITS;
/// Bits of an id's generator id (datacenter and worker), below the timestamp.
#[napi]
pub const NODE_BITS: u32 = layout::NODE_BITS;
/// Bits of an id's per-millisecond sequence number: the low ones.
#[napi]
pub const SEQUENCE_BITS: u32 = layout::SEQUENCE_BITS;
/// The largest generator id.
#[napi]
pub const MAX_NODE: u32 = layout::MAX_NODE as u32;
/// The largest datacenter or worker id.
#[napi]
pub const MAX_PART: u32 = layout::MAX_PART as u32;

//! The 64-bit id: 42-bit timestamp (ms since the epoch) | 10-bit generator id | 12-bit sequence.
//! The generator id is itself 5-bit datacenter | 5-bit worker.

/// Bits of the timestamp (ms since the epoch).
pub const TIMESTAMP_BITS: u32 = 42;
/// Bits of the generator id (datacenter and worker).
pub const NODE_BITS: u32 = 10;
/// Bits of the datacenter id, and of the worker id: half the generator id each.
pub const PART_BITS: u32 = NODE_BITS / 2;
/// Bits of the per-millisecond counter.
pub const SEQUENCE_BITS: u32 = 12;
/// Where the timestamp starts.
pub const TIMESTAMP_SHIFT: u32 = NODE_BITS + SEQUENCE_BITS;

const _: () = assert!(TIMESTAMP_BITS + NODE_BITS + SEQUENCE_BITS == u64::BITS);

/// The largest timestamp (ms after the epoch) the timestamp bits hold.
pub const MAX_DELTA: u64 = (1 << TIMESTAMP_BITS) - 1;
/// The largest generator id.
pub const MAX_NODE: u16 = (1 << NODE_BITS) - 1;
/// The largest datacenter or worker id.
pub const MAX_PART: u8 = (1 << PART_BITS) - 1;
/// The largest counter value.
pub const MAX_SEQUENCE: u16 = (1 << SEQUENCE_BITS) - 1;

/// The id for a timestamp, a generator id and a counter value, each already in range.
pub const fn compose(delta: u64, node: u16, sequence: u16) -> u64 {
  (delta << TIMESTAMP_SHIFT) | ((node as u64) << SEQUENCE_BITS) | sequence as u64
}

/// The generator id made of a datacenter and a worker id.
pub const fn node_id(datacenter: u8, worker: u8) -> u16 {
  (datacenter as u16) << PART_BITS | worker as u16
}

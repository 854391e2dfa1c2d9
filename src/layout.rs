//! The 64-bit id: 42-bit timestamp (ms since the epoch) | 10-bit generator id | 12-bit sequence.
//! The generator id is itself 5-bit datacenter | 5-bit worker.

pub const NODE_BITS: u32 = 10;
pub const SEQUENCE_BITS: u32 = 12;
pub const TIMESTAMP_SHIFT: u32 = NODE_BITS + SEQUENCE_BITS;

pub const MAX_DELTA: u64 = (1 << 42) - 1;
pub const MAX_NODE: u16 = (1 << NODE_BITS) - 1;
pub const MAX_PART: u8 = 31;
pub const MAX_SEQUENCE: u16 = (1 << SEQUENCE_BITS) - 1;

pub const fn compose(delta: u64, node: u16, sequence: u16) -> u64 {
  (delta << TIMESTAMP_SHIFT) | ((node as u64) << SEQUENCE_BITS) | sequence as u64
}

pub const fn node_id(datacenter: u8, worker: u8) -> u16 {
  (datacenter as u16) << 5 | worker as u16
}

//! The state machine behind every id: the last (timestamp, sequence) pair issued, as one atomic
//! word, so generators in several threads can share it without a lock.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::layout::SEQUENCE_BITS;

/// Why the sequencer refused to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
  /// Every sequence number of this millisecond is used.
  Overflow,
  /// The timestamp is `ms` behind the last one issued.
  Backwards { ms: u64 },
}

/// Before the first id; no packed pair can reach it (timestamps have 42 bits).
const NOTHING_ISSUED: u64 = u64::MAX;

#[derive(Debug)]
pub struct Sequencer {
  /// `delta << SEQUENCE_BITS | sequence` of the last id issued. Packed this way the word only
  /// ever grows, which is what makes every id issued from it unique and increasing.
  last: AtomicU64,
}

impl Sequencer {
  /// A state from which nothing has been issued yet.
  pub const fn new() -> Self {
    Self {
      last: AtomicU64::new(NOTHING_ISSUED),
    }
  }

  /// Issues the next `(delta, sequence)` for a clock reading `delta` ms after the epoch:
  /// sequence 0 in a new millisecond, the next one in the same millisecond.
  pub fn next(&self, delta: u64, seq_mask: u16) -> Result<(u64, u16), Refusal> {
    let mut last = self.last.load(Ordering::Acquire);
    loop {
      let (issued, next) = if last == NOTHING_ISSUED || delta > last >> SEQUENCE_BITS {
        ((delta, 0), delta << SEQUENCE_BITS)
      } else if delta == last >> SEQUENCE_BITS {
        // Masked per call: generators that share this state may have different `seqMask`s.
        let sequence = (last & u64::from(crate::layout::MAX_SEQUENCE)) as u16;
        if sequence >= seq_mask {
          return Err(Refusal::Overflow);
        }
        ((delta, sequence + 1), last + 1)
      } else {
        return Err(Refusal::Backwards {
          ms: (last >> SEQUENCE_BITS) - delta,
        });
      };
      match self
        .last
        .compare_exchange_weak(last, next, Ordering::AcqRel, Ordering::Acquire)
      {
        Ok(_) => return Ok(issued),
        Err(current) => last = current,
      }
    }
  }
}

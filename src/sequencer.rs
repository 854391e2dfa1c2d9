//! The state machine behind every id: the last (timestamp, sequence) pair issued, as one atomic
//! word, so generators in several threads can share it without a lock.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::kinds::layout::Word;

/// Before the first id; also what a fresh state file holds in every word.
pub const NOTHING_ISSUED: u64 = u64::MAX;

/// Consecutive ids taken in one step: sequences `first ..= first + count - 1` of `delta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
  pub delta: u64,
  pub first: u16,
  pub count: u32,
  /// Set when the ids lie ahead of the clock (borrowed), and why.
  pub met: Option<Met>,
}

/// What a call ran into: the reason it was refused, or borrowed time ahead of the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Met {
  /// Every sequence number of the clock's millisecond is used.
  Overflow,
  /// The clock reads earlier than it already did.
  ClockBehind,
  /// Every sequence number of the clock's unit was used by other generators sharing the state:
  /// a synchronous call waited for the next unit (see `sync_take`).
  Waited,
}

/// Why the sequencer refused to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
  /// Every sequence number of this millisecond (and of the allowed ones ahead) is used.
  Overflow { wait: u64 },
  /// The clock reads `ms` before the last timestamp issued.
  Backwards { ms: u64, wait: u64 },
  /// The next free timestamp is past the limit the caller set (42 bits, or a lease's ceiling).
  PastLimit { delta: u64 },
  /// The word is below an id this process took from it: it went back (see `Floor`).
  Reverted,
}

/// The last id this process took from a shared word it does not own (a mapped state file's),
/// in an order words keep: the word with its lead field cleared (time, then sequence), plus
/// one, so that 0 means none yet. Written with a plain store, so two threads may leave the
/// lower of their two values: it stays a value the word held, so never above the word.
#[derive(Debug, Default)]
#[repr(align(64))]
pub struct Floor(AtomicU64);

impl Floor {
  #[inline(always)]
  fn get(&self) -> u64 {
    self.0.load(Ordering::Acquire)
  }

  /// `state` in the floor's order, plus one.
  #[inline(always)]
  fn rank(word: Word, state: u64) -> u64 {
    (state & !(word.lead_mask() << word.sequence_bits)).saturating_add(1)
  }

  /// Whether `floor` (not 0) records an id above the one `last` records, or `last` none.
  #[inline(always)]
  fn above(word: Word, last: u64, floor: u64) -> bool {
    last == NOTHING_ISSUED || Self::rank(word, last) < floor
  }

  /// Whether `state`'s word is below the last id this floor records: it went back. The floor
  /// is read first, as in `take_above`; out of the per-id path (a mapping's renewal).
  pub fn reverted(&self, word: Word, state: &Sequencer) -> bool {
    let floor = self.get();
    floor != 0 && Self::above(word, state.word(), floor)
  }

  #[inline(always)]
  fn raise(&self, word: Word, next: u64, seen: u64) {
    let rank = Self::rank(word, next);
    if rank > seen {
      self.0.store(rank, Ordering::Release);
    }
  }
}

/// One atomic word and nothing else (`repr(transparent)`), so that a word in a memory-mapped
/// state file can be used as a `Sequencer` in place, by every process that maps it.
#[derive(Debug)]
#[repr(transparent)]
pub struct Sequencer {
  /// `delta | lead | sequence` of the last id issued, in the format (`Word`) of the shape whose
  /// state it is: the lead says how far the delta runs ahead of the latest clock reading seen
  /// (`allowedFutureMs` borrowing). Its top bits only ever grow, which is what makes every id
  /// issued from it unique and increasing.
  last: AtomicU64,
}

impl Sequencer {
  /// A state from which nothing has been issued yet.
  pub const fn new() -> Self {
    Self {
      last: AtomicU64::new(NOTHING_ISSUED),
    }
  }

  /// The sequencer whose state is `word`.
  pub fn from_word(word: &AtomicU64) -> &Self {
    // SAFETY: `Sequencer` is `repr(transparent)` over `AtomicU64`.
    unsafe { &*(word as *const AtomicU64).cast::<Self>() }
  }

  /// Forgets every id issued: only for tests that reuse one mapped word as a fresh state.
  #[cfg(test)]
  pub fn forget(&self) {
    self.set_word(NOTHING_ISSUED);
  }

  /// A copy of the state word, for a private state worked on elsewhere (see `set_word`).
  pub fn word(&self) -> u64 {
    self.last.load(Ordering::Acquire)
  }

  /// Puts back a private state's word, worked on in a copy; never for a shared state, whose
  /// word only compare-and-swap may change.
  pub fn set_word(&self, word: u64) {
    self.last.store(word, Ordering::Release);
  }

  /// A state holding `word`.
  pub const fn holding(word: u64) -> Self {
    Self {
      last: AtomicU64::new(word),
    }
  }

  /// Takes up to `max` (≥ 1) consecutive ids for a clock reading of `now` (time units, counted
  /// from whatever origin the state's users agree on; `now` ≤ `limit`): from sequence 0 in a
  /// new unit, after the last one in the same. With `allowed` > 0 a full or past unit does not
  /// refuse while the next free one is at most `allowed` units ahead of `now` (`allowed` ≤
  /// `word.max_lead()`). Nothing past `limit` (≤ `word.max_time()`) is ever taken (nor recorded
  /// as taken). Every user of a state passes the same `word`.
  #[inline(always)]
  pub fn take(
    &self,
    word: Word,
    now: u64,
    seq_mask: u16,
    max: u32,
    allowed: u64,
    limit: u64,
  ) -> Result<Taken, Refusal> {
    self.take_above(word, now, seq_mask, max, allowed, limit, None)
  }

  /// `take`, on a state that something outside the process can rewrite (a mapped state file):
  /// `floor` (see `Floor`) holds the last id this process took from it, so a word found below
  /// that has gone back (a copy put over the file in place) and is refused as `Reverted`, never
  /// issued from again.
  #[allow(clippy::too_many_arguments)]
  #[inline(always)]
  pub fn take_above(
    &self,
    word: Word,
    now: u64,
    seq_mask: u16,
    max: u32,
    allowed: u64,
    limit: u64,
    floor: Option<&Floor>,
  ) -> Result<Taken, Refusal> {
    let (lead_shift, delta_shift) = (word.sequence_bits, word.time_shift());
    // Read before the word: every id the floor records was in the word before this load, and
    // a word only grows, so a word below it was rewritten.
    let floor_seen = floor.map_or(0, Floor::get);
    let mut last = self.last.load(Ordering::Acquire);
    loop {
      if floor_seen != 0 && Floor::above(word, last, floor_seen) {
        return Err(Refusal::Reverted);
      }
      let (delta, first, high) = if last == NOTHING_ISSUED || now > last >> delta_shift {
        (now, 0, now)
      } else {
        let last_delta = last >> delta_shift;
        // Saturating: a state file edited by hand may hold a lead no sequencer would write.
        let high = last_delta.saturating_sub((last >> lead_shift) & word.lead_mask());
        // Masked per call: generators that share this state may have different `seqMask`s.
        let sequence = (last & word.sequence_mask()) as u16;
        let (delta, first) = if sequence < seq_mask {
          (last_delta, sequence + 1)
        } else {
          (last_delta + 1, 0)
        };
        if delta > now + allowed || delta > limit {
          return Err(if delta > limit {
            Refusal::PastLimit { delta }
          } else if now < high {
            Refusal::Backwards {
              ms: last_delta - now,
              wait: delta - allowed - now,
            }
          } else {
            Refusal::Overflow {
              wait: delta - allowed - now,
            }
          });
        }
        (delta, first, high)
      };
      // A fresh `seq_mask` bound on each call: see above.
      let count = max.min(u32::from(seq_mask - first) + 1);
      let high_now = high.max(now);
      let next = delta << delta_shift
        | (delta - high_now) << lead_shift
        | (u64::from(first) + u64::from(count) - 1);
      match self
        .last
        .compare_exchange_weak(last, next, Ordering::AcqRel, Ordering::Acquire)
      {
        Ok(_) => {
          if let Some(floor) = floor {
            floor.raise(word, next, floor_seen);
          }
          let met = (delta > now).then_some(if now < high {
            Met::ClockBehind
          } else {
            Met::Overflow
          });
          return Ok(Taken {
            delta,
            first,
            count,
            met,
          });
        }
        Err(current) => last = current,
      }
    }
  }
}

impl Sequencer {
  /// Raises the state to `above` (a `word_above`) unless it records an id at or past it
  /// already: never lowers it, so whoever else takes from the state only takes later ids.
  pub fn raise(&self, word: Word, above: u64) {
    let mut last = self.last.load(Ordering::Acquire);
    while last == NOTHING_ISSUED || Floor::rank(word, last) < Floor::rank(word, above) {
      match self
        .last
        .compare_exchange_weak(last, above, Ordering::AcqRel, Ordering::Acquire)
      {
        Ok(_) => return,
        Err(current) => last = current,
      }
    }
  }
}

/// A state from which nothing can ever be issued: its next id would be past the largest time a
/// word of its format holds, so every take is refused as past the limit. What a lost state
/// file's words read (see `host::file`).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub const fn spent(word: Word) -> u64 {
  word.max_time() << word.time_shift() | word.sequence_mask()
}

/// A state word whose next id is in a unit after `time` (every sequence number of `time` used),
/// for a state that must start above it; `None` past what the word holds.
pub fn word_above(word: Word, time: u64) -> Option<u64> {
  (time <= word.max_time()).then_some(time << word.time_shift() | word.sequence_mask())
}

/// (delta, sequence) of the last id a state word records, or `None` if it records none.
pub fn last_issued(word: Word, state: u64) -> Option<(u64, u16)> {
  (state != NOTHING_ISSUED).then_some((
    state >> word.time_shift(),
    (state & word.sequence_mask()) as u16,
  ))
}

//! Random bits for UUIDv7s: a CSPRNG per thread (ChaCha12, the `rand` crate's `StdRng`), keyed
//! from the OS's (`getrandom`) and keyed again after every `RESEED_BYTES` it gives. Not the OS's
//! for every id: its system call costs ~2 ns a byte here, 16 ns of an id whose whole native
//! call otherwise costs ~20. Read a block at a time. A forked child starts with a copy of its
//! parent's generator and unread block: it must never hand out those bytes as well, so a fork
//! handler marks both stale, and the child's next id keys a fresh generator from the OS.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use chacha20::ChaCha12Rng;
use rand_core::{Rng, SeedableRng};

use crate::error::FlakeError;
use crate::os;

/// Bytes generated at a time: 512 ids' worth.
const BLOCK_BYTES: usize = 4096;
/// Bytes a key gives before the OS gives another: 1 MiB.
const RESEED_BYTES: usize = 1 << 20;

/// How many times this process was forked from (counted in the child): a generator keyed under
/// an older count is its parent's too.
static FORKS: AtomicU64 = AtomicU64::new(0);

/// A thread's random bits: each JS thread's `js::thread::Thread` holds one.
pub struct Random {
  bytes: [u8; BLOCK_BYTES],
  /// Bytes handed out so far.
  used: usize,
  /// The generator, and the bytes it has given since it was keyed.
  generator: Option<(ChaCha12Rng, usize)>,
  /// `FORKS` when the generator was keyed.
  forks: u64,
}

impl Default for Random {
  fn default() -> Self {
    Self {
      bytes: [0; BLOCK_BYTES],
      used: BLOCK_BYTES,
      generator: None,
      forks: 0,
    }
  }
}

impl Random {
  /// 64 random bits, none handed out before by this process or one it was forked from.
  #[inline]
  pub fn next_u64(&mut self) -> Result<u64, FlakeError> {
    if self.used == BLOCK_BYTES || self.forks != FORKS.load(Relaxed) {
      refill(self)?;
    }
    let at = self.used;
    self.used += 8;
    let bytes = &mut self.bytes[at..at + 8];
    let value = u64::from_ne_bytes((&*bytes).try_into().expect("8 bytes"));
    // Wiped once read: memory that outlives the id no longer says what its random bits were.
    bytes.fill(0);
    Ok(value)
  }
}

#[cold]
fn refill(block: &mut Random) -> Result<(), FlakeError> {
  watch_forks()?;
  // Read before keying: a fork between the two then only costs a key more.
  let forks = FORKS.load(Relaxed);
  let generator = match block.generator.take() {
    Some((generator, given)) if given < RESEED_BYTES && block.forks == forks => (generator, given),
    _ => (keyed()?, 0),
  };
  let (mut generator, given) = generator;
  generator.fill_bytes(&mut block.bytes);
  block.generator = Some((generator, given + BLOCK_BYTES));
  block.used = 0;
  block.forks = forks;
  Ok(())
}

/// A generator keyed by the OS.
fn keyed() -> Result<ChaCha12Rng, FlakeError> {
  let mut seed = [0; 32];
  getrandom::fill(&mut seed).map_err(|err| FlakeError::Random {
    reason: err.to_string(),
  })?;
  Ok(ChaCha12Rng::from_seed(seed))
}

/// Counts forks from the first refill on (before it, no block holds anything to replay).
fn watch_forks() -> Result<(), FlakeError> {
  static WATCHING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
  extern "C" fn forked() {
    FORKS.fetch_add(1, Relaxed);
  }
  // Fails only without memory for the handler: then no block is safe to keep in a child.
  if !*WATCHING.get_or_init(|| os::on_fork(forked)) {
    return Err(FlakeError::Random {
      reason: "no fork handler could be registered".into(),
    });
  }
  Ok(())
}

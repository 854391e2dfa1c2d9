//! Tests of the core against a fake clock: every clock reading is a parameter.

#[cfg(unix)]
mod admin;
mod batch;
#[cfg(target_os = "linux")]
mod command_line;
mod decompose;
#[cfg(unix)]
mod fallback;
mod generator;
#[cfg(unix)]
mod host;
#[cfg(unix)]
mod host_limits;
#[cfg(unix)]
mod host_loss;
#[cfg(unix)]
mod host_restore;
mod id_from;
mod input;
mod instance_tally;
mod layers;
mod leased;
mod modules;
mod number;
mod options;
mod protocol;
mod slots;
mod state_machine;
mod sync_take;
#[cfg(unix)]
mod transient;
mod vectors;
#[cfg(unix)]
mod waits;
mod wide;

use crate::generator::Generator;
use crate::input::Input;
use crate::options::{parse, Config, RawOptions, Scope};

/// A generator with a private state (as with a `clock` option), so tests never share one.
fn private(raw: RawOptions) -> Generator<'static> {
  let raw = RawOptions {
    clock: Input::Function,
    ..raw
  };
  Generator::new(&config(raw)).expect("a private state")
}

/// Process scope unless the test asks for another: the fake clock's fixed readings would
/// collide with what earlier runs left in a host's state directory.
fn config(raw: RawOptions) -> Config {
  let default_scope = raw.scope.is_unset() && raw.state_dir.is_unset();
  let mut config = parse(&raw, NOW).expect("valid options");
  if default_scope {
    config.scope = Scope::Process;
  }
  config
}

/// The system clock as these tests see it: 2026-11-22.
const NOW: u64 = 1_795_300_000_000;

/// Time for opening state files without sleeping: waiting moves it on at once.
struct FakeTime(u64);

impl FakeTime {
  /// A second before `NOW`, so a file's start (the horizon after it) is behind every reading
  /// the tests take.
  fn before_now() -> Self {
    Self(NOW - 1000)
  }
}

/// Real time is the clock itself: a clock that keeps time.
impl crate::clock::Time for FakeTime {
  fn now_ms(&mut self) -> u64 {
    self.0
  }

  fn real_ms(&mut self) -> u64 {
    self.0
  }

  fn pause(&mut self, _now_ms: u64, target_ms: u64) {
    self.0 = self.0.max(target_ms);
  }
}

/// flake-idgen's largest time (ms after the epoch): 42 bits.
const MAX_DELTA: u64 = (1 << 42) - 1;

/// flake-idgen's layout with `epoch`.
fn flake(epoch: u64) -> crate::kinds::layout::Layout {
  crate::kinds::layout::Layout {
    epoch,
    ..crate::kinds::layout::Layout::DEFAULT
  }
}

/// (delta, generator id, sequence) of an id.
fn decode(id: u64) -> (u64, u16, u16) {
  (id >> 22, ((id >> 12) & 0x3ff) as u16, (id & 0xfff) as u16)
}

/// A fresh directory under the system's temporary one, for state files, removed when dropped
/// (not created: opening a state file creates its directory, 0700).
struct TempDir(std::path::PathBuf);

impl std::ops::Deref for TempDir {
  type Target = std::path::Path;
  fn deref(&self) -> &std::path::Path {
    &self.0
  }
}

impl Drop for TempDir {
  fn drop(&mut self) {
    let _ = std::fs::remove_dir_all(&self.0);
  }
}

fn temp_dir(name: &str) -> TempDir {
  static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
  let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
  TempDir(std::env::temp_dir().join(format!(
    "flake-idgen-test-{}-{n}-{name}",
    std::process::id()
  )))
}

/// A proptest runner of `cases` cases whose seed is printed (`what` says for which test), from
/// `PROPTEST_RNG_SEED` if set: `PROPTEST_RNG_SEED=<seed> cargo test <test>` replays a run.
fn seeded_runner(what: &str, cases: u32) -> proptest::test_runner::TestRunner {
  use proptest::test_runner::{Config, RngSeed, TestRunner};
  use std::io::Write;
  let seed = std::env::var("PROPTEST_RNG_SEED")
    .ok()
    .and_then(|s| s.parse().ok())
    .unwrap_or_else(|| {
      std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
    });
  // Straight to stderr: the test harness would capture `println!` and show it only on failure.
  let _ = writeln!(
    std::io::stderr(),
    "{what} seed: {seed} (replay: PROPTEST_RNG_SEED={seed})"
  );
  TestRunner::new(Config {
    cases,
    rng_seed: RngSeed::Fixed(seed),
    failure_persistence: None,
    ..Config::default()
  })
}

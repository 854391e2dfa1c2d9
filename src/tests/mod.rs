//! Tests of the core against a fake clock: every clock reading is a parameter.

mod batch;
mod decompose;
mod generator;
mod options;
mod protocol;
mod slots;
mod state_machine;
mod vectors;

use crate::generator::Generator;
use crate::input::Input;
use crate::options::{parse, Config, RawOptions};

/// A generator with a private state (as with a `clock` option), so tests never share one.
fn private(raw: RawOptions) -> Generator {
  let raw = RawOptions {
    clock: Input::Function,
    ..raw
  };
  Generator::new(&config(raw))
}

fn config(raw: RawOptions) -> Config {
  parse(&raw, NOW).expect("valid options")
}

/// The system clock as these tests see it: 2026-11-22.
const NOW: u64 = 1_795_300_000_000;

/// (delta, generator id, sequence) of an id.
fn decode(id: u64) -> (u64, u16, u16) {
  (id >> 22, ((id >> 12) & 0x3ff) as u16, (id & 0xfff) as u16)
}

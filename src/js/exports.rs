//! The functions the JS layer (`index.js`) calls. None of them is on the per-id path.

use napi::bindgen_prelude::{Object, Unknown};
use napi::{Env, Result};
use napi_derive::napi;

use super::error::thrown;
use super::hot::id_source;
use super::input::read_options;
use super::scratch::Scratch;
use crate::clock;
use crate::error::FlakeError;
use crate::generator::Generator;
use crate::input::Input;
use crate::layout::{MAX_NODE, MAX_SEQUENCE};
use crate::options::{self, Config};
use crate::sequencer::MAX_LEAD;

/// The Buffer that this thread's id functions write ids into: one id big-endian at offset 0
/// and in the platform's byte order at offset 8, or a run of up to 4,096 ids big-endian from
/// offset 0.
#[napi(ts_return_type = "Buffer")]
pub fn scratch(env: Env) -> Result<Unknown<'static>> {
  let buffer = Scratch::of(&env)?.buffer(&env)?;
  Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), buffer) })
}

/// A validated configuration: what `createGenerator` returns and `createSource` takes.
#[napi(object)]
pub struct GeneratorConfig {
  /// The 10-bit generator id.
  pub id: u32,
  /// Set when the options gave `datacenter`/`worker` rather than `id`, as in flake-idgen.
  pub datacenter: Option<u32>,
  pub worker: Option<u32>,
  /// Ms since 1970 that timestamps count from.
  pub epoch: f64,
  pub seq_mask: u32,
  pub allowed_future_ms: u32,
  /// The instance reads its own `clock` function, not the system clock.
  pub custom_clock: bool,
}

/// Validates `options`, throwing a `TypeError`/`RangeError` with code `ERR_FLAKE_INVALID_OPTION`
/// that names the option and the value.
#[napi(ts_args_type = "options?: unknown")]
pub fn create_generator(env: Env, options: Unknown) -> Result<GeneratorConfig> {
  let raw = read_options(&env, options)?;
  let config = options::parse(&raw, clock::system_now_ms()).map_err(|e| thrown(&env, e))?;
  Ok(GeneratorConfig {
    id: u32::from(config.id),
    datacenter: config.datacenter.map(u32::from),
    worker: config.worker.map(u32::from),
    epoch: config.epoch as f64,
    seq_mask: u32::from(config.seq_mask),
    allowed_future_ms: config.allowed_future_ms as u32,
    custom_clock: config.custom_clock,
  })
}

/// The id functions of a generator of `config` (see `hot::id_source`). On the system clock,
/// generators with the same `id` and `epoch` share one state process-wide, across worker
/// threads too; with a custom clock, each call makes a new state.
#[napi(
  ts_return_type = "{ fill: (now?: number) => number | undefined; tryFill: (now?: number) => number | undefined; fillRun: (max: number) => number; batches: GeneratorHandle }"
)]
pub fn create_source(env: Env, config: GeneratorConfig) -> Result<Object<'static>> {
  let config = checked(&config).map_err(|e| thrown(&env, e))?;
  id_source(&env, Generator::new(&config))
}

/// `config` as `createGenerator` made it: anything else is refused, never masked.
fn checked(config: &GeneratorConfig) -> std::result::Result<Config, FlakeError> {
  let refused = |argument: &'static str, got: f64| FlakeError::ArgumentRange {
    argument,
    expected: "a value from createGenerator()".to_string(),
    got: Input::Number(got),
  };
  let within = |argument, value: u32, max: u64| {
    (u64::from(value) <= max)
      .then_some(u64::from(value))
      .ok_or_else(|| refused(argument, value.into()))
  };
  let epoch = config.epoch;
  if epoch.fract() != 0.0 || !(0.0..=clock::MAX_SAFE_INTEGER).contains(&epoch) {
    return Err(refused("config.epoch", epoch));
  }
  Ok(Config {
    id: within("config.id", config.id, MAX_NODE.into())? as u16,
    datacenter: None,
    worker: None,
    epoch: epoch as u64,
    seq_mask: within("config.seqMask", config.seq_mask, MAX_SEQUENCE.into())? as u16,
    allowed_future_ms: within("config.allowedFutureMs", config.allowed_future_ms, MAX_LEAD)?,
    custom_clock: config.custom_clock,
  })
}

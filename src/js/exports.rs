//! The functions the JS layer (`native.js`) calls to set up. None of them is on the per-id path.

use napi::bindgen_prelude::{Object, Unknown};
use napi::{Env, Result};
use napi_derive::napi;

use super::error::thrown;
use super::id_functions;
use super::input::read_options;
use super::thread::Thread;
use crate::clock;
use crate::options;
use crate::registry;

/// This thread's id functions, for the generator whose slot is in the scratch (see
/// `id_functions`): `fill`, `fillAt`, `tryFill`, `tryFillAt` and `fillRun`.
#[napi(
  ts_return_type = "{ fill: () => number | undefined; fillAt: (now: unknown) => number | undefined; tryFill: () => number | undefined; tryFillAt: (now: unknown) => number | undefined; fillRun: (max: number) => number }"
)]
pub fn id_functions(env: Env) -> Result<Object<'static>> {
  id_functions::id_functions(&env)
}

/// The Buffer that this thread's id functions write ids into (see `protocol`).
#[napi(ts_return_type = "Buffer")]
pub fn scratch(env: Env) -> Result<Unknown<'static>> {
  let buffer = Thread::of(&env)?.scratch.buffer(&env)?;
  Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), buffer) })
}

/// Validates `options`, each read once, and returns the generator they configure: `slot`, where
/// this thread keeps it (shared by every configuration alike on the system clock, since one
/// state per generator id and epoch serves them all; a fresh one with a `clock`, which keeps a
/// private state), the properties of the instance, the `scope` it ended up with, the `clock`
/// function, if given, and `warning`, the reason why host scope was unavailable, the first time
/// in the process a generator falls back to process scope. Throws a `TypeError`/`RangeError`
/// with code `ERR_FLAKE_INVALID_OPTION` that names the option and the value, or an `Error` with
/// code `ERR_FLAKE_STATE_DIR`/`ERR_FLAKE_STATE_FILE` when host scope was asked for and cannot
/// be had. The caller owns the slot until it calls `release`.
#[napi(
  ts_args_type = "options?: unknown",
  ts_return_type = "{ slot: number; id: number; datacenter?: number; worker?: number; epoch: number; seqMask: number; allowedFutureMs: number; scope: 'host' | 'process'; clock?: () => number; warning?: string }"
)]
pub fn configure<'env>(env: &'env Env, options: Unknown<'env>) -> Result<Object<'env>> {
  let (raw, clock) = read_options(env, options)?;
  let config = options::parse(&raw, clock::system_now_ms()).map_err(|e| thrown(env, e))?;
  let thread = Thread::of(env)?;
  let mut slots = thread.slots.borrow_mut();
  let slot = slots.configure(&config).map_err(|e| thrown(env, e))?;
  let host = slots.get(slot).is_some_and(|generator| generator.is_host());
  drop(slots);
  let mut configured = Object::new(env)?;
  configured.set("slot", slot)?;
  configured.set("scope", if host { "host" } else { "process" })?;
  if let Some(reason) = registry::take_fallback() {
    configured.set("warning", reason.to_string())?;
  }
  configured.set("id", u32::from(config.id))?;
  if let (Some(datacenter), Some(worker)) = (config.datacenter, config.worker) {
    configured.set("datacenter", u32::from(datacenter))?;
    configured.set("worker", u32::from(worker))?;
  }
  configured.set("epoch", config.epoch as f64)?;
  configured.set("seqMask", u32::from(config.seq_mask))?;
  configured.set("allowedFutureMs", config.allowed_future_ms as u32)?;
  if let Some(clock) = clock {
    configured.set("clock", clock)?;
  }
  Ok(configured)
}

/// Releases `slot`, which no instance holds any longer. Returns whether it held a generator.
#[napi]
pub fn release(env: Env, slot: u32) -> Result<bool> {
  Ok(Thread::of(&env)?.slots.borrow_mut().release(slot))
}

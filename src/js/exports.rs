//! The functions the JS layer (`index.js`) calls. None of them is on the per-id path.

use napi::bindgen_prelude::{Object, Unknown};
use napi::{sys, Env, Result};
use napi_derive::napi;

use super::error::thrown;
use super::handle::GeneratorHandle;
use super::hot::id_functions;
use super::input::read_options;
use super::scratch::Scratch;
use crate::clock;
use crate::generator::Generator;
use crate::options;

/// The 8-byte Buffer that this thread's id functions write each id into, big-endian.
#[napi(ts_return_type = "Buffer")]
pub fn scratch(env: Env) -> Result<Unknown<'static>> {
  let buffer = Scratch::of(&env)?.buffer(&env)?;
  Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), buffer) })
}

/// Validates `options` (throwing a `TypeError`/`RangeError` with code `ERR_FLAKE_INVALID_OPTION`
/// that names the option and the value) and returns the native half of a `FlakeId`: its
/// configuration, its two id functions and the handle for batches and stats. Generators on the
/// system clock with the same `id` and `epoch` share one state process-wide, across worker
/// threads too.
#[napi(
  ts_args_type = "options?: unknown",
  ts_return_type = "{ id: number; datacenter?: number; worker?: number; epoch: number; seqMask: number; allowedFutureMs: number; fill: (now?: number) => void; tryFill: (now?: number) => number | undefined; handle: GeneratorHandle }"
)]
pub fn create_generator(env: Env, options: Unknown) -> Result<Object<'static>> {
  let raw = read_options(&env, options)?;
  let config = options::parse(&raw, clock::system_now_ms()).map_err(|e| thrown(&env, e))?;
  let generator = Generator::new(&config);
  let (fill, try_fill) = id_functions(&env, &generator)?;

  let mut native = Object::new(&env)?;
  native.set("id", u32::from(config.id))?;
  if let (Some(datacenter), Some(worker)) = (config.datacenter, config.worker) {
    native.set("datacenter", u32::from(datacenter))?;
    native.set("worker", u32::from(worker))?;
  }
  native.set("epoch", config.epoch as f64)?;
  native.set("seqMask", u32::from(config.seq_mask))?;
  native.set("fill", raw_value(&env, fill))?;
  native.set("tryFill", raw_value(&env, try_fill))?;
  native.set("allowedFutureMs", config.allowed_future_ms as f64)?;
  native.set("handle", GeneratorHandle::new(generator))?;
  Ok(native)
}

/// A value created through raw N-API, in the form napi-rs sets as a property.
fn raw_value(env: &Env, value: sys::napi_value) -> Unknown<'static> {
  unsafe { Unknown::from_raw_unchecked(env.raw(), value) }
}

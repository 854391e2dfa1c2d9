//! Setting up: a thread, with its scratch and id functions, and each configuration, checked
//! and turned into the fields its calls write; and reading the scratch back, to check the
//! setup. None of it is on the per-id path.

use napi::bindgen_prelude::{BigInt, FromNapiValue, Object, Unknown};
use napi::{Env, JsValue, Result};
use napi_derive::napi;

use super::error::thrown;
use super::id_functions;
use super::input::read_options;
use super::protocol::{encode_settings, Scratch, PRIVATE_SLOT};
use super::thread::Thread;
use crate::clock;
use crate::generator::{shared_state, Settings};
use crate::layout::Preset;
use crate::options;
use crate::registry;

/// Sets up this thread with its scratch (a `Uint8Array` over a whole `SharedArrayBuffer` of
/// `SCRATCH_BYTES`, see `protocol`) and returns its id functions, for the generator the call
/// fields in the scratch describe (see `id_functions`): `issue`, `issueAt`, `tryIssue`,
/// `tryIssueAt` and `issueRun`, with `scratch`, the one they write into. A thread already set
/// up (by another copy of native.js: a fresh module registry, `require.cache` cleared, a vm
/// context, the package under two names) checks `scratch` and returns the object it returned
/// first: every copy shares one scratch and one table of slots.
#[napi(
  ts_args_type = "scratch: Uint8Array",
  ts_return_type = "{ scratch: Uint8Array; issue: () => number | undefined; issueAt: (now: unknown) => number | undefined; tryIssue: () => number | undefined; tryIssueAt: (now: unknown) => number | undefined; issueRun: (max: number) => number }"
)]
pub fn setup(env: Env, scratch: Unknown) -> Result<Object<'static>> {
  // Checked even when the thread has one: every copy is refused a bad scratch alike.
  unsafe { Scratch::check(&env, scratch.raw()) }?;
  let object = match Thread::kept(&env)? {
    Some(object) => object,
    None => {
      let thread = Thread::setup(&env, unsafe { Scratch::new(&env, scratch.raw()) }?)?;
      let mut object = id_functions::id_functions(&env)?;
      object.set("scratch", unsafe {
        Unknown::from_raw_unchecked(env.raw(), thread.scratch.view(&env)?)
      })?;
      thread.keep(&env, object.raw())?;
      object.raw()
    }
  };
  unsafe { Object::from_napi_value(env.raw(), object) }
}

/// Validates `options`, each read once, and returns what a call for the generator they
/// configure writes into the scratch: `slot` (the shared state it issues from: one per
/// layout shape and node id, on the host or in the process, whatever the other options;
/// `PRIVATE_SLOT` with a `clock`, whose state the instance keeps), `settings` (its id and
/// `allowedFutureMs`, packed) and `shape` (its layout's bits and `seqMask`, packed; with
/// `epoch`); `step`, how far apart the ids of a run are; and the properties of the instance
/// (`preset`, the layout's preset for `layoutOf`; the node id's parts by the layout's names), the `scope` it
/// ended up with, the `clock` function, if given, and `warning`, the reason why host scope was
/// unavailable, the first time in the process a generator falls back to process scope. Throws a
/// `TypeError`/`RangeError` with code `ERR_FLAKE_INVALID_OPTION` that names the option and the
/// value, or an `Error` with code `ERR_FLAKE_STATE_DIR`/`ERR_FLAKE_STATE_FILE` when host scope
/// was asked for and cannot be had. Nothing is kept per configuration: there is nothing to
/// release.
#[napi(
  ts_args_type = "options?: unknown",
  ts_return_type = "{ slot: number; settings: number; shape: number; step: number; preset: number; id: number; datacenter?: number; worker?: number; process?: number; epoch: number; seqMask: number; allowedFutureMs: number; scope: 'host' | 'process'; clock?: () => number; warning?: string }"
)]
pub fn configure<'env>(env: &'env Env, options: Unknown<'env>) -> Result<Object<'env>> {
  let (raw, clock) = read_options(env, options)?;
  let config = options::parse(&raw, clock::system_now_ms()).map_err(|e| thrown(env, e))?;
  let thread = Thread::of(env)?;
  let settings = Settings::from(&config);
  let (slot, host) = if config.custom_clock {
    (PRIVATE_SLOT, false)
  } else {
    let (state, host) = shared_state(&config).map_err(|e| thrown(env, e))?;
    (thread.slots.borrow_mut().slot_of(state, settings), host)
  };
  let step = config.layout.shape.step();
  let (settings, shape, epoch) = encode_settings(&settings);
  let mut configured = Object::new(env)?;
  configured.set("slot", slot)?;
  configured.set("settings", settings)?;
  configured.set("shape", shape)?;
  configured.set("step", step as f64)?;
  // No layout object per generator: `layoutOf` makes one when asked.
  configured.set(
    "preset",
    config
      .layout
      .preset
      .map_or(Preset::ALL.len(), Preset::index) as u32,
  )?;
  configured.set("scope", if host { "host" } else { "process" })?;
  if let Some(reason) = registry::take_fallback() {
    configured.set("warning", reason.to_string())?;
  }
  configured.set("id", u32::from(config.id))?;
  if let (Some(names), Some(parts)) = (config.layout.parts(), config.parts) {
    for (name, part) in names.into_iter().zip(parts) {
      configured.set(name, u32::from(part))?;
    }
  }
  configured.set("epoch", epoch)?;
  configured.set("seqMask", u32::from(config.seq_mask))?;
  configured.set("allowedFutureMs", config.allowed_future_ms as u32)?;
  if let Some(clock) = clock {
    configured.set("clock", clock)?;
  }
  Ok(configured)
}

/// What the native side reads from the thread's scratch now, each field as it is stored (see
/// `SCRATCH_SLOT` and the other offsets): for the test that JS and Rust agree on the layout;
/// not on the per-id path.
#[napi(
  ts_return_type = "{ slot: number; settings: number; shape: number; epoch: number; privateState: bigint; ceiling: number; worker?: number }"
)]
pub fn read_scratch(env: &Env) -> Result<Object<'_>> {
  // Through the accessors the id functions use, so the test checks what they read.
  let scratch = &Thread::of(env)?.scratch;
  let settings = scratch.settings_fields();
  let mut fields = Object::new(env)?;
  fields.set("slot", scratch.slot())?;
  fields.set("settings", settings.packed)?;
  fields.set("shape", settings.shape)?;
  fields.set("epoch", f64::from_bits(settings.epoch))?;
  fields.set("privateState", BigInt::from(scratch.private_state().word()))?;
  fields.set("ceiling", scratch.ceiling_field())?;
  if let Some(worker) = scratch.worker() {
    fields.set("worker", worker as f64)?;
  }
  Ok(fields)
}

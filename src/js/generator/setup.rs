//! Setting up: a thread, with its scratch and id functions, and each configuration, checked
//! and turned into the fields its calls write; and reading the scratch back, to check the
//! setup. None of it is on the per-id path.

use napi::bindgen_prelude::{BigInt, FromNapiValue, Object, Unknown};
use napi::{Env, JsValue, Result};
use napi_derive::napi;

use crate::clock;
use crate::generator::Settings;
use crate::js::seam::calls;
use crate::js::seam::id_functions::ID_FUNCTIONS;
use crate::js::seam::protocol::{encode_settings, Scratch, PRIVATE_SLOT};
use crate::js::seam::thread::Thread;
use crate::js::seam::wide_functions::WIDE_FUNCTIONS;
use crate::js::values::error::{thrown, unusable};
use crate::js::values::input::read_options;
use crate::kinds::layout::Preset;
use crate::kinds::Kind;
use crate::options::{self, id_from, unknown, Scope};
use crate::registry::{self, shared_state};

/// Sets up this thread with its scratch (a `Uint8Array` over a whole `SharedArrayBuffer` of
/// `SCRATCH_BYTES`, see `protocol`) and returns its id functions, for the generator the call
/// fields in the scratch describe: those of 64-bit ids (`issue`, `issueAt`, `tryIssue`,
/// `tryIssueAt` and `issueRun`, see `id_functions`) and of 128-bit ids (`issueWide`,
/// `issueWideText`, `issueWideAt`, `issueWideTextAt`, see `wide_functions`), with `scratch`,
/// the one they write into. A thread already set
/// up (by another copy of native.js: a fresh module registry, `require.cache` cleared, a vm
/// context, the package under two names) checks `scratch` and returns the object it returned
/// first: every copy shares one scratch and one table of slots.
#[napi(
  ts_args_type = "scratch: Uint8Array",
  ts_return_type = "{ scratch: Uint8Array; issue: () => number | undefined; issueAt: (now: unknown) => number | undefined; tryIssue: () => number | undefined; tryIssueAt: (now: unknown) => number | undefined; issueRun: (max: number) => number; issueWide: () => void; issueWideText: () => string; issueWideAt: (now: unknown) => void; issueWideTextAt: (now: unknown) => string }"
)]
pub fn setup(env: Env, scratch: Unknown) -> Result<Object<'static>> {
  // Checked even when the thread has one: every copy is refused a bad scratch alike.
  unsafe { Scratch::check(&env, scratch.raw()) }?;
  let object = match Thread::kept(&env)? {
    Some(object) => object,
    None => {
      let thread = Thread::setup(&env, unsafe { Scratch::new(&env, scratch.raw()) }?)?;
      #[cfg_attr(not(target_family = "wasm"), allow(unused_mut))]
      let mut functions = [ID_FUNCTIONS.as_slice(), WIDE_FUNCTIONS.as_slice()].concat();
      // The WebAssembly build's: the one that throws why a plain export issued nothing.
      #[cfg(target_family = "wasm")]
      functions.push((c"refusal", crate::js::wasm_exports::refusal));
      let mut object = calls::make(&env, &functions)?;
      object.set("scratch", unsafe {
        Unknown::from_raw_unchecked(env.raw(), thread.scratch.view(&env)?)
      })?;
      thread.keep(&env, object.raw())?;
      object.raw()
    }
  };
  unsafe { Object::from_napi_value(env.raw(), object) }
}

/// What `configure` resolved: what a call for the generator writes into the scratch and the
/// properties of the instance.
#[napi(object, object_from_js = false)]
pub struct Configured<'env> {
  /// The shared state it issues from: one per layout shape and node id, on the host or in the
  /// process, whatever the other options; `PRIVATE_SLOT` with a `clock`, whose state the
  /// instance keeps.
  pub slot: u32,
  /// Its node id and `allowedFutureMs`, packed (see `protocol`).
  pub settings: u32,
  /// Its layout's bits and `seqMask`, packed (see `protocol`).
  pub shape: u32,
  /// How far apart the ids of a run are.
  pub step: f64,
  /// Its layout's preset, by index, for `layoutOf`; one past the last for none.
  pub preset: u32,
  /// The node id.
  pub id: u32,
  /// A number of the instance's own in the thread, which its calls write into the scratch
  /// (`SCRATCH_INSTANCE`): whose tally a slot keeps (see `instance_tally`).
  pub instance: u32,
  /// The node id's two parts (high first), for a layout that names them (`layoutOf`'s `parts`).
  pub parts: Option<Vec<u32>>,
  pub epoch: f64,
  pub seq_mask: u32,
  pub allowed_future_ms: u32,
  /// The scope it ended up with.
  #[napi(ts_type = "'host' | 'process'")]
  pub scope: String,
  /// The `clock` option, if given.
  #[napi(ts_type = "() => number")]
  pub clock: Option<Unknown<'env>>,
  /// Why host scope was unavailable, the first time in the process a generator falls back to
  /// process scope.
  pub warning: Option<String>,
  /// What to say, once per process for each name, about options a `FlakeId` does not take
  /// (see `options::unknown`); the 128-bit kinds' are refused before they get here.
  pub unknown_options: Option<Vec<String>>,
}

/// Validates `options` of a generator of `kind` (a `KindName`),
/// each read once, and returns what they configure (see `Configured`). Throws a
/// `TypeError`/`RangeError` with code `ERR_FLAKE_INVALID_OPTION` that names the option and the
/// value, code `ERR_FLAKE_ID_FROM` when what `idFrom` reads gives no node id of the layout, or an
/// `Error` with code `ERR_FLAKE_STATE_DIR`/`ERR_FLAKE_STATE_FILE` when host scope was asked for
/// and cannot be had. Nothing is kept per configuration: there is nothing to
/// release. With `checkOnly`, the options are checked and no state is found (nor a state file
/// mapped): `slot` is `PRIVATE_SLOT`, and `scope` the one asked for (a lease checks its
/// generator's options before it knows its id).
#[napi(ts_args_type = "kind: KindName, options?: unknown, checkOnly?: boolean")]
pub fn configure<'env>(
  env: &'env Env,
  kind: String,
  options: Unknown<'env>,
  check_only: Option<bool>,
) -> Result<Configured<'env>> {
  let kind = Kind::named(&kind).ok_or_else(unusable)?;
  let (raw, clock, unknown) = read_options(env, options)?;
  let config = options::parse_kind(&raw, kind, clock::system_now_ms(), &id_from::System)
    .map_err(|e| thrown(env, e))?;
  let thread = Thread::of(env)?;
  let settings = Settings::from(&config);
  let (slot, host) = if config.custom_clock {
    (PRIVATE_SLOT, false)
  } else if check_only == Some(true) {
    (PRIVATE_SLOT, matches!(config.scope, Scope::Host { .. }))
  } else {
    let (state, host) = shared_state(&config).map_err(|e| thrown(env, e))?;
    (thread.slots.borrow_mut().slot_of(state, settings), host)
  };
  let (packed, shape, epoch) = encode_settings(&settings);
  Ok(Configured {
    slot,
    settings: packed,
    shape,
    step: config.layout.shape.step() as f64,
    // No layout object per generator: `layoutOf` makes one when asked.
    preset: config
      .layout
      .preset
      .map_or(Preset::ALL.len(), Preset::index) as u32,
    id: u32::from(config.id),
    instance: thread.new_instance(),
    parts: config.parts.map(|parts| parts.map(u32::from).to_vec()),
    epoch,
    seq_mask: u32::from(config.seq_mask),
    allowed_future_ms: config.allowed_future_ms as u32,
    scope: if host { "host" } else { "process" }.into(),
    clock,
    warning: registry::take_fallback().map(|reason| reason.to_string()),
    unknown_options: Some(unknown::first_reports(&unknown, &unknown::FLAKE_ID_OPTIONS))
      .filter(|reports| !reports.is_empty()),
  })
}

/// What the native side reads from the thread's scratch now, each field as it is stored (see
/// `SCRATCH_SLOT` and the other offsets), and the tally its slot keeps for its instance, if it
/// keeps one: for the test that JS and Rust agree on the layout; not on the per-id path.
#[napi(
  ts_return_type = "{ slot: number; settings: number; shape: number; epoch: number; privateState: bigint; ceiling: number; instance: number; worker?: number; tally?: bigint }"
)]
pub fn read_scratch(env: &Env) -> Result<Object<'_>> {
  // Through the accessors the id functions use, so the test checks what they read.
  let thread = Thread::of(env)?;
  let scratch = &thread.scratch;
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
  fields.set("instance", scratch.instance())?;
  let slots = thread.slots.borrow();
  if let Some(tally) = slots
    .tally(scratch.slot())
    .and_then(|kept| kept.of(scratch.instance()))
  {
    fields.set("tally", BigInt::from(tally.0))?;
  }
  Ok(fields)
}

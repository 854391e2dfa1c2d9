//! The WebAssembly build's plain exports: the per-id path of `next()` as functions of the
//! module itself, taking and returning numbers only, which `lib/binding/native.js` calls on the
//! module's instance. Through emulated N-API (emnapi), every id function's call opens a handle
//! scope in JS and each `napi_*` call it makes is one more crossing between JS and the module:
//! `next()` took 2.3 × flake-idgen's that way. A plain export is one call of a wasm function.
//!
//! `flake_idgen_rs_issue()` is `issue()` (see `id_functions`): the same state machine, for the
//! generator whose call fields JS wrote into the scratch (see `protocol`), the id written there
//! and counted in the instance's tally. It answers in a number: `PLAIN_ISSUED_ONE` for one id
//! and nothing met (the N-API function's `undefined`), a report (≥ `REPORT_UNIT`) for one id
//! that met something, or `PLAIN_REFUSED` when it issued nothing, after which JS calls the thread's
//! `refusal()` (an id function, see `setup`), which throws why: the error `issue()` would have
//! thrown, made in the one place errors are (`error`).

use std::cell::Cell;

use napi::sys;

use crate::clock;
use crate::error::FlakeError;
use crate::js::seam::calls::{generator, thrown};
use crate::js::seam::id_functions::{take_by_system_clock, WAITS};
use crate::js::seam::protocol::{self, PLAIN_ISSUED_ONE, PLAIN_REFUSED};
use crate::js::seam::thread::Thread;
use crate::js::values::error::throw_unusable;
use crate::number::whole_part;

const ISSUED_ONE: f64 = PLAIN_ISSUED_ONE as f64;
const REFUSED: f64 = PLAIN_REFUSED as f64;

thread_local! {
  /// Why the last plain call issued nothing, until `refusal()` throws it; none for a call
  /// whose scratch described no generator.
  static REFUSAL: Cell<Option<FlakeError>> = const { Cell::new(None) };
}

/// `issue()` as a plain export, `now_ms` a reading of the system clock JS just took (see the
/// module's docs); a reading that is none (NaN) has the system clock read here instead.
#[no_mangle]
pub extern "C" fn flake_idgen_rs_issue(now_ms: f64) -> f64 {
  let Some(thread) = Thread::only() else {
    return refused(None);
  };
  let slots = thread.slots.borrow();
  let Some((generator, tally)) = generator(&thread.scratch, &slots) else {
    return refused(None);
  };
  // The first reading JS's; any fresh one a refusal asks for (see `Generator::take_by`) read
  // here, from the same clock.
  let mut first = whole_part(now_ms);
  let read_clock = || first.take().unwrap_or_else(clock::system_now_ms);
  match take_by_system_clock(&generator, tally, WAITS, read_clock) {
    Ok(ids) => {
      thread.scratch.write(&ids);
      protocol::issued(&ids).unwrap_or(ISSUED_ONE)
    }
    Err(err) => refused(Some(err)),
  }
}

#[cold]
fn refused(why: Option<FlakeError>) -> f64 {
  REFUSAL.set(why);
  REFUSED
}

/// `refusal()`: throws why the last plain call issued nothing (see the module's docs).
///
/// # Safety
/// Called by N-API only, as the callback of a function made by `calls::make`.
pub(super) unsafe extern "C" fn refusal(
  env: sys::napi_env,
  _info: sys::napi_callback_info,
) -> sys::napi_value {
  match REFUSAL.take() {
    Some(err) => unsafe { thrown(env, &err) },
    None => unsafe { throw_unusable(env) },
  }
}

//! The per-id path. napi-rs class methods cost ~400 ns a call and a Buffer made on the native
//! side 1-2 µs (bench/README.md, "What a call into Rust costs"), more than flake-idgen spends on
//! a whole id, so ids come from plain N-API functions instead: no `this` to unwrap, one or two
//! numbers to read, and the id written into the thread's scratch for JS to copy into a Buffer
//! of its own (see `protocol`).
//!
//! One set of functions per thread serves every generator, which JS describes by writing the
//! call's fields into the scratch (see `protocol`): a call site that sees a single native
//! function is faster than one that sees several, so a service calling `next()` on many
//! generators from one place pays nothing for their number; and fields in the scratch cost a
//! memory read each, where arguments cost a `napi_get_value_*` each (~2 ns, 5 % of `next()`).

use std::ffi::CStr;
use std::ptr;

use napi::sys;

use super::calls::{arguments, generator, number, thread_of, thrown, with_generator, Callback};
use super::instance_tally::CallTally;
use super::protocol;
use super::thread::Thread;
use crate::clock::{self, SystemClock};
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};
use crate::js::values::error::throw_unusable;
use crate::js::values::input::clock_reading;
use crate::sync_take;

/// The id functions of 64-bit ids, by name. Each serves the generator whose call fields JS
/// wrote into the scratch just before the call (see `protocol`), and returns a report:
/// - `issue()` writes the next id by the system clock into the scratch, or throws; a time unit
///   other generators used up it waits out first (see `sync_take`);
/// - `issueAt(now)`: the same for `now`, a reading of the generator's own clock;
/// - `tryIssue()`, `tryIssueAt(now)` do the same but, where waiting would help (overflow, clock
///   behind), report how long to wait instead of throwing;
/// - `issueRun(max)`: as `tryIssue`, for up to `max` ids of one millisecond.
pub(crate) const ID_FUNCTIONS: [(&CStr, Callback); 5] = [
  (c"issue", issue),
  (c"issueAt", issue_at),
  (c"tryIssue", try_issue),
  (c"tryIssueAt", try_issue_at),
  (c"issueRun", issue_run),
];

/// `issue()`: see `ID_FUNCTIONS`.
///
/// # Safety
/// Called by N-API only, as the callback of a function made from `ID_FUNCTIONS`.
unsafe extern "C" fn issue(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
  unsafe { by_system_clock(env, info, WAITS, |err| throw_error(env, err)) }
}

/// `issueAt(now)`: see `ID_FUNCTIONS`.
///
/// # Safety
/// As `issue`.
unsafe extern "C" fn issue_at(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  unsafe { by_reading(env, info, |err| throw_error(env, err)) }
}

/// `tryIssue()`: see `ID_FUNCTIONS`.
///
/// # Safety
/// As `issue`.
unsafe extern "C" fn try_issue(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  unsafe { by_system_clock(env, info, REPORTS_WAIT, |err| wait_or_throw(env, err)) }
}

/// `tryIssueAt(now)`: see `ID_FUNCTIONS`.
///
/// # Safety
/// As `issue`.
unsafe extern "C" fn try_issue_at(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  unsafe { by_reading(env, info, |err| wait_or_throw(env, err)) }
}

/// Throws `err`; for `issue`'s refusals.
///
/// # Safety
/// `env` must be the env of the current call.
unsafe fn throw_error(env: sys::napi_env, err: FlakeError) -> sys::napi_value {
  unsafe { thrown(env, &err) }
}

/// Whether a call by the system clock waits out a time unit other generators used up (`issue`),
/// or reports the wait (`tryIssue`, whose caller waits without blocking).
pub(crate) type Waits = bool;
pub(crate) const WAITS: Waits = true;
const REPORTS_WAIT: Waits = false;

/// The next id by the system clock: see `answer`.
///
/// # Safety
/// As `issue`.
#[inline(always)]
unsafe fn by_system_clock(
  env: sys::napi_env,
  info: sys::napi_callback_info,
  waits: Waits,
  refused: impl FnOnce(FlakeError) -> sys::napi_value,
) -> sys::napi_value {
  let Some(thread) = (unsafe { thread_of(env, info) }) else {
    return unsafe { throw_unusable(env) };
  };
  let taken = {
    let slots = thread.slots.borrow();
    let Some((generator, tally)) = generator(&thread.scratch, &slots) else {
      return unsafe { throw_unusable(env) };
    };
    take_by_system_clock(&generator, tally, waits, clock::system_now_ms)
  };
  unsafe { answer(env, thread, taken, refused) }
}

/// The next id of `generator`, the one the call fields in the scratch describe, by the system
/// clock, read by `read_clock` (the first reading, and any fresh one a refusal asks for), a
/// unit other generators used up waited out if `waits`, and counted in the instance's `tally`.
/// The state machine of `issue`, for the N-API function and the WebAssembly build's plain
/// export (`wasm_exports`) alike.
#[inline(always)]
pub(crate) fn take_by_system_clock(
  generator: &Generator,
  tally: CallTally,
  waits: Waits,
  mut read_clock: impl FnMut() -> u64,
) -> Result<Ids, FlakeError> {
  let mut now_ms = 0;
  let mut taken = generator.take_by(
    || {
      now_ms = read_clock();
      Ok(now_ms)
    },
    1,
  );
  // Tested, not matched: a match moves the whole result (an error is large) on every id.
  if waits && matches!(taken, Err(FlakeError::SequenceOverflow { .. })) {
    taken = wait_out(generator, tally, now_ms, taken);
  }
  tally.count_taken(&taken);
  taken
}

/// `taken`, an overflow met for a reading of `now_ms`, waited out if other generators used
/// the unit up (see `sync_take`); off the per-id path.
#[cold]
#[inline(never)]
fn wait_out(
  generator: &Generator,
  tally: CallTally,
  now_ms: u64,
  taken: Result<Ids, FlakeError>,
) -> Result<Ids, FlakeError> {
  let Err(refusal) = taken else {
    return taken;
  };
  sync_take::wait_out(
    generator,
    tally.get(),
    1,
    &mut SystemClock::new(),
    now_ms,
    refusal,
  )
}

/// The next id for the reading passed: see `answer`.
///
/// # Safety
/// As `issue`.
unsafe fn by_reading(
  env: sys::napi_env,
  info: sys::napi_callback_info,
  refused: impl FnOnce(FlakeError) -> sys::napi_value,
) -> sys::napi_value {
  let Some((thread, Some(now))) = (unsafe { arguments(env, info) }) else {
    return unsafe { throw_unusable(env) };
  };
  // A user's clock is read exactly once per id, by JS: a scripted clock loses no reading.
  let issued = match unsafe { clock_reading(env, now) } {
    Ok(now_ms) => with_generator(thread, |generator, tally| {
      let taken = generator.take(now_ms, 1);
      tally.count_taken(&taken);
      taken
    }),
    Err(err) => Some(Err(err)),
  };
  match issued {
    Some(issued) => unsafe { answer(env, thread, issued, refused) },
    None => unsafe { throw_unusable(env) },
  }
}

/// Writes the id `issued` into the scratch and returns its report; or hands the error to
/// `refused`.
///
/// # Safety
/// `env` must be the env of the current call, and `thread` its thread.
#[inline(always)]
unsafe fn answer(
  env: sys::napi_env,
  thread: &Thread,
  issued: std::result::Result<Ids, FlakeError>,
  refused: impl FnOnce(FlakeError) -> sys::napi_value,
) -> sys::napi_value {
  match issued {
    Ok(ids) => {
      thread.scratch.write(&ids);
      match protocol::issued(&ids) {
        None => ptr::null_mut(),
        Some(report) => unsafe { number(env, report) },
      }
    }
    Err(err) => refused(err),
  }
}

/// `issueRun(max)`: see `ID_FUNCTIONS`.
///
/// # Safety
/// As `issue`.
unsafe extern "C" fn issue_run(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  let mut max = 0;
  let called = match unsafe { arguments(env, info) } {
    Some((thread, Some(max_value)))
      if unsafe { sys::napi_get_value_uint32(env, max_value, &mut max) }
        == sys::Status::napi_ok
        && max > 0 =>
    {
      with_generator(thread, |generator, tally| {
        let max = max.min(generator.ids_per_unit());
        let taken = generator.take_by(|| Ok(clock::system_now_ms()), max);
        tally.count_taken(&taken);
        taken
      })
      .map(|taken| (thread, taken))
    }
    _ => None,
  };
  match called {
    Some((thread, Ok(ids))) => {
      thread.scratch.write(&ids);
      unsafe { number(env, protocol::issued_run(&ids)) }
    }
    Some((_, Err(err))) => unsafe { wait_or_throw(env, err) },
    None => unsafe { throw_unusable(env) },
  }
}

/// The report of the wait for `err`, or throws it when waiting cannot help.
///
/// # Safety
/// `env` must be the env of the current call.
unsafe fn wait_or_throw(env: sys::napi_env, err: FlakeError) -> sys::napi_value {
  match err.wait_ms() {
    Some(ms) => unsafe { number(env, protocol::waits(&err, ms)) },
    None => unsafe { thrown(env, &err) },
  }
}

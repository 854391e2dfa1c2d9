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

use std::ffi::{c_void, CStr};
use std::ptr;

use napi::bindgen_prelude::{Object, Unknown};
use napi::sys;
use napi::{check_status, Env, Result};

use super::error::{throw, throw_unusable};
use super::input::clock_reading;
use super::protocol::{self, Scratch, PRIVATE_SLOT, SLOT_READS_FIELDS};
use super::slots::Slots;
use super::thread::Thread;
use super::wide_functions::{Callback, WIDE_FUNCTIONS};
use crate::clock;
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};

/// The thread's id functions, as an object. Each serves the generator whose call fields JS wrote
/// into the scratch just before the call (see `protocol`), and returns a report:
/// - `issue()` writes the next id by the system clock into the scratch, or throws;
/// - `issueAt(now)`: the same for `now`, a reading of the generator's own clock;
/// - `tryIssue()`, `tryIssueAt(now)` do the same but, where waiting would help (overflow, clock
///   behind), report how long to wait instead of throwing;
/// - `issueRun(max)`: as `tryIssue`, for up to `max` ids of one millisecond;
/// - and the functions of 128-bit ids (see `wide_functions`).
pub(crate) fn id_functions(env: &Env) -> Result<Object<'static>> {
  let thread = Thread::of(env)?;
  let functions: [(&CStr, Callback); 5] = [
    (c"issue", issue),
    (c"issueAt", issue_at),
    (c"tryIssue", try_issue),
    (c"tryIssueAt", try_issue_at),
    (c"issueRun", issue_run),
  ];
  let mut object = Object::new(env)?;
  for (name, callback) in functions.into_iter().chain(WIDE_FUNCTIONS) {
    let mut function = ptr::null_mut();
    // The data is the thread's instance data, which outlives every function of the env: no
    // finalizer is needed.
    check_status!(unsafe {
      sys::napi_create_function(
        env.raw(),
        name.as_ptr(),
        name.to_bytes().len() as isize,
        Some(callback),
        ptr::from_ref(thread).cast_mut().cast::<c_void>(),
        &mut function,
      )
    })?;
    object.set(name.to_str().expect("ASCII names"), unsafe {
      Unknown::from_raw_unchecked(env.raw(), function)
    })?;
  }
  Ok(object)
}

/// `issue()`: see `id_functions`.
///
/// # Safety
/// Called by N-API only, as the callback of a function made by `id_functions`.
unsafe extern "C" fn issue(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
  unsafe { by_system_clock(env, info, |err| throw_error(env, err)) }
}

/// `issueAt(now)`: see `id_functions`.
///
/// # Safety
/// As `issue`.
unsafe extern "C" fn issue_at(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  unsafe { by_reading(env, info, |err| throw_error(env, err)) }
}

/// `tryIssue()`: see `id_functions`.
///
/// # Safety
/// As `issue`.
unsafe extern "C" fn try_issue(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  unsafe { by_system_clock(env, info, |err| wait_or_throw(env, err)) }
}

/// `tryIssueAt(now)`: see `id_functions`.
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
  unsafe { throw(env, &err) };
  ptr::null_mut()
}

/// The next id by the system clock: see `answer`.
///
/// # Safety
/// As `issue`.
#[inline(always)]
unsafe fn by_system_clock(
  env: sys::napi_env,
  info: sys::napi_callback_info,
  refused: impl FnOnce(FlakeError) -> sys::napi_value,
) -> sys::napi_value {
  let Some(thread) = (unsafe { thread_of(env, info) }) else {
    return unsafe { throw_unusable(env) };
  };
  let generator = generator(&thread.scratch, &thread.slots.borrow());
  // A match, not `with_generator` or `Option::map`: their closure, big once `take_by` is
  // inlined into it, is left out of line, a call more on the per-id path.
  #[allow(clippy::manual_map)]
  let issued = match generator {
    Some(generator) => Some(generator.take_by(|| Ok(clock::system_now_ms()), 1)),
    None => None,
  };
  unsafe { answer(env, thread, issued, refused) }
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
    Ok(now_ms) => with_generator(thread, |generator| generator.take(now_ms, 1)),
    Err(err) => Some(Err(err)),
  };
  unsafe { answer(env, thread, issued, refused) }
}

/// The thread of a call that reads no argument: the OS thread's last (a memory read), else the
/// function's data.
///
/// # Safety
/// As `issue`.
#[inline(always)]
pub(super) unsafe fn thread_of(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> Option<&'static Thread> {
  match Thread::current(env) {
    Some(thread) => Some(thread),
    None => unsafe { arguments(env, info) }.map(|(thread, _)| thread),
  }
}

/// The thread of a call and its one argument, if given.
///
/// # Safety
/// As `issue`.
#[inline(always)]
pub(super) unsafe fn arguments(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> Option<(&'static Thread, Option<sys::napi_value>)> {
  let (mut argc, mut argument, mut data) = (1, ptr::null_mut(), ptr::null_mut());
  let status = unsafe {
    sys::napi_get_cb_info(
      env,
      info,
      &mut argc,
      &mut argument,
      ptr::null_mut(),
      &mut data,
    )
  };
  if status != sys::Status::napi_ok || data.is_null() {
    return None;
  }
  // `id_functions` made the function with the thread as its data.
  let thread = unsafe { &*data.cast::<Thread>() };
  Some((thread, (argc >= 1).then_some(argument)))
}

/// The generator the call fields in the scratch describe, its shared state from `slots` (the
/// thread's, borrowed by the caller for as long as it uses the generator, which calls no JS);
/// `None` if they describe none.
#[inline(always)]
pub(crate) fn generator<'a>(scratch: &'a Scratch, slots: &Slots) -> Option<Generator<'a>> {
  let slot = scratch.slot();
  if slot & SLOT_READS_FIELDS == 0 {
    let (state, settings) = slots.configuration(slot)?;
    return Some(Generator::shared(settings, *state));
  }
  if slot == PRIVATE_SLOT {
    let settings = slots.private_settings(scratch.settings_fields())?;
    return Some(Generator::private(
      &settings,
      scratch.private_state(),
      scratch.ceiling(),
    ));
  }
  let shared = slots.state(slot)?;
  let settings = shared.decoded.settings(scratch.settings_fields())?;
  Some(Generator::shared(&settings, shared.state))
}

/// Runs `take` on the generator the call fields in the scratch describe (see `generator`).
pub(crate) fn with_generator<T>(thread: &Thread, take: impl FnOnce(&Generator) -> T) -> Option<T> {
  let slots = thread.slots.borrow();
  generator(&thread.scratch, &slots).map(|generator| take(&generator))
}

/// Writes the id `issued` into the scratch and returns its report; or hands the error to
/// `refused`. `None`: the slot held no generator.
///
/// # Safety
/// `env` must be the env of the current call, and `thread` its thread.
#[inline(always)]
unsafe fn answer(
  env: sys::napi_env,
  thread: &Thread,
  issued: Option<std::result::Result<Ids, FlakeError>>,
  refused: impl FnOnce(FlakeError) -> sys::napi_value,
) -> sys::napi_value {
  match issued {
    Some(Ok(ids)) => {
      thread.scratch.write(&ids);
      match protocol::issued(&ids) {
        None => ptr::null_mut(),
        Some(report) => unsafe { number(env, report) },
      }
    }
    Some(Err(err)) => refused(err),
    None => unsafe { throw_unusable(env) },
  }
}

/// `issueRun(max)`: see `id_functions`.
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
      with_generator(thread, |generator| {
        let max = max.min(generator.ids_per_unit());
        generator.take_by(|| Ok(clock::system_now_ms()), max)
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
    None => {
      unsafe { throw(env, &err) };
      ptr::null_mut()
    }
  }
}

/// # Safety
/// `env` must be the env of the current call.
unsafe fn number(env: sys::napi_env, value: f64) -> sys::napi_value {
  let mut number = ptr::null_mut();
  if unsafe { sys::napi_create_double(env, value, &mut number) } != sys::Status::napi_ok {
    return unsafe { throw_unusable(env) };
  }
  number
}

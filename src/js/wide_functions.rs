//! The per-id path of 128-bit ids: as `id_functions`, raw N-API functions that serve the
//! generator whose call fields JS wrote into the scratch, one set per thread. Each takes an id
//! of the generator's 64-bit layout (`uuid::SHAPE` or `flake128::SHAPE`, shared by the host's
//! processes) and makes the 128-bit id of it, by the system clock:
//! - `issueUuid()` writes a UUIDv7 into the scratch (`SCRATCH_WIDE_ID`);
//! - `issueUuidString()` returns it in its canonical form instead;
//! - `issueFlake()` writes a flake of the call's worker id into the scratch;
//! - `issueFlakeBase62()` returns it in base 62 instead;
//!
//! and `issueUuidAt(now)`, … the same by `now`, a reading of the generator's own clock.
//!
//! Unlike `issue()`, none throws when the host's ids of a millisecond are used up: on the
//! system clock it spins to the next millisecond (under one), as `uuid`'s `v7()` and
//! synchronous batches never fail for that. A clock of the user's may never move, so with one
//! it throws, as `next()` does. Whatever the clock, a step back that borrowing cannot cover
//! throws: it may last for hours.

use std::ffi::CStr;
use std::ptr;

use napi::sys;

use super::error::{throw, throw_unusable};
use super::id_functions::{arguments, thread_of, with_generator};
use super::input::clock_reading;
use super::thread::Thread;
use crate::batch;
use crate::clock;
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};
use crate::{flake128, uuid};

/// What a call makes of the id it takes: a UUIDv7 or a flake, into the scratch or as a string.
type Form = u8;
const UUID: Form = 0;
const UUID_STRING: Form = 1;
const FLAKE: Form = 2;
const FLAKE_BASE62: Form = 3;

pub(super) type Callback =
  unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// The functions, by name, for `id_functions` to make.
pub(super) const WIDE_FUNCTIONS: [(&CStr, Callback); 8] = [
  (c"issueUuid", by_system_clock::<UUID>),
  (c"issueUuidString", by_system_clock::<UUID_STRING>),
  (c"issueFlake", by_system_clock::<FLAKE>),
  (c"issueFlakeBase62", by_system_clock::<FLAKE_BASE62>),
  (c"issueUuidAt", by_reading::<UUID>),
  (c"issueUuidStringAt", by_reading::<UUID_STRING>),
  (c"issueFlakeAt", by_reading::<FLAKE>),
  (c"issueFlakeBase62At", by_reading::<FLAKE_BASE62>),
];

/// A 128-bit id by the system clock, as `FORM`.
///
/// # Safety
/// Called by N-API only, as the callback of a function made by `id_functions`.
unsafe extern "C" fn by_system_clock<const FORM: Form>(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  let Some(thread) = (unsafe { thread_of(env, info) }) else {
    return unsafe { throw_unusable(env) };
  };
  let issued = with_generator(thread, |generator| {
    // Fields of another kind of generator: only a caller other than native.js writes those.
    (generator.shape() == shape(FORM)).then(|| take_waiting(generator))
  });
  unsafe { answer::<FORM>(env, thread, issued.flatten()) }
}

/// A 128-bit id by the reading passed, as `FORM`.
///
/// # Safety
/// As `by_system_clock`.
unsafe extern "C" fn by_reading<const FORM: Form>(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  let Some((thread, Some(now))) = (unsafe { arguments(env, info) }) else {
    return unsafe { throw_unusable(env) };
  };
  let issued = match unsafe { clock_reading(env, now) } {
    Ok(now_ms) => with_generator(thread, |generator| {
      (generator.shape() == shape(FORM)).then(|| generator.take(now_ms, 1))
    })
    .flatten(),
    Err(err) => Some(Err(err)),
  };
  unsafe { answer::<FORM>(env, thread, issued) }
}

const fn shape(form: Form) -> crate::layout::Shape {
  match form {
    UUID | UUID_STRING => uuid::SHAPE,
    _ => flake128::SHAPE,
  }
}

/// Makes the 128-bit id of `issued` and writes it into the scratch or returns it; or throws.
///
/// # Safety
/// `env` must be the env of the current call, and `thread` its thread.
#[inline(always)]
unsafe fn answer<const FORM: Form>(
  env: sys::napi_env,
  thread: &Thread,
  issued: Option<Result<Ids, FlakeError>>,
) -> sys::napi_value {
  let first = match issued {
    Some(Ok(Ids { first, .. })) => first,
    Some(Err(err)) => return unsafe { thrown(env, &err) },
    None => return unsafe { throw_unusable(env) },
  };
  if FORM == UUID || FORM == UUID_STRING {
    let random = thread.random.borrow_mut().next_u64();
    let id = match random {
      Ok(random) => uuid::bytes(first, random),
      Err(err) => return unsafe { thrown(env, &err) },
    };
    if FORM == UUID_STRING {
      return unsafe { latin1(env, &uuid::format(&id)) };
    }
    thread.scratch.write_wide(&id);
    return ptr::null_mut();
  }
  let Some(worker) = thread.scratch.worker() else {
    return unsafe { throw_unusable(env) };
  };
  let flake = flake128::value(first, worker);
  if FORM == FLAKE_BASE62 {
    return unsafe { latin1(env, &flake128::base62(flake)) };
  }
  thread.scratch.write_wide(&flake.to_be_bytes());
  ptr::null_mut()
}

/// One id by the system clock, spinning past a millisecond whose ids are used up (see above).
#[inline(always)]
fn take_waiting(generator: &Generator) -> Result<Ids, FlakeError> {
  match generator.take_by(|| Ok(clock::system_now_ms()), 1) {
    Err(FlakeError::SequenceOverflow { .. }) => spin(generator),
    taken_or_final => taken_or_final,
  }
}

#[cold]
#[inline(never)]
fn spin(generator: &Generator) -> Result<Ids, FlakeError> {
  let mut wait = batch::system_clock_waiter::<FlakeError>(generator.unit_ms());
  loop {
    let now = clock::system_now_ms();
    match generator.take(now, 1) {
      // Waited or not (a stale reading), the next turn reads the clock again.
      Err(err) => _ = wait(&err, now)?,
      taken => return taken,
    }
  }
}

/// Throws `err`.
///
/// # Safety
/// `env` must be the env of the current call.
unsafe fn thrown(env: sys::napi_env, err: &FlakeError) -> sys::napi_value {
  unsafe { throw(env, err) };
  ptr::null_mut()
}

/// `text` (ASCII) as a JS string.
///
/// # Safety
/// `env` must be the env of the current call.
#[inline(always)]
unsafe fn latin1(env: sys::napi_env, text: &[u8]) -> sys::napi_value {
  let mut string = ptr::null_mut();
  let status = unsafe {
    sys::napi_create_string_latin1(env, text.as_ptr().cast(), text.len() as isize, &mut string)
  };
  if status != sys::Status::napi_ok {
    return unsafe { throw_unusable(env) };
  }
  string
}

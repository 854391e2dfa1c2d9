//! What the raw N-API functions of the per-id path share (`id_functions`, `wide_functions`):
//! making them, finding a call's thread and argument, the generator the call fields in the
//! scratch describe, and answering with a number, a string or an error.

use std::ffi::{c_void, CStr};
use std::ptr;

use napi::bindgen_prelude::{Object, Unknown};
use napi::sys;
use napi::{check_status, Env, Result};

use super::instance_tally::CallTally;
use super::protocol::{Scratch, PRIVATE_SLOT, SLOT_FENCED, SLOT_READS_FIELDS};
use super::slots::Slots;
use super::thread::Thread;
use crate::error::FlakeError;
use crate::generator::Generator;
use crate::js::values::error::{throw, throw_unusable};

/// A raw N-API function's callback.
pub(crate) type Callback =
  unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// `functions` as an object of plain N-API functions with the thread as their data.
pub(crate) fn make(env: &Env, functions: &[(&CStr, Callback)]) -> Result<Object<'static>> {
  let thread = Thread::of(env)?;
  let mut object = Object::new(env)?;
  for &(name, callback) in functions {
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

/// The thread of a call that reads no argument: the OS thread's last (a memory read), else the
/// function's data.
///
/// # Safety
/// Called from the callback of a function made by `make`, with its arguments.
#[inline(always)]
pub(crate) unsafe fn thread_of(
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
/// As `thread_of`.
#[inline(always)]
pub(crate) unsafe fn arguments(
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
  // `make` made the function with the thread as its data.
  let thread = unsafe { &*data.cast::<Thread>() };
  Some((thread, (argc >= 1).then_some(argument)))
}

/// The generator the call fields in the scratch describe, its shared state from `slots` (the
/// thread's, borrowed by the caller for as long as it uses the generator, which calls no JS),
/// with the call instance's tally; `None` if they describe none.
#[inline(always)]
pub(crate) fn generator<'a, 's>(
  scratch: &'a Scratch,
  slots: &'s Slots,
) -> Option<(Generator<'a>, CallTally<'s>)> {
  let slot = scratch.slot();
  let instance = scratch.instance();
  // One test for the usual slot, as before leases had slots of their own: a plain generator
  // pays nothing for the ceiling it does not have.
  if slot & (SLOT_READS_FIELDS | SLOT_FENCED) == 0 {
    let configuration = slots.configuration(slot)?;
    return Some((
      Generator::shared(&configuration.settings, configuration.state),
      CallTally::new(Some(&configuration.tally), instance),
    ));
  }
  if slot == PRIVATE_SLOT {
    let settings = slots.private_settings(scratch.settings_fields())?;
    return Some((
      Generator::private(&settings, scratch.private_state(), scratch.ceiling()),
      CallTally::new(None, instance),
    ));
  }
  let generator = match slot & !SLOT_FENCED {
    slot if slot & SLOT_READS_FIELDS == 0 => {
      let configuration = slots.configuration(slot)?;
      Generator::shared(&configuration.settings, configuration.state)
    }
    slot => {
      let shared = slots.state(slot)?;
      let settings = shared.decoded.settings(scratch.settings_fields())?;
      Generator::shared(&settings, shared.state)
    }
  };
  // A leased generator on its id's shared state: fenced by its own lease's ceiling.
  let generator = match slot & SLOT_FENCED {
    0 => generator,
    _ => generator.fenced(scratch.ceiling()),
  };
  Some((generator, CallTally::new(slots.tally(slot), instance)))
}

/// Runs `take` on the generator the call fields in the scratch describe (see `generator`), with
/// the call instance's tally.
pub(crate) fn with_generator<T>(
  thread: &Thread,
  take: impl FnOnce(&Generator, CallTally) -> T,
) -> Option<T> {
  let slots = thread.slots.borrow();
  generator(&thread.scratch, &slots).map(|(generator, tally)| take(&generator, tally))
}

/// Throws `err`.
///
/// # Safety
/// `env` must be the env of the current call.
pub(crate) unsafe fn thrown(env: sys::napi_env, err: &FlakeError) -> sys::napi_value {
  unsafe { throw(env, err) };
  ptr::null_mut()
}

/// `value` as a JS number.
///
/// # Safety
/// `env` must be the env of the current call.
pub(crate) unsafe fn number(env: sys::napi_env, value: f64) -> sys::napi_value {
  let mut number = ptr::null_mut();
  if unsafe { sys::napi_create_double(env, value, &mut number) } != sys::Status::napi_ok {
    return unsafe { throw_unusable(env) };
  }
  number
}

/// `text` (ASCII) as a JS string.
///
/// # Safety
/// `env` must be the env of the current call.
#[inline(always)]
pub(crate) unsafe fn latin1(env: sys::napi_env, text: &[u8]) -> sys::napi_value {
  let mut string = ptr::null_mut();
  let status = unsafe {
    sys::napi_create_string_latin1(env, text.as_ptr().cast(), text.len() as isize, &mut string)
  };
  if status != sys::Status::napi_ok {
    return unsafe { throw_unusable(env) };
  }
  string
}

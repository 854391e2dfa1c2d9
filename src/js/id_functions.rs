//! The per-id path. napi-rs class methods cost ~400 ns a call and a Buffer made on the native
//! side 1-2 µs (bench/README.md, "What a call into Rust costs"), more than flake-idgen spends on
//! a whole id, so ids come from plain N-API functions instead: no `this` to unwrap, one or two
//! numbers to read, and the id written into the thread's scratch for JS to copy into a Buffer
//! of its own (see `protocol`).
//!
//! One set of functions per thread serves every generator, which JS names by its slot: a call
//! site that sees a single native function is faster than one that sees several, so a service
//! calling `next()` on many generators from one place pays nothing for their number.

use std::ffi::{c_void, CStr};
use std::ptr;

use napi::bindgen_prelude::{Object, Unknown};
use napi::sys;
use napi::{check_status, Env, Result};

use super::error::throw;
use super::input::clock_reading;
use super::protocol;
use super::thread::Thread;
use crate::clock;
use crate::error::FlakeError;
use crate::generator::Generator;
use crate::layout::MAX_SEQUENCE;

/// The thread's id functions, as an object (`now`: a reading of the generator's own clock;
/// none means the system clock; each returns a report, see `protocol`):
/// - `fill(slot, now?)` writes the next id into the scratch, or throws;
/// - `tryFill(slot, now?)` does the same but, where waiting would help (overflow, clock
///   behind), reports how long to wait instead of throwing;
/// - `fillRun(slot, max)` (system clock only): as `tryFill`, for up to `max` ids of one
///   millisecond.
pub(crate) fn id_functions(env: &Env) -> Result<Object<'static>> {
  let thread = Thread::of(env)?;
  let functions: [(&CStr, Callback); 3] = [
    (c"fill", fill),
    (c"tryFill", try_fill),
    (c"fillRun", fill_run),
  ];
  let mut object = Object::new(env)?;
  for (name, callback) in functions {
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

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// `fill(slot, now?)`: see `id_functions`.
///
/// # Safety
/// Called by N-API only, as the callback of a function made by `id_functions`.
unsafe extern "C" fn fill(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
  unsafe {
    issue(env, info, |err| {
      throw(env, &err);
      ptr::null_mut()
    })
  }
}

/// `tryFill(slot, now?)`: see `id_functions`.
///
/// # Safety
/// As `fill`.
unsafe extern "C" fn try_fill(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  unsafe { issue(env, info, |err| wait_or_throw(env, err)) }
}

/// The arguments of a call: the thread, the slot and the second argument, if given.
///
/// # Safety
/// As `fill`.
#[inline(always)]
unsafe fn arguments(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> Option<(&'static Thread, u32, Option<sys::napi_value>)> {
  let (mut argc, mut argv, mut data) = (2, [ptr::null_mut(); 2], ptr::null_mut());
  let mut slot = 0;
  let read = unsafe {
    sys::napi_get_cb_info(
      env,
      info,
      &mut argc,
      argv.as_mut_ptr(),
      ptr::null_mut(),
      &mut data,
    ) == sys::Status::napi_ok
      && argc >= 1
      && sys::napi_get_value_uint32(env, argv[0], &mut slot) == sys::Status::napi_ok
  };
  if !read || data.is_null() {
    return None;
  }
  // `id_functions` made the function with the thread as its data.
  let thread = unsafe { &*data.cast::<Thread>() };
  Some((thread, slot, (argc >= 2).then_some(argv[1])))
}

/// Runs `take` on the generator of the call's slot, without keeping the slots borrowed past it.
#[inline(always)]
fn with_generator<T>(thread: &Thread, slot: u32, take: impl FnOnce(&Generator) -> T) -> Option<T> {
  thread.slots.borrow().get(slot).map(take)
}

/// Writes the next id into the scratch and returns its report; or hands the error to `refused`.
///
/// # Safety
/// As `fill`.
#[inline(always)]
unsafe fn issue(
  env: sys::napi_env,
  info: sys::napi_callback_info,
  refused: impl FnOnce(FlakeError) -> sys::napi_value,
) -> sys::napi_value {
  let Some((thread, slot, now)) = (unsafe { arguments(env, info) }) else {
    return unsafe { unusable_call(env) };
  };
  let issued = match now {
    None => with_generator(thread, slot, |generator| {
      generator.take_by(|| Ok(clock::system_now_ms()), 1)
    }),
    // A user's clock is read exactly once per id, by JS: a scripted clock loses no reading.
    Some(now) => match unsafe { clock_reading(env, now) } {
      Ok(now_ms) => with_generator(thread, slot, |generator| generator.take(now_ms, 1)),
      Err(err) => Some(Err(err)),
    },
  };
  match issued {
    Some(Ok(ids)) => unsafe {
      thread.scratch.write(&ids);
      match protocol::issued(&ids) {
        None => ptr::null_mut(),
        Some(report) => number(env, report),
      }
    },
    Some(Err(err)) => refused(err),
    None => unsafe { unusable_call(env) },
  }
}

/// `fillRun(slot, max)`: see `id_functions`.
///
/// # Safety
/// As `fill`.
unsafe extern "C" fn fill_run(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  let mut max = 0;
  let called = match unsafe { arguments(env, info) } {
    Some((thread, slot, Some(max_value)))
      if unsafe { sys::napi_get_value_uint32(env, max_value, &mut max) }
        == sys::Status::napi_ok
        && max > 0 =>
    {
      let max = max.min(u32::from(MAX_SEQUENCE) + 1) as u16;
      with_generator(thread, slot, |generator| {
        generator.take_by(|| Ok(clock::system_now_ms()), max)
      })
      .map(|taken| (thread, taken))
    }
    _ => None,
  };
  match called {
    Some((thread, Ok(ids))) => unsafe {
      thread.scratch.write(&ids);
      number(env, protocol::issued_run(&ids))
    },
    Some((_, Err(err))) => unsafe { wait_or_throw(env, err) },
    None => unsafe { unusable_call(env) },
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
    return unsafe { unusable_call(env) };
  }
  number
}

/// Throws for a call that cannot be served: an N-API failure, or a slot or argument that only
/// a caller other than `native.js` could pass. Returning `undefined` instead would read as
/// success, and JS would hand out the id already in the scratch a second time.
///
/// # Safety
/// `env` must be the env of the current call.
unsafe fn unusable_call(env: sys::napi_env) -> sys::napi_value {
  unsafe {
    sys::napi_throw_error(
      env,
      ptr::null(),
      c"flake-idgen-rs: unusable call of an id function, no id issued".as_ptr(),
    )
  };
  ptr::null_mut()
}

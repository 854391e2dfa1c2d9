//! The per-id path. napi-rs class methods cost ~400 ns a call and a native Buffer ~1-2 µs
//! (DESIGN §5), more than flake-idgen spends on a whole id, so ids come from plain N-API
//! functions instead: no `this` to unwrap, at most one number to read, and the ids written
//! big-endian into the env's scratch Buffer for JS to copy into Buffers of their own.
//!
//! The functions belong to a generator, not to a `FlakeId`: `index.js` shares them between
//! instances of the same configuration, so that an instance costs no native memory, and keeps
//! each instance's counters itself from what the functions report (`report`).

use std::ffi::{c_void, CStr};
use std::ptr;

use napi::bindgen_prelude::{Object, Unknown};
use napi::sys;
use napi::{check_status, Env, Result};

use super::error::throw;
use super::handle::GeneratorHandle;
use super::input::describe;
use super::report;
use super::scratch::{Scratch, RUN_IDS};
use crate::clock;
use crate::error::FlakeError;
use crate::generator::{Generator, Ids};
use crate::input::Input;

/// What each function holds: its generator and where to write.
struct IdSource {
  generator: Generator,
  scratch: *mut u8,
}

/// The functions of `generator`, as an object:
/// - `fill(now?)` writes the next id into the scratch Buffer or throws; returns `undefined`, or
///   a report when the id was borrowed ahead of the clock;
/// - `tryFill(now?)` does the same but, where waiting would help (overflow, clock behind),
///   reports how long to wait instead of throwing;
/// - `fillRun(max)` (system clock only): as `tryFill`, for up to `max` ids of one millisecond;
/// - `batches`: the generator's `GeneratorHandle`.
///
/// `now` is a reading of the instance's own clock; none means the system clock.
pub(crate) fn id_source(env: &Env, generator: Generator) -> Result<Object<'static>> {
  let scratch = Scratch::of(env)?.bytes;
  let functions: [(&CStr, Callback); 3] = [
    (c"fill", fill),
    (c"tryFill", try_fill),
    (c"fillRun", fill_run),
  ];
  let mut source = Object::new(env)?;
  for (name, callback) in functions {
    let data = IdSource {
      generator: generator.clone(),
      scratch,
    };
    let function = create(env, name, callback, data)?;
    source.set(
      name.to_str().expect("ASCII names"),
      raw_value(env, function),
    )?;
  }
  source.set("batches", GeneratorHandle::new(generator))?;
  Ok(source)
}

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

/// A value created through raw N-API, in the form napi-rs sets as a property.
fn raw_value(env: &Env, value: sys::napi_value) -> Unknown<'static> {
  unsafe { Unknown::from_raw_unchecked(env.raw(), value) }
}

/// A named N-API function running `callback` with `source`, which is freed with the function.
fn create(env: &Env, name: &CStr, callback: Callback, source: IdSource) -> Result<sys::napi_value> {
  let source = Box::into_raw(Box::new(source)).cast::<c_void>();
  let mut function = ptr::null_mut();
  let created = check_status!(unsafe {
    sys::napi_create_function(
      env.raw(),
      name.as_ptr(),
      name.to_bytes().len() as isize,
      Some(callback),
      source,
      &mut function,
    )
  });
  if let Err(err) = created {
    drop(unsafe { Box::from_raw(source.cast::<IdSource>()) });
    return Err(err);
  }
  // Should this fail the source leaks: freeing it while the function can still run is worse.
  check_status!(unsafe {
    sys::napi_add_finalizer(
      env.raw(),
      function,
      source,
      Some(drop_source),
      ptr::null_mut(),
      ptr::null_mut(),
    )
  })?;
  Ok(function)
}

unsafe extern "C" fn drop_source(_env: sys::napi_env, source: *mut c_void, _hint: *mut c_void) {
  drop(unsafe { Box::from_raw(source.cast::<IdSource>()) });
}

/// `fill(now?)`: see `id_source`.
unsafe extern "C" fn fill(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
  unsafe {
    issue(env, info, |_, err| {
      throw(env, &err);
      ptr::null_mut()
    })
  }
}

/// `tryFill(now?)`: see `id_source`.
unsafe extern "C" fn try_fill(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  unsafe { issue(env, info, |_, err| wait_or_throw(env, err)) }
}

/// Writes the next id into the scratch (see `Scratch`) and returns `undefined` (a null `napi_value`), or its
/// report if it was borrowed; or hands the error to `refused`.
#[inline(always)]
unsafe fn issue(
  env: sys::napi_env,
  info: sys::napi_callback_info,
  refused: impl FnOnce(&IdSource, FlakeError) -> sys::napi_value,
) -> sys::napi_value {
  let (mut argc, mut now, mut source) = (1, ptr::null_mut(), ptr::null_mut());
  let status =
    unsafe { sys::napi_get_cb_info(env, info, &mut argc, &mut now, ptr::null_mut(), &mut source) };
  if status != sys::Status::napi_ok {
    return unsafe { unusable_call(env) };
  }
  let source = unsafe { &*source.cast::<IdSource>() };
  let generator = &source.generator;
  let issued = if argc == 0 {
    generator.take_by(|| Ok(clock::system_now_ms()), 1)
  } else {
    // A user's clock is read exactly once per id: a scripted clock must not lose readings.
    unsafe { clock_reading(env, now) }.and_then(|now_ms| generator.take(now_ms, 1))
  };
  match issued {
    Ok(ids) => {
      // Big-endian for the Buffers, and again in the platform's order for `nextBigInt()`: a
      // BigUint64Array reads that faster than a DataView reads big-endian.
      let [be, ne] = [ids.first.to_be_bytes(), ids.first.to_ne_bytes()];
      unsafe { source.scratch.cast::<[[u8; 8]; 2]>().write([be, ne]) };
      match ids.met {
        None => ptr::null_mut(),
        Some(_) => unsafe { reported(env, &ids) },
      }
    }
    Err(err) => refused(source, err),
  }
}

/// `fillRun(max)`: see `id_source`.
unsafe extern "C" fn fill_run(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  let (mut argc, mut max, mut source) = (1, ptr::null_mut(), ptr::null_mut());
  let mut max_ids = 0;
  let read = unsafe {
    sys::napi_get_cb_info(env, info, &mut argc, &mut max, ptr::null_mut(), &mut source)
      == sys::Status::napi_ok
      && argc == 1
      && sys::napi_get_value_uint32(env, max, &mut max_ids) == sys::Status::napi_ok
  };
  if !read || max_ids == 0 {
    return unsafe { unusable_call(env) };
  }
  let source = unsafe { &*source.cast::<IdSource>() };
  let max = max_ids.min(RUN_IDS as u32) as u16;
  match source.generator.take_by(|| Ok(clock::system_now_ms()), max) {
    Ok(ids) => {
      let run = unsafe { std::slice::from_raw_parts_mut(source.scratch, RUN_IDS * 8) };
      ids.write_be(run);
      unsafe { reported(env, &ids) }
    }
    Err(err) => unsafe { wait_or_throw(env, err) },
  }
}

/// The report of `ids`, as a JS number.
unsafe fn reported(env: sys::napi_env, ids: &Ids) -> sys::napi_value {
  unsafe { number(env, report::issued(ids.count, ids.met)) }
}

/// The report of the wait for `err`, or throws it when waiting cannot help.
unsafe fn wait_or_throw(env: sys::napi_env, err: FlakeError) -> sys::napi_value {
  match err.wait_ms() {
    Some(ms) => unsafe { number(env, report::waits(&err, ms)) },
    None => {
      unsafe { throw(env, &err) };
      ptr::null_mut()
    }
  }
}

unsafe fn number(env: sys::napi_env, value: f64) -> sys::napi_value {
  let mut number = ptr::null_mut();
  if unsafe { sys::napi_create_double(env, value, &mut number) } != sys::Status::napi_ok {
    return unsafe { unusable_call(env) };
  }
  number
}

/// Throws for an N-API failure. Returning `undefined` instead would read as success, and JS
/// would hand out the id already in the scratch a second time.
unsafe fn unusable_call(env: sys::napi_env) -> sys::napi_value {
  unsafe {
    sys::napi_throw_error(
      env,
      ptr::null(),
      c"flake-idgen-rs: N-API call failed, no id issued".as_ptr(),
    )
  };
  ptr::null_mut()
}

/// What a `clock` function returned, as ms since 1970.
pub(crate) unsafe fn clock_reading(
  env: sys::napi_env,
  value: sys::napi_value,
) -> std::result::Result<u64, FlakeError> {
  let mut ms = 0.0;
  if unsafe { sys::napi_get_value_double(env, value, &mut ms) } == sys::Status::napi_ok {
    return clock::from_js_ms(ms);
  }
  let got = unsafe { describe(env, value) }.unwrap_or(Input::Other("an unreadable value"));
  Err(FlakeError::ClockType { got })
}

//! The per-id path. napi-rs class methods cost ~400 ns a call and a native Buffer ~1-2 µs
//! (DESIGN §5), more than flake-idgen spends on a whole id, so each generator gets two plain
//! N-API functions instead: no `this` to unwrap, at most one number to read, and the id written
//! big-endian into the env's scratch Buffer for JS to copy into a Buffer of its own.
//!
//! Both take the clock reading as an optional argument: none means the system clock.

use std::ffi::{c_void, CStr};
use std::ptr;

use napi::sys;
use napi::{check_status, Env, Result};

use super::error::throw;
use super::input::describe;
use super::scratch::Scratch;
use crate::clock;
use crate::error::FlakeError;
use crate::generator::Generator;
use crate::input::Input;

/// What each id function holds: its generator and where to write.
struct IdSource {
  generator: Generator,
  scratch: *mut u8,
}

/// Creates `[fill, tryFill]` for `generator`:
/// - `fill(now?)` writes the next id into the scratch Buffer or throws;
/// - `tryFill(now?)` does the same but, where waiting would help (overflow, clock behind),
///   returns how many ms the clock must advance instead of throwing.
pub(crate) fn id_functions(
  env: &Env,
  generator: &Generator,
) -> Result<(sys::napi_value, sys::napi_value)> {
  let scratch = Scratch::of(env)?.bytes;
  let source = || IdSource {
    generator: generator.clone(),
    scratch,
  };
  Ok((
    create(env, c"fill", fill, source())?,
    create(env, c"tryFill", try_fill, source())?,
  ))
}

/// A named N-API function running `callback` with `source`, which is freed with the function.
fn create(
  env: &Env,
  name: &CStr,
  callback: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value,
  source: IdSource,
) -> Result<sys::napi_value> {
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

/// `fill(now?)`: see `id_functions`.
unsafe extern "C" fn fill(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
  unsafe {
    issue(env, info, false, |source, err| {
      source.generator.stats().refused(&err);
      throw(env, &err);
      ptr::null_mut()
    })
  }
}

/// `tryFill(now?)`: see `id_functions`.
unsafe extern "C" fn try_fill(
  env: sys::napi_env,
  info: sys::napi_callback_info,
) -> sys::napi_value {
  unsafe {
    issue(env, info, true, |source, err| match err.wait_ms() {
      Some(ms) => {
        source.generator.stats().waiting(&err);
        let mut wait = ptr::null_mut();
        if sys::napi_create_double(env, ms as f64, &mut wait) != sys::Status::napi_ok {
          return unusable_call(env);
        }
        wait
      }
      None => {
        throw(env, &err);
        ptr::null_mut()
      }
    })
  }
}

/// Writes the next id into the scratch and returns `undefined` (a null `napi_value`), or hands
/// the error to `refused`. `waited_for` is set for `tryFill`, whose caller may be the call
/// waiting at the head of `next(cb)`'s queue.
#[inline(always)]
unsafe fn issue(
  env: sys::napi_env,
  info: sys::napi_callback_info,
  waited_for: bool,
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
      generator.stats().issued(&ids);
      if waited_for {
        generator.stats().answered();
      }
      unsafe {
        source
          .scratch
          .cast::<[u8; 8]>()
          .write(ids.first.to_be_bytes())
      };
      ptr::null_mut()
    }
    Err(err) => refused(source, err),
  }
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

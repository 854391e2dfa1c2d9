//! Reads JS values into `Input`s, the N-API-free form the option and clock checks take.

use std::ffi::CStr;
use std::ptr;

use napi::bindgen_prelude::{FromNapiValue, Unknown};
use napi::sys::{self, ValueType};
use napi::{check_status, Env, JsValue, Result};

use super::error::thrown;
use crate::error::FlakeError;
use crate::input::Input;
use crate::options::RawOptions;

/// # Safety
/// `env` and `value` must belong to the current call.
pub(crate) unsafe fn describe(env: sys::napi_env, value: sys::napi_value) -> Result<Input> {
  let mut kind = 0;
  check_status!(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
  Ok(match kind {
    ValueType::napi_undefined => Input::Undefined,
    ValueType::napi_null => Input::Null,
    ValueType::napi_boolean => Input::Bool(unsafe { bool::from_napi_value(env, value) }?),
    ValueType::napi_number => Input::Number(unsafe { f64::from_napi_value(env, value) }?),
    ValueType::napi_string => Input::String(unsafe { String::from_napi_value(env, value) }?),
    ValueType::napi_function => Input::Function,
    ValueType::napi_object => {
      let (mut is_date, mut is_array) = (false, false);
      check_status!(unsafe { sys::napi_is_date(env, value, &mut is_date) })?;
      check_status!(unsafe { sys::napi_is_array(env, value, &mut is_array) })?;
      if is_date {
        let mut ms = 0.0;
        check_status!(unsafe { sys::napi_get_date_value(env, value, &mut ms) })?;
        Input::Date(ms)
      } else if is_array {
        Input::Other("an array")
      } else {
        Input::Object
      }
    }
    ValueType::napi_symbol => Input::Other("a symbol"),
    ValueType::napi_bigint => Input::Other("a bigint"),
    _ => Input::Other("an external value"),
  })
}

/// Reads the options argument of the constructor. `undefined` and `null` are no options.
pub(crate) fn read_options(env: &Env, options: Unknown) -> Result<RawOptions> {
  let options = options.raw();
  match unsafe { describe(env.raw(), options) }? {
    unset if unset.is_unset() => return Ok(RawOptions::default()),
    Input::Object => {}
    got => return Err(thrown(env, FlakeError::OptionsNotObject { got })),
  }
  let property = |name: &CStr| -> Result<Input> {
    let mut value = ptr::null_mut();
    // A getter on the user's object may throw: the status carries the pending exception.
    check_status!(unsafe {
      sys::napi_get_named_property(env.raw(), options, name.as_ptr(), &mut value)
    })?;
    unsafe { describe(env.raw(), value) }
  };
  Ok(RawOptions {
    id: property(c"id")?,
    datacenter: property(c"datacenter")?,
    worker: property(c"worker")?,
    epoch: property(c"epoch")?,
    seq_mask: property(c"seqMask")?,
    clock: property(c"clock")?,
  })
}

//! The one place a `FlakeError` becomes a JS error: its class from `kind()`, its `code`
//! property from `code()`, its message from `Display`.

use std::ffi::CStr;
use std::ptr;

use napi::{sys, Env, JsError, JsRangeError, JsTypeError, Status};

use crate::error::{ErrorKind, FlakeError};

/// The error of a call only a caller other than `lib/binding/native.js` could make (a slot, an argument
/// or a Buffer it never passes), or that N-API failed to serve. Thrown, never answered: an
/// answer would read as success, and JS would hand out the id already in the scratch again.
pub(crate) const UNUSABLE: &CStr = c"flake-idgen-rs: unusable call of a native function (only lib/binding/native.js calls them), nothing issued";

/// `UNUSABLE`, for `#[napi]` functions to return.
#[cold]
pub(crate) fn unusable() -> napi::Error {
  napi::Error::new(Status::InvalidArg, UNUSABLE.to_string_lossy())
}

/// Throws `UNUSABLE`, for the raw id functions, which have no napi-rs to hand an error to.
///
/// # Safety
/// `env` must be the env of the current call.
#[cold]
pub(crate) unsafe fn throw_unusable(env: sys::napi_env) -> sys::napi_value {
  unsafe { sys::napi_throw_error(env, ptr::null(), UNUSABLE.as_ptr()) };
  ptr::null_mut()
}

/// `err` as a JS error object, not thrown (null should the env be unable to make one).
///
/// # Safety
/// `env` must be the env of the current call.
pub(crate) unsafe fn error_value(env: sys::napi_env, err: &FlakeError) -> sys::napi_value {
  let error = napi::Error::new(err.code(), err.to_string());
  unsafe {
    match err.kind() {
      ErrorKind::Error => JsError::from(error).into_value(env),
      ErrorKind::TypeError => JsTypeError::from(error).into_value(env),
      ErrorKind::RangeError => JsRangeError::from(error).into_value(env),
    }
  }
}

/// Throws `err` into `env`.
///
/// # Safety
/// `env` must be the env of the current call.
pub(crate) unsafe fn throw(env: sys::napi_env, err: &FlakeError) {
  let error = unsafe { error_value(env, err) };
  if !error.is_null() {
    unsafe { sys::napi_throw(env, error) };
  }
}

/// For `#[napi]` functions: throws `err` and returns the error that tells napi-rs an exception
/// is already pending, so it is not replaced by a generic one.
pub(crate) fn thrown(env: &Env, err: FlakeError) -> napi::Error {
  unsafe { throw(env.raw(), &err) };
  napi::Error::from_status(Status::PendingException)
}

/// Why a `#[napi]` function failed: an error of ours, or one N-API already reported (a pending
/// exception from the user's clock, say).
pub(crate) enum CallError {
  Flake(FlakeError),
  Napi(napi::Error),
}

impl From<FlakeError> for CallError {
  fn from(err: FlakeError) -> Self {
    Self::Flake(err)
  }
}

impl From<napi::Error> for CallError {
  fn from(err: napi::Error) -> Self {
    Self::Napi(err)
  }
}

impl CallError {
  /// The error for napi-rs to return, ours thrown first.
  pub(crate) fn into_napi(self, env: &Env) -> napi::Error {
    match self {
      Self::Flake(err) => thrown(env, err),
      Self::Napi(err) => err,
    }
  }
}

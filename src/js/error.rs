//! The one place a `FlakeError` becomes a thrown JS error: its class from `kind()`, its
//! `code` property from `code()`, its message from `Display`.

use napi::{sys, Env, JsError, JsRangeError, JsTypeError, Status};

use crate::error::{ErrorKind, FlakeError};

/// Throws `err` into `env`.
///
/// # Safety
/// `env` must be the env of the current call.
pub(crate) unsafe fn throw(env: sys::napi_env, err: &FlakeError) {
  let error = napi::Error::new(err.code(), err.to_string());
  unsafe {
    match err.kind() {
      ErrorKind::Error => JsError::from(error).throw_into(env),
      ErrorKind::TypeError => JsTypeError::from(error).throw_into(env),
      ErrorKind::RangeError => JsRangeError::from(error).throw_into(env),
    }
  }
}

/// For `#[napi]` functions: throws `err` and returns the error that tells napi-rs an exception
/// is already pending, so it is not replaced by a generic one.
pub(crate) fn thrown(env: &Env, err: FlakeError) -> napi::Error {
  unsafe { throw(env.raw(), &err) };
  napi::Error::from_status(Status::PendingException)
}

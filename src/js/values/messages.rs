//! The package's wording of bad values, for the JS modules that check arguments of their own
//! (the lease options, `nextBatchAsync`'s options, the command): one template, `FlakeError`'s,
//! and one way to show a value, `Input`'s, whichever side checks.

use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue, Result};
use napi_derive::napi;

use super::error::error_value;
use super::input::describe;
use crate::error::FlakeError;

/// `value` as error messages show it: `"text"` (cut to 40 characters), `5`, `an object`, …
#[napi(ts_args_type = "value: unknown")]
pub fn describe_value(env: Env, value: Unknown) -> Result<String> {
  Ok(unsafe { describe(env.raw(), value.raw()) }?.to_string())
}

/// A bad option, as the constructor reports one (not thrown): "option `name` must be
/// {expected}, got {value}", code `ERR_FLAKE_INVALID_OPTION`; a `RangeError` when `outOfRange`
/// (a value of the right type outside what it may be), else a `TypeError`.
#[napi(
  ts_args_type = "option: string, expected: string, got: unknown, outOfRange: boolean",
  ts_return_type = "TypeError | RangeError"
)]
pub fn invalid_option<'env>(
  env: &'env Env,
  option: String,
  expected: String,
  got: Unknown<'env>,
  out_of_range: bool,
) -> Result<Unknown<'env>> {
  let got = unsafe { describe(env.raw(), got.raw()) }?;
  let err = if out_of_range {
    FlakeError::OptionRange {
      option: option.into(),
      expected,
      got,
    }
  } else {
    FlakeError::OptionType {
      option: option.into(),
      expected,
      got,
    }
  };
  Ok(unsafe { error_object(env, &err) })
}

/// A bad function argument, as Node reports one (not thrown): "The "name" argument must be
/// {expected}, got {value}", a `TypeError` with code `ERR_INVALID_ARG_TYPE`.
#[napi(
  ts_args_type = "argument: string, expected: string, got: unknown",
  ts_return_type = "TypeError"
)]
pub fn invalid_argument<'env>(
  env: &'env Env,
  argument: String,
  expected: String,
  got: Unknown<'env>,
) -> Result<Unknown<'env>> {
  let err = FlakeError::ArgumentType {
    argument: argument.into(),
    expected,
    got: unsafe { describe(env.raw(), got.raw()) }?,
  };
  Ok(unsafe { error_object(env, &err) })
}

/// A function argument of the right type out of range, as Node reports one (not thrown): "The
/// "name" argument must be {expected}, got {value}", a `RangeError` with code `ERR_OUT_OF_RANGE`.
#[napi(
  ts_args_type = "argument: string, expected: string, got: unknown",
  ts_return_type = "RangeError"
)]
pub fn argument_out_of_range<'env>(
  env: &'env Env,
  argument: String,
  expected: String,
  got: Unknown<'env>,
) -> Result<Unknown<'env>> {
  let err = FlakeError::ArgumentRange {
    argument: argument.into(),
    expected,
    got: unsafe { describe(env.raw(), got.raw()) }?,
  };
  Ok(unsafe { error_object(env, &err) })
}

/// An options argument that is not an object, as the constructor reports one (not thrown):
/// "options must be an object, got {value}", a `TypeError` with code `ERR_FLAKE_INVALID_OPTION`.
#[napi(ts_args_type = "got: unknown", ts_return_type = "TypeError")]
pub fn invalid_options<'env>(env: &'env Env, got: Unknown<'env>) -> Result<Unknown<'env>> {
  let err = FlakeError::OptionsNotObject {
    got: unsafe { describe(env.raw(), got.raw()) }?,
  };
  Ok(unsafe { error_object(env, &err) })
}

/// `err` as a JS error object, for a function to return.
///
/// # Safety
/// `env` must be the env of the current call.
unsafe fn error_object<'env>(env: &'env Env, err: &FlakeError) -> Unknown<'env> {
  unsafe { Unknown::from_raw_unchecked(env.raw(), error_value(env.raw(), err)) }
}

/// The option of `known` that `name`, an option not among them, most likely meant (the rules
/// of `options::unknown::nearest`), or none: for the JS modules that refuse options of their
/// own by name (the lease's), so that every suggestion is made one way.
#[napi]
pub fn nearest_option(name: String, known: Vec<String>) -> Option<String> {
  let known: Vec<&str> = known.iter().map(String::as_str).collect();
  crate::options::unknown::nearest(&name, &known).map(str::to_string)
}

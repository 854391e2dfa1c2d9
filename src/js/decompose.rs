//! `FlakeId.decompose` and `FlakeId.fromTime`: reading ids back into their parts.

use napi::bindgen_prelude::{BigInt, Object, Unknown};
use napi::{Env, JsValue, Result};
use napi_derive::napi;

use super::error::thrown;
use super::input::{bytes, describe, property};
use crate::decompose::{self, ID_EXPECTED, OPTIONS_EXPECTED};
use crate::error::FlakeError;
use crate::input::Input;

/// The parts of an id given as a Buffer of 8 bytes, a bigint, a decimal string or a
/// `0x`-prefixed hex string: `timestamp` (ms since 1970, the epoch added back), `date`,
/// `datacenter`, `worker`, `id` (the 10-bit generator id) and `sequence`.
#[napi(
  ts_args_type = "id: unknown, options?: unknown",
  ts_return_type = "{ timestamp: number; date: Date; datacenter: number; worker: number; id: number; sequence: number }"
)]
pub fn decompose(env: Env, id: Unknown, options: Option<Unknown>) -> Result<Object<'static>> {
  let epoch = epoch_option(&env, options)?;
  let got = unsafe { describe(env.raw(), id.raw()) }?;
  let number = match &got {
    Input::Bytes(8) => match unsafe { bytes(env.raw(), id.raw()) }?.map(<[u8; 8]>::try_from) {
      Some(Ok(bytes)) => Ok(u64::from_be_bytes(bytes)),
      // `describe` saw 8 bytes of a Uint8Array: not reached, but never read as a zero id.
      _ => Err(FlakeError::ArgumentType {
        argument: "id".into(),
        expected: ID_EXPECTED.into(),
        got: got.clone(),
      }),
    },
    Input::String(text) => decompose::parse(text),
    Input::BigInt(digits) => digits.parse().map_err(|_| FlakeError::ArgumentRange {
      argument: "id".into(),
      expected: ID_EXPECTED.into(),
      got: got.clone(),
    }),
    Input::Bytes(_) => Err(FlakeError::ArgumentRange {
      argument: "id".into(),
      expected: ID_EXPECTED.into(),
      got: got.clone(),
    }),
    _ => Err(FlakeError::ArgumentType {
      argument: "id".into(),
      expected: ID_EXPECTED.into(),
      got: got.clone(),
    }),
  };
  let parts = number
    .and_then(|number| decompose::parts(number, epoch, &got))
    .map_err(|err| thrown(&env, err))?;

  let mut object = Object::new(&env)?;
  object.set("timestamp", parts.timestamp as f64)?;
  object.set("date", env.create_date(parts.timestamp as f64)?)?;
  object.set("datacenter", u32::from(parts.datacenter))?;
  object.set("worker", u32::from(parts.worker))?;
  object.set("id", u32::from(parts.id))?;
  object.set("sequence", u32::from(parts.sequence))?;
  Ok(object)
}

/// The smallest id of the millisecond `time` (ms since 1970, or a `Date`), as a bigint: for
/// `WHERE id >= ...` range queries.
#[napi(ts_args_type = "time: unknown, options?: unknown")]
pub fn from_time(env: Env, time: Unknown, options: Option<Unknown>) -> Result<BigInt> {
  let epoch = epoch_option(&env, options)?;
  let got = unsafe { describe(env.raw(), time.raw()) }?;
  let ms = match got {
    Input::Number(ms) | Input::Date(ms) => ms,
    _ => {
      return Err(thrown(
        &env,
        FlakeError::ArgumentType {
          argument: "time".into(),
          expected: "a number of ms since 1970 or a Date".into(),
          got,
        },
      ))
    }
  };
  let id = decompose::from_time(ms, epoch, &got).map_err(|err| thrown(&env, err))?;
  Ok(BigInt::from(id))
}

/// The `epoch` of an options object (a `FlakeId` instance will do); none is 1970. An options
/// argument that is not an object is a `TypeError` (`ERR_INVALID_ARG_TYPE`) naming "options";
/// a bad `epoch` in it one with `ERR_FLAKE_INVALID_OPTION` naming `epoch`, as the constructor
/// reports it.
fn epoch_option(env: &Env, options: Option<Unknown>) -> Result<u64> {
  let Some(options) = options else {
    return Ok(0);
  };
  let epoch = match unsafe { describe(env.raw(), options.raw()) }? {
    unset if unset.is_unset() => return Ok(0),
    Input::Object => unsafe { property(env, options.raw(), c"epoch") }?,
    // An argument of the wrong type, as Node reports one.
    got => {
      return Err(thrown(
        env,
        FlakeError::ArgumentType {
          argument: "options".into(),
          expected: OPTIONS_EXPECTED.into(),
          got,
        },
      ))
    }
  };
  decompose::epoch(&epoch).map_err(|err| thrown(env, err))
}

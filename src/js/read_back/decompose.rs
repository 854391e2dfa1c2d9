//! `FlakeId.decompose` and `FlakeId.fromTime`: reading ids back into their parts.

use napi::bindgen_prelude::{BigInt, Object, Unknown};
use napi::{Env, JsValue, Result};
use napi_derive::napi;

use crate::error::FlakeError;
use crate::input::Input;
use crate::js::values::error::{thrown, unusable};
use crate::js::values::input::{bytes, describe, property, property_value, read_layout};
use crate::kinds::layout::decompose::{self, ID_EXPECTED, OPTIONS_EXPECTED};
use crate::kinds::layout::{Layout, Preset};
use crate::kinds::text::Form;
use crate::options;
use crate::options::values::decompose_epoch;

/// The parts of an id given as a Buffer of 8 bytes, a bigint, a decimal string or a
/// `0x`-prefixed hex string, by the layout of `options` (flake-idgen's by default): `timestamp`
/// (ms since 1970 where its time unit starts, the epoch added back), `date`, `id` (the node id)
/// and `sequence`; the node id's parts by the layout's names (`datacenter` and `worker` for
/// flake-idgen's and Twitter's, `worker` and `process` for Discord's); and what the layout's
/// users call the sequence or the node id (Discord's `increment`, Instagram's `shardId`,
/// sonyflake's `machineId`).
/// A string id in `format` (a name of `textForms()`, which JS checks first), when given, is
/// read as exactly that form writes it.
#[napi(
  ts_args_type = "id: unknown, options?: unknown, format?: string",
  ts_return_type = "{ timestamp: number; date: Date; id: number; sequence: number; datacenter?: number; worker?: number; process?: number; increment?: number; shardId?: number; machineId?: number }"
)]
pub fn decompose(
  env: Env,
  id: Unknown,
  options: Option<Unknown>,
  format: Option<String>,
) -> Result<Object<'static>> {
  let form = format
    .map(|format| Form::named(&format).ok_or_else(unusable))
    .transpose()?;
  let layout = layout_option(&env, options)?;
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
    Input::String(text) => match form {
      Some(form) => form
        .read_argument(text, u64::BITS, "id", &got)
        .map(|id| id as u64),
      None => decompose::parse(text),
    },
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
    .and_then(|number| decompose::parts(number, &layout, &got))
    .map_err(|err| thrown(&env, err))?;

  let mut object = Object::new(&env)?;
  object.set("timestamp", parts.timestamp as f64)?;
  object.set("date", env.create_date(parts.timestamp as f64)?)?;
  // flake-idgen's parts first, as the object was before layouts.
  if let (Some(names), Some(values)) = (layout.parts(), parts.parts) {
    for (name, value) in names.into_iter().zip(values) {
      object.set(name, u32::from(value))?;
    }
  }
  object.set("id", u32::from(parts.id))?;
  object.set("sequence", u32::from(parts.sequence))?;
  let (sequence_alias, id_alias) = layout.preset.map_or((None, None), Preset::aliases);
  if let Some(name) = sequence_alias {
    object.set(name, u32::from(parts.sequence))?;
  }
  if let Some(name) = id_alias {
    object.set(name, u32::from(parts.id))?;
  }
  Ok(object)
}

/// The smallest id of the time unit of `time` (ms since 1970, or a `Date`) by the layout of
/// `options`, as a bigint: for `WHERE id >= ...` range queries.
#[napi(ts_args_type = "time: unknown, options?: unknown")]
pub fn from_time(env: Env, time: Unknown, options: Option<Unknown>) -> Result<BigInt> {
  let layout = layout_option(&env, options)?;
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
  let id = decompose::from_time(ms, &layout, &got).map_err(|err| thrown(&env, err))?;
  Ok(BigInt::from(id))
}

/// The `layout` and `epoch` of an options object (a `FlakeId` instance will do): flake-idgen's
/// layout by default, its epoch unless `epoch` is given. An options argument that is not an
/// object is a `TypeError` (`ERR_INVALID_ARG_TYPE`) naming "options"; a bad `layout` or
/// `epoch` in it one with `ERR_FLAKE_INVALID_OPTION` naming it, as the constructor reports it.
fn layout_option(env: &Env, options: Option<Unknown>) -> Result<Layout> {
  let Some(options) = options else {
    return Ok(Layout::DEFAULT);
  };
  let (layout, fields, epoch) = match unsafe { describe(env.raw(), options.raw()) }? {
    unset if unset.is_unset() => return Ok(Layout::DEFAULT),
    Input::Object => {
      let layout = unsafe { property_value(env, options.raw(), c"layout") }?;
      let (layout, fields) = read_layout(env, layout)?;
      (layout, fields, unsafe {
        property(env, options.raw(), c"epoch")
      }?)
    }
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
  let checked = || {
    let layout = options::layout::layout(&layout, &fields)?;
    let epoch = match &epoch {
      unset if unset.is_unset() => decompose_epoch(&Input::Number(layout.epoch as f64))?,
      value => decompose_epoch(value)?,
    };
    Ok(Layout { epoch, ..layout })
  };
  checked().map_err(|err| thrown(env, err))
}

//! 128-bit ids read back and written out: UUIDv7s (`uuid`) and flakes (`flake128`). Not on the
//! per-id path (see `wide_functions` for that), so plain napi-rs functions. A Buffer they fill
//! is JS's (`out`), for the GC alone to free (see `batches`).

use napi::bindgen_prelude::{BigInt, Object, Unknown};
use napi::{Env, JsValue, Result};
use napi_derive::napi;

use super::error::thrown;
use super::input::{bytes, describe};
use crate::decompose::MAX_DATE_MS;
use crate::error::FlakeError;
use crate::input::Input;
use crate::{flake128, uuid};

/// The canonical form (lowercase) of the UUIDv7 in the 16 bytes of `id` from `offset`.
#[napi(ts_args_type = "id: Uint8Array, offset: number")]
pub fn uuid_stringify(env: Env, id: Unknown, offset: u32) -> Result<String> {
  let uuid = uuid_bytes(&env, &id, offset as usize)?;
  Ok(String::from_utf8_lossy(&uuid::format(&uuid)).into_owned())
}

/// Writes into `out` (16 bytes) the UUIDv7 whose canonical form (in either case) is `text`.
#[napi(ts_args_type = "text: unknown, out: Uint8Array")]
pub fn uuid_parse(env: Env, text: Unknown, out: Unknown) -> Result<()> {
  let uuid = uuid_of(&env, &text, "string")?;
  write_out(&env, &out, &uuid)
}

/// The parts of a UUIDv7, given as its canonical form or as 16 bytes: `timestamp` (Unix ms),
/// `sequence` (the 15-bit counter) and `random` (the 59 random bits).
#[napi(
  ts_args_type = "id: unknown",
  ts_return_type = "{ timestamp: number; date: Date; sequence: number; random: bigint }"
)]
pub fn uuid_decompose(env: Env, id: Unknown) -> Result<Object<'static>> {
  let got = unsafe { describe(env.raw(), id.raw()) }?;
  let uuid = match got {
    Input::Bytes(16) => uuid_bytes(&env, &id, 0)?,
    Input::Bytes(_) => {
      return Err(thrown(
        &env,
        FlakeError::ArgumentRange {
          argument: "id".into(),
          expected: uuid::BYTES_EXPECTED.into(),
          got,
        },
      ))
    }
    _ => uuid_of(&env, &id, "id")?,
  };
  let parts = uuid::parts(&uuid).expect("checked");
  let mut object = Object::new(&env)?;
  object.set("timestamp", parts.timestamp as f64)?;
  object.set("date", env.create_date(parts.timestamp as f64)?)?;
  object.set("sequence", u32::from(parts.sequence))?;
  object.set("random", BigInt::from(parts.random))?;
  Ok(object)
}

/// The flake in `id` (16 bytes, a bigint, 22 base-62 digits or 0x and 32 hex digits) in base 62.
#[napi(ts_args_type = "id: unknown")]
pub fn flake_to_base62(env: Env, id: Unknown) -> Result<String> {
  let flake = flake_of(&env, &id)?;
  Ok(String::from_utf8_lossy(&flake128::base62(flake)).into_owned())
}

/// Writes into `out` (16 bytes) the flake that `text` (22 base-62 digits) writes.
#[napi(ts_args_type = "text: unknown, out: Uint8Array")]
pub fn flake_parse(env: Env, text: Unknown, out: Unknown) -> Result<()> {
  let got = unsafe { describe(env.raw(), text.raw()) }?;
  let flake = match &got {
    Input::String(text) => flake128::from_base62(text).ok_or_else(|| FlakeError::ArgumentValue {
      argument: "string".into(),
      expected: flake128::BASE62_EXPECTED.into(),
      got: got.clone(),
    }),
    _ => Err(FlakeError::ArgumentType {
      argument: "string".into(),
      expected: flake128::BASE62_EXPECTED.into(),
      got: got.clone(),
    }),
  }
  .map_err(|err| thrown(&env, err))?;
  write_out(&env, &out, &flake.to_be_bytes())
}

/// The parts of a flake given as 16 bytes, a bigint, 22 base-62 digits or 0x and 32 hex digits:
/// `timestamp` (ms since 1970), `worker` (48 bits) and `sequence`.
#[napi(
  ts_args_type = "id: unknown",
  ts_return_type = "{ timestamp: number; date: Date; worker: number; sequence: number }"
)]
pub fn flake_decompose(env: Env, id: Unknown) -> Result<Object<'static>> {
  let flake = flake_of(&env, &id)?;
  let parts = flake128::parts(flake);
  let mut object = Object::new(&env)?;
  if parts.timestamp > MAX_DATE_MS {
    let got = unsafe { describe(env.raw(), id.raw()) }?;
    return Err(thrown(
      &env,
      FlakeError::ArgumentRange {
        argument: "id".into(),
        expected: format!(
          "a Flake128 whose time is a valid Date, at most {MAX_DATE_MS} ms since 1970"
        ),
        got,
      },
    ));
  }
  object.set("timestamp", parts.timestamp as f64)?;
  object.set("date", env.create_date(parts.timestamp as f64)?)?;
  object.set("worker", parts.worker as f64)?;
  object.set("sequence", u32::from(parts.sequence))?;
  Ok(object)
}

const FLAKE_EXPECTED: &str =
  "a Flake128: 16 bytes, a bigint below 2^128, 22 base-62 digits or 0x and 32 hex digits";

/// The flake `id` is, given as 16 bytes, a bigint, 22 base-62 digits or 0x and 32 hex digits.
fn flake_of(env: &Env, id: &Unknown) -> Result<u128> {
  let got = unsafe { describe(env.raw(), id.raw()) }?;
  let range = |got: &Input| FlakeError::ArgumentRange {
    argument: "id".into(),
    expected: FLAKE_EXPECTED.into(),
    got: got.clone(),
  };
  let flake = match &got {
    Input::Bytes(16) => {
      let bytes = unsafe { bytes(env.raw(), id.raw()) }?.unwrap_or_default();
      <[u8; 16]>::try_from(bytes)
        .map(u128::from_be_bytes)
        .map_err(|_| range(&got))
    }
    Input::Bytes(_) => Err(range(&got)),
    Input::BigInt(digits) => digits.parse::<u128>().map_err(|_| range(&got)),
    Input::String(text) => flake128::from_text(text).ok_or_else(|| FlakeError::ArgumentValue {
      argument: "id".into(),
      expected: FLAKE_EXPECTED.into(),
      got: got.clone(),
    }),
    _ => Err(FlakeError::ArgumentType {
      argument: "id".into(),
      expected: FLAKE_EXPECTED.into(),
      got: got.clone(),
    }),
  };
  flake.map_err(|err| thrown(env, err))
}

/// The UUIDv7 whose canonical form `text` is; errors name it `argument`.
fn uuid_of(env: &Env, text: &Unknown, argument: &'static str) -> Result<[u8; 16]> {
  let got = unsafe { describe(env.raw(), text.raw()) }?;
  let uuid = match &got {
    Input::String(text) => uuid::parse(text).ok_or_else(|| FlakeError::ArgumentValue {
      argument: argument.into(),
      expected: uuid::EXPECTED.into(),
      got: got.clone(),
    }),
    _ => Err(FlakeError::ArgumentType {
      argument: argument.into(),
      expected: uuid::EXPECTED.into(),
      got: got.clone(),
    }),
  };
  uuid.map_err(|err| thrown(env, err))
}

/// The UUIDv7 in the 16 bytes of `id` (a Uint8Array) from `offset`.
fn uuid_bytes(env: &Env, id: &Unknown, offset: usize) -> Result<[u8; 16]> {
  let got = unsafe { describe(env.raw(), id.raw()) }?;
  let uuid = match (&got, unsafe { bytes(env.raw(), id.raw()) }) {
    (Input::Bytes(_), Ok(Some(bytes))) => match bytes.get(offset..offset + 16) {
      Some(uuid) => {
        let uuid = <[u8; 16]>::try_from(uuid).expect("16 bytes");
        uuid::parts(&uuid)
          .map(|_| uuid)
          .ok_or_else(|| FlakeError::ArgumentValue {
            argument: "id".into(),
            expected: uuid::BYTES_EXPECTED.into(),
            got: got.clone(),
          })
      }
      None => Err(FlakeError::ArgumentRange {
        argument: "offset".into(),
        expected: format!("an integer from 0 to {}", bytes.len().saturating_sub(16)),
        got: Input::Number(offset as f64),
      }),
    },
    _ => Err(FlakeError::ArgumentType {
      argument: "id".into(),
      expected: uuid::BYTES_EXPECTED.into(),
      got: got.clone(),
    }),
  };
  uuid.map_err(|err| thrown(env, err))
}

/// Copies `id` into `out`, a Uint8Array of 16 bytes.
fn write_out(env: &Env, out: &Unknown, id: &[u8; 16]) -> Result<()> {
  match unsafe { bytes(env.raw(), out.raw()) }? {
    Some(bytes) if bytes.len() == 16 => {
      // JS's own Buffer, made for this call: no one else writes it meanwhile.
      let out = unsafe { std::slice::from_raw_parts_mut(bytes.as_ptr().cast_mut(), 16) };
      out.copy_from_slice(id);
      Ok(())
    }
    _ => Err(super::error::unusable()),
  }
}

/// Bits of the time of the 64-bit layouts 128-bit ids are made from (see `uuid`, `flake128`).
#[napi]
pub const WIDE_TIME_BITS: u32 = 48;
/// Bits of the counter of the 64-bit layout UUIDv7s are made from (it has no node id bits).
#[napi]
pub const UUID_SEQUENCE_BITS: u32 = uuid::SHAPE.sequence_bits as u32;
/// Bits of the sequence of the 64-bit layout flakes are made from (it has no node id bits).
#[napi]
pub const FLAKE_SEQUENCE_BITS: u32 = flake128::SHAPE.sequence_bits as u32;

// What JS builds the two layouts from is all there is to them.
const _: () = {
  assert!(uuid::SHAPE.time_bits as u32 == WIDE_TIME_BITS && uuid::SHAPE.node_bits == 0);
  assert!(flake128::SHAPE.time_bits as u32 == WIDE_TIME_BITS && flake128::SHAPE.node_bits == 0);
};

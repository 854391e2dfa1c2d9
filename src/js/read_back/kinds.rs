//! The ids of every 128-bit kind read back and written out, one set of functions that takes the
//! kind by its name (see `kinds::KINDS`). Not on the per-id path (see `wide_functions` for
//! that), so plain napi-rs functions. A Buffer they fill is JS's (`out`), for the GC alone to
//! free (see `batches`).

use napi::bindgen_prelude::{BigInt, Object, Unknown};
use napi::{Env, JsValue, Result};
use napi_derive::napi;

use crate::error::FlakeError;
use crate::input::Input;
use crate::js::values::error::{thrown, unusable};
use crate::js::values::input::{bytes, clock_reading, describe};
use crate::kinds::layout::decompose::MAX_DATE_MS;
use crate::kinds::text::{Form, FORMS, WIDE_FORMS};
use crate::kinds::{each_kind, Kind, PartValue, Row, Wide, KINDS};

/// `KindName` from `kinds::each_kind!`'s list, its variants `Kind`'s.
macro_rules! kind_name {
  ($($(#[$doc:meta])* $kind:ident => { $($row:tt)* }),* $(,)?) => {
    /// The name of a kind of id: its row's `name` in `kinds::KINDS`, the one type the binding's
    /// functions that take a kind are declared with (`kinds()` lists the rows; a test holds the two
    /// equal).
    #[napi(string_enum = "camelCase")]
    pub enum KindName {
      $($kind,)*
    }
  };
}
each_kind!(kind_name);

/// A kind of id as JS sees it: its row of `kinds::KINDS`.
#[napi(object)]
pub struct KindDescription {
  /// Its name.
  #[napi(ts_type = "KindName")]
  pub name: String,
  /// What the package exports for it (`index.js`).
  pub export: String,
  /// What its errors call one ("a UUIDv7").
  pub title: String,
  /// Its text forms in words, where its title is not enough (see `kinds::Row::forms`).
  pub forms: Option<String>,
  /// Bytes of one id.
  pub bytes: u32,
  /// How many ids the host's processes share a millisecond of; none for 64-bit ids, whose
  /// layout says.
  pub ids_per_ms: Option<u32>,
  /// Its parts after `timestamp` and `date`, in `decompose`'s order.
  pub parts: Vec<String>,
  /// The largest worker id its ids carry, if they carry one (a flake's: 2^48 - 1).
  pub max_worker: Option<f64>,
  /// How many random bits its ids carry (a UUIDv7's `random` part: 59).
  pub random_bits: u32,
}

/// The kind named `name` (see `kinds::KINDS`).
#[napi(ts_args_type = "name: KindName")]
pub fn describe_kind(name: String) -> Result<KindDescription> {
  Ok(described(Kind::named(&name).ok_or_else(unusable)?.row()))
}

/// Every kind, in `kinds::KINDS`' order.
#[napi]
pub fn kinds() -> Vec<KindDescription> {
  KINDS.iter().map(described).collect()
}

fn described(row: &Row) -> KindDescription {
  KindDescription {
    name: row.name.into(),
    export: row.export.into(),
    title: row.title.into(),
    forms: row.forms.map(Into::into),
    bytes: row.bytes as u32,
    ids_per_ms: row.shape.map(|shape| shape.ids_per_unit()),
    parts: row.parts.iter().map(|&part| part.into()).collect(),
    // Below 2^53: a number holds it exactly.
    max_worker: row.worker.map(|worker| worker as f64),
    random_bits: row.random_bits,
  }
}

/// Whether `text` has the form of the 128-bit `kind`'s text, whatever its value (see
/// `kinds::Does::has_form`): the command's `decompose` tells the kinds' texts apart by it.
#[napi(ts_args_type = "kind: KindName, text: string")]
pub fn id_has_form(kind: String, text: String) -> Result<bool> {
  Ok(
    Kind::wide_named(&kind)
      .ok_or_else(unusable)?
      .has_form(&text),
  )
}

/// What the `clock` option of a generator of the 128-bit `kind` returned (`value`), as ms since
/// 1970, checked as every clock reading is (`ERR_FLAKE_INVALID_CLOCK`) and against the last
/// millisecond the kind's ids are made for (`ERR_FLAKE_TIMESTAMP_OVERFLOW`, as its ordered
/// calls say it): for its calls with uuid's options, which take their time from that clock
/// but issue from no state that would check it.
#[napi(ts_args_type = "kind: KindName, value: unknown")]
pub fn wide_clock_reading(env: Env, kind: String, value: Unknown) -> Result<f64> {
  let kind = Kind::wide_named(&kind).ok_or_else(unusable)?;
  let shape = kind.row().shape.ok_or_else(unusable)?;
  let ms = unsafe { clock_reading(env.raw(), value.raw()) }.map_err(|err| thrown(&env, err))?;
  // A 128-bit kind's shape counts ms from 1970 (epoch 0, 1 ms units): its time is `ms`.
  if ms > shape.word().max_time().min(shape.max_time()) {
    let past = FlakeError::TimestampOverflow {
      delta: ms,
      bits: shape.time_bits,
      unit_ms: 1,
    };
    return Err(thrown(&env, kind.reworded(past, true)));
  }
  Ok(ms as f64)
}

/// A text form of an id as JS sees it: its row of `kinds::text::FORMS`.
#[napi(object)]
pub struct TextFormDescription {
  /// Its name, as the `format` arguments take it.
  pub name: String,
  /// Characters of a 64-bit id in it (decimal's most).
  pub width: u32,
  /// Characters of a 128-bit id in it, if the 128-bit kinds are written in it.
  pub wide_width: Option<u32>,
}

/// Every text form ids are read in (`idParse`, `decompose`), in `kinds::text::FORMS`' order.
#[napi]
pub fn text_forms() -> Vec<TextFormDescription> {
  FORMS
    .iter()
    .map(|&form| TextFormDescription {
      name: form.name().into(),
      width: form.width(u64::BITS) as u32,
      wide_width: WIDE_FORMS
        .contains(&form)
        .then(|| form.width(u128::BITS) as u32),
    })
    .collect()
}

/// The form `format` names, one of `forms`: JS checks the name first (lib/formats/formats.js),
/// so another is not reached.
fn form_named(format: &str, forms: &[Form]) -> Result<Form> {
  Form::named(format)
    .filter(|form| forms.contains(form))
    .ok_or_else(unusable)
}

/// The text of the id of the 128-bit `kind` in `id`: its 16 bytes from `offset`, each checked
/// as the kind's; without `offset`, in any form the kind's readers take (see `idDecompose`).
/// In `format` (one of the 128-bit forms: `textForms()`' with a `wideWidth`), else in the kind's
/// own text.
#[napi(ts_args_type = "kind: KindName, id: unknown, offset?: number, format?: string")]
pub fn id_text(
  env: Env,
  kind: String,
  id: Unknown,
  offset: Option<u32>,
  format: Option<String>,
) -> Result<String> {
  let kind = Kind::wide_named(&kind).ok_or_else(unusable)?;
  let form = format
    .map(|format| form_named(&format, &WIDE_FORMS))
    .transpose()?;
  let id = match offset {
    Some(offset) => stored(&env, kind, &id, offset as usize)?,
    None => read(&env, kind, &id)?,
  };
  let text = kind.text_in(&id, form).ok_or_else(unusable)?;
  Ok(String::from_utf8_lossy(text.as_bytes()).into_owned())
}

/// Writes into `out` the id of `kind` whose text is `text`: 8 bytes of a 64-bit id, whose
/// `format` is one of `textForms()`' (decimal by default); 16 of a 128-bit one, in its kind's own
/// text or in `format`, one of the 128-bit forms.
#[napi(ts_args_type = "kind: KindName, text: unknown, out: Uint8Array, format?: string")]
pub fn id_parse(
  env: Env,
  kind: String,
  text: Unknown,
  out: Unknown,
  format: Option<String>,
) -> Result<()> {
  let kind = Kind::named(&kind).ok_or_else(unusable)?;
  let got = unsafe { describe(env.raw(), text.raw()) }?;
  let Some(wide) = kind.wide() else {
    let form = form_named(format.as_deref().unwrap_or("decimal"), &FORMS)?;
    let id = match &got {
      Input::String(text) => form
        .read_argument(text, u64::BITS, "string", &got)
        .map(|id| (id as u64).to_be_bytes()),
      _ => Err(FlakeError::ArgumentType {
        argument: "string".into(),
        expected: form.expected(u64::BITS),
        got: got.clone(),
      }),
    }
    .map_err(|err| thrown(&env, err))?;
    return write_out(&env, &out, &id);
  };
  let form = format
    .map(|format| form_named(&format, &WIDE_FORMS))
    .transpose()?;
  let id = match (&got, form) {
    (Input::String(text), None) => wide.parse(text).ok_or_else(|| FlakeError::ArgumentValue {
      argument: "string".into(),
      expected: wide.row().text.into(),
      got: got.clone(),
    }),
    (Input::String(text), Some(form)) => form
      .read_argument(text, u128::BITS, "string", &got)
      .map(u128::to_be_bytes)
      .and_then(|id| {
        // 128 bits that are not one of the kind's (a UUIDv7's version and variant).
        wide
          .holds(&id)
          .then_some(id)
          .ok_or_else(|| FlakeError::ArgumentValue {
            argument: "string".into(),
            expected: format!(
              "{} writing {}",
              form.expected(u128::BITS),
              wide.row().bytes_expected
            ),
            got: got.clone(),
          })
      }),
    (_, form) => Err(FlakeError::ArgumentType {
      argument: "string".into(),
      expected: form.map_or(wide.row().text.into(), |form| form.expected(u128::BITS)),
      got: got.clone(),
    }),
  }
  .map_err(|err| thrown(&env, err))?;
  write_out(&env, &out, &id)
}

/// The parts of an id of the 128-bit `kind`, in any form its readers take: `timestamp` (ms since
/// 1970), `date`, and the kind's own by their names (a UUIDv7's `sequence` and `random`, a
/// flake's `worker` and `sequence`).
#[napi(
  ts_args_type = "kind: KindName, id: unknown",
  ts_return_type = "{ timestamp: number; date: Date; sequence: number; random?: bigint; worker?: number }"
)]
pub fn id_decompose(env: Env, kind: String, id: Unknown) -> Result<Object<'static>> {
  let kind = Kind::wide_named(&kind).ok_or_else(unusable)?;
  let parts = kind.parts(&read(&env, kind, &id)?);
  if parts.timestamp > MAX_DATE_MS {
    let got = unsafe { describe(env.raw(), id.raw()) }?;
    return Err(thrown(
      &env,
      FlakeError::ArgumentRange {
        argument: "id".into(),
        expected: format!(
          "{} whose time is a valid Date, at most {MAX_DATE_MS} ms since 1970",
          kind.row().title
        ),
        got,
      },
    ));
  }
  let mut object = Object::new(&env)?;
  object.set("timestamp", parts.timestamp as f64)?;
  object.set("date", env.create_date(parts.timestamp as f64)?)?;
  for (&name, value) in kind.row().parts.iter().zip(parts.values) {
    match value {
      PartValue::Number(number) => object.set(name, number as f64)?,
      PartValue::BigInt(number) => object.set(name, BigInt::from(number))?,
    }
  }
  Ok(object)
}

/// The id of `kind` that `id` is, in any form its readers take.
fn read(env: &Env, kind: Wide, id: &Unknown) -> Result<[u8; 16]> {
  let got = unsafe { describe(env.raw(), id.raw()) }?;
  let data = match got {
    Input::Bytes(_) => unsafe { bytes(env.raw(), id.raw()) }?,
    _ => None,
  };
  kind.read(&got, data).map_err(|err| thrown(env, err))
}

/// The id of `kind` in the 16 bytes of `id` (a Uint8Array) from `offset`.
fn stored(env: &Env, kind: Wide, id: &Unknown, offset: usize) -> Result<[u8; 16]> {
  let got = unsafe { describe(env.raw(), id.raw()) }?;
  let expected = kind.row().bytes_expected;
  let stored = match (&got, unsafe { bytes(env.raw(), id.raw()) }) {
    (Input::Bytes(_), Ok(Some(bytes))) => match bytes.get(offset..offset + 16) {
      Some(stored) => {
        let stored = <[u8; 16]>::try_from(stored).expect("16 bytes");
        if kind.holds(&stored) {
          Ok(stored)
        } else {
          Err(FlakeError::ArgumentValue {
            argument: "id".into(),
            expected: expected.into(),
            got: got.clone(),
          })
        }
      }
      None => Err(FlakeError::ArgumentRange {
        argument: "offset".into(),
        expected: format!("an integer from 0 to {}", bytes.len().saturating_sub(16)),
        got: Input::Number(offset as f64),
      }),
    },
    _ => Err(FlakeError::ArgumentType {
      argument: "id".into(),
      expected: expected.into(),
      got: got.clone(),
    }),
  };
  stored.map_err(|err| thrown(env, err))
}

/// Copies `id` into `out`, a Uint8Array of its length (8 or 16 bytes).
fn write_out(env: &Env, out: &Unknown, id: &[u8]) -> Result<()> {
  let out_view = out.raw();
  match unsafe { bytes(env.raw(), out_view) }? {
    Some(bytes) if bytes.len() == id.len() => {
      // JS's own Buffer, made for this call: no one else writes it meanwhile.
      let out = unsafe { std::slice::from_raw_parts_mut(bytes.as_ptr().cast_mut(), id.len()) };
      out.copy_from_slice(id);
      unsafe { crate::js::seam::protocol::written(env, out_view, 0, id.len()) }
    }
    _ => Err(unusable()),
  }
}

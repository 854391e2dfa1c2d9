//! Reads JS values into `Input`s, the N-API-free form the option and clock checks take.

use std::ffi::CStr;
use std::ptr;

use napi::bindgen_prelude::{FromNapiValue, Unknown};
use napi::sys::{self, ValueType};
use napi::{check_status, Env, JsValue, Result};

use super::error::thrown;
use crate::clock;
use crate::error::FlakeError;
use crate::input::Input;
use crate::options::layout::RawLayout;
use crate::options::unknown::FLAKE_ID_OPTIONS;
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
      let (mut is_date, mut is_array, mut is_typed) = (false, false, false);
      check_status!(unsafe { sys::napi_is_date(env, value, &mut is_date) })?;
      check_status!(unsafe { sys::napi_is_array(env, value, &mut is_array) })?;
      check_status!(unsafe { sys::napi_is_typedarray(env, value, &mut is_typed) })?;
      if is_typed {
        match unsafe { bytes(env, value) }? {
          Some(bytes) => Input::Bytes(bytes.len()),
          None => Input::Other("a typed array other than Uint8Array"),
        }
      } else if is_date {
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
    ValueType::napi_bigint => {
      let mut digits = ptr::null_mut();
      check_status!(unsafe { sys::napi_coerce_to_string(env, value, &mut digits) })?;
      Input::BigInt(unsafe { String::from_napi_value(env, digits) }?)
    }
    _ => Input::Other("an external value"),
  })
}

/// The bytes of a `Uint8Array` (a `Buffer` is one); `None` for any other typed array.
///
/// # Safety
/// `env` and `value` (a typed array) must belong to the current call, and the slice must not
/// outlive it.
pub(crate) unsafe fn bytes<'a>(
  env: sys::napi_env,
  value: sys::napi_value,
) -> Result<Option<&'a [u8]>> {
  let array = unsafe { typed_array(env, value) }?;
  if array.kind != sys::TypedarrayType::uint8_array {
    return Ok(None);
  }
  if array.length == 0 {
    return Ok(Some(&[]));
  }
  Ok(Some(unsafe {
    std::slice::from_raw_parts(array.data.cast::<u8>(), array.length)
  }))
}

/// A typed array as N-API describes it.
pub(crate) struct TypedArray {
  pub kind: sys::napi_typedarray_type,
  /// In elements.
  pub length: usize,
  pub data: *mut std::ffi::c_void,
  /// Its ArrayBuffer (or SharedArrayBuffer), and where in it the array starts.
  pub buffer: sys::napi_value,
  pub offset: usize,
}

/// What N-API says of `value`, a typed array; an error for anything else.
///
/// # Safety
/// `env` and `value` must belong to the current call; `data` is valid only until JS runs.
pub(crate) unsafe fn typed_array(env: sys::napi_env, value: sys::napi_value) -> Result<TypedArray> {
  let mut array = TypedArray {
    kind: 0,
    length: 0,
    data: ptr::null_mut(),
    buffer: ptr::null_mut(),
    offset: 0,
  };
  check_status!(unsafe {
    sys::napi_get_typedarray_info(
      env,
      value,
      &mut array.kind,
      &mut array.length,
      &mut array.data,
      &mut array.buffer,
      &mut array.offset,
    )
  })?;
  Ok(array)
}

/// The property `name` of `object`, described.
///
/// # Safety
/// `object` must belong to the current call.
pub(crate) unsafe fn property(env: &Env, object: sys::napi_value, name: &CStr) -> Result<Input> {
  let value = unsafe { property_value(env, object, name) }?;
  unsafe { describe(env.raw(), value) }
}

/// # Safety
/// `object` must belong to the current call.
pub(crate) unsafe fn property_value(
  env: &Env,
  object: sys::napi_value,
  name: &CStr,
) -> Result<sys::napi_value> {
  let mut value = ptr::null_mut();
  // A getter on the user's object may throw: the status carries the pending exception.
  check_status!(unsafe {
    sys::napi_get_named_property(env.raw(), object, name.as_ptr(), &mut value)
  })?;
  Ok(value)
}

/// Reads the options argument of the constructor, each option once (a getter may answer
/// differently each time: the value checked is the value used). `undefined` and `null` are no
/// options. Also returns the `clock` function, if one was given, and the names of the own
/// enumerable options not among `FLAKE_ID_OPTIONS` (their values are never read).
pub(crate) fn read_options<'env>(
  env: &Env,
  options: Unknown<'env>,
) -> Result<(RawOptions, Option<Unknown<'env>>, Vec<String>)> {
  let options = options.raw();
  match unsafe { describe(env.raw(), options) }? {
    unset if unset.is_unset() => return Ok((RawOptions::default(), None, Vec::new())),
    Input::Object => {}
    got => return Err(thrown(env, FlakeError::OptionsNotObject { got })),
  }
  let property = |name| unsafe { property(env, options, name) };
  let (layout, layout_fields) =
    read_layout(env, unsafe { property_value(env, options, c"layout") }?)?;
  let (id, datacenter, worker, process) = (
    property(c"id")?,
    property(c"datacenter")?,
    property(c"worker")?,
    property(c"process")?,
  );
  let (epoch, seq_mask) = (property(c"epoch")?, property(c"seqMask")?);
  let clock = unsafe { property_value(env, options, c"clock") }?;
  let raw = RawOptions {
    layout,
    layout_fields,
    id,
    datacenter,
    worker,
    process,
    id_from: property(c"idFrom")?,
    id_offset: property(c"idOffset")?,
    epoch,
    seq_mask,
    clock: unsafe { describe(env.raw(), clock) }?,
    allowed_future_ms: property(c"allowedFutureMs")?,
    scope: property(c"scope")?,
    state_dir: property(c"stateDir")?,
  };
  let clock = (raw.clock == Input::Function)
    .then(|| unsafe { Unknown::from_raw_unchecked(env.raw(), clock) });
  let unknown = unsafe { own_names(env, options) }?
    .into_iter()
    .filter(|name| !FLAKE_ID_OPTIONS.contains(&name.as_str()))
    .collect();
  Ok((raw, clock, unknown))
}

/// The names of `object`'s own enumerable string-keyed properties, read without calling a
/// getter.
///
/// # Safety
/// `env` and `object` (an object) must belong to the current call.
unsafe fn own_names(env: &Env, object: sys::napi_value) -> Result<Vec<String>> {
  let mut names = ptr::null_mut();
  check_status!(unsafe {
    sys::napi_get_all_property_names(
      env.raw(),
      object,
      sys::KeyCollectionMode::own_only,
      sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
      sys::KeyConversion::numbers_to_strings,
      &mut names,
    )
  })?;
  let mut count = 0;
  check_status!(unsafe { sys::napi_get_array_length(env.raw(), names, &mut count) })?;
  (0..count)
    .map(|index| {
      let mut key = ptr::null_mut();
      check_status!(unsafe { sys::napi_get_element(env.raw(), names, index, &mut key) })?;
      unsafe { String::from_napi_value(env.raw(), key) }
    })
    .collect()
}

/// A `layout` value, described, and its fields (each read once) when it is an object.
pub(crate) fn read_layout(env: &Env, value: sys::napi_value) -> Result<(Input, RawLayout)> {
  let described = unsafe { describe(env.raw(), value) }?;
  if described != Input::Object {
    return Ok((described, RawLayout::default()));
  }
  unsafe { refuse_unknown_fields(env, value) }?;
  let field = |name| unsafe { property(env, value, name) };
  let fields = RawLayout {
    name: field(c"name")?,
    time_bits: field(c"timeBits")?,
    time_unit_ms: field(c"timeUnitMs")?,
    node_bits: field(c"nodeBits")?,
    sequence_bits: field(c"sequenceBits")?,
    order: field(c"order")?,
    epoch: field(c"epoch")?,
  };
  Ok((described, fields))
}

/// The fields a layout object may have: a custom layout's, and those a resolved layout shows
/// too (derived from the others), so that `FlakeId.layout()`'s answer is a layout again.
const LAYOUT_FIELDS: [&str; 13] = [
  "name",
  "timeBits",
  "timeUnitMs",
  "nodeBits",
  "sequenceBits",
  "order",
  "epoch",
  "parts",
  "maxId",
  "idsPerUnit",
  "maxAllowedFutureMs",
  "lastTimestamp",
  "key",
];

/// Refuses a layout object with an own enumerable field of another name: a typo (`timeUnit`,
/// `Epoch`, `ordering`) would otherwise leave the default in force, silently.
///
/// # Safety
/// `env` and `layout` (an object) must belong to the current call.
unsafe fn refuse_unknown_fields(env: &Env, layout: sys::napi_value) -> Result<()> {
  for name in unsafe { own_names(env, layout) }? {
    if LAYOUT_FIELDS.contains(&name.as_str()) {
      continue;
    }
    let key = env.create_string(&name)?;
    let mut value = ptr::null_mut();
    check_status!(unsafe { sys::napi_get_property(env.raw(), layout, key.raw(), &mut value) })?;
    let got = unsafe { describe(env.raw(), value) }?;
    return Err(thrown(
      env,
      FlakeError::OptionType {
        option: format!("layout.{name}").into(),
        expected: "left out: a layout takes timeBits, timeUnitMs, nodeBits, sequenceBits, order, epoch and name".into(),
        got,
      },
    ));
  }
  Ok(())
}

/// What a `clock` function returned, as ms since 1970.
///
/// # Safety
/// `env` and `value` must belong to the current call.
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

//! Layouts, for JS: the resolved layout a generator shows and `FlakeId.layout()` returns.

use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue, Result};
use napi_derive::napi;

use crate::js::values::error::thrown;
use crate::js::values::input::read_layout;
use crate::kinds::layout::{Layout, Order, Preset, Shape};
use crate::options::layout::layout;

/// A layout, resolved: its bits, its epoch and its limits.
#[napi(object)]
pub struct ResolvedLayout {
  /// The preset's name, or `custom`.
  pub name: String,
  /// Bits of the time field (the high ones).
  pub time_bits: u32,
  /// The time field's unit, in ms.
  pub time_unit_ms: u32,
  /// Bits of the node id.
  pub node_bits: u32,
  /// Bits of the sequence number.
  pub sequence_bits: u32,
  /// What comes right after the time: `node-sequence` or `sequence-node`.
  pub order: String,
  /// Ms since 1970 the time counts from.
  pub epoch: f64,
  /// The names of the node id's two 5-bit parts, high first; none for most layouts.
  pub parts: Vec<String>,
  /// The largest node id: 2^nodeBits - 1.
  pub max_id: u32,
  /// Ids per node id per time unit: 2^sequenceBits.
  pub ids_per_unit: u32,
  /// The largest `allowedFutureMs` (host scope borrows 20 ms at most).
  pub max_allowed_future_ms: f64,
  /// The last ms since 1970 at which ids can be issued: where the time bits end, or 139 years
  /// or more after the epoch (what a state word holds), whichever comes first. On the system
  /// clock ids also stop in 2109 (2144 for 10 ms units): a shared state counts from 1970.
  pub last_timestamp: f64,
  /// The bits as a lease namespace and a state file record them: `42/10/12` for flake-idgen's.
  pub key: String,
}

/// The layout `value` names or describes (a preset's name, a custom object, or a resolved
/// layout), resolved. Throws a `TypeError`/`RangeError` with code `ERR_FLAKE_INVALID_OPTION`
/// naming the field (`layout.nodeBits`, …) and the value.
#[napi(ts_args_type = "layout?: unknown")]
pub fn resolve_layout(env: Env, value: Unknown) -> Result<ResolvedLayout> {
  let (value, fields) = read_layout(&env, value.raw())?;
  let layout = layout(&value, &fields).map_err(|err| thrown(&env, err))?;
  Ok(resolved(&layout))
}

/// The layout of a generator `configure` made: its packed `shape` and `preset` fields and its
/// `epoch`, resolved. A generator resolves its layout only when asked, so an instance costs no
/// layout object.
#[napi]
pub fn layout_of(shape: u32, epoch: f64, preset: u32) -> Result<ResolvedLayout> {
  let layout = Shape::unpack(shape).map(|shape| Layout {
    shape,
    epoch: epoch as u64,
    preset: Preset::ALL.get(preset as usize).copied(),
  });
  layout
    .map(|layout| resolved(&layout))
    .ok_or_else(crate::js::values::error::unusable)
}

/// `layout` as JS sees it.
pub(crate) fn resolved(layout: &Layout) -> ResolvedLayout {
  let shape = layout.shape;
  ResolvedLayout {
    name: layout.name().into(),
    time_bits: u32::from(shape.time_bits),
    time_unit_ms: u32::from(shape.unit_ms),
    node_bits: u32::from(shape.node_bits),
    sequence_bits: u32::from(shape.sequence_bits),
    order: match shape.order {
      Order::NodeSequence => "node-sequence",
      Order::SequenceNode => "sequence-node",
    }
    .into(),
    epoch: layout.epoch as f64,
    parts: layout
      .parts()
      .map_or_else(Vec::new, |parts| parts.map(String::from).to_vec()),
    max_id: u32::from(shape.max_node()),
    ids_per_unit: shape.ids_per_unit(),
    max_allowed_future_ms: shape.max_allowed_future_ms() as f64,
    last_timestamp: layout.end_ms() as f64,
    key: shape.key(),
  }
}

//! The `layout` option, here or in `decompose`/`fromTime`: a preset's name, or an object with the
//! bits (the resolved layout a generator shows is one too), each field checked and named.

use super::values::{epoch, integer};
use crate::error::FlakeError;
use crate::input::Input;
use crate::kinds::layout::{Layout, Order, Preset, Shape};

/// A `layout` object's fields, as read from JS, each once.
#[derive(Debug, Clone, PartialEq)]
pub struct RawLayout {
  pub name: Input,
  pub time_bits: Input,
  pub time_unit_ms: Input,
  pub node_bits: Input,
  pub sequence_bits: Input,
  pub order: Input,
  pub epoch: Input,
}

impl Default for RawLayout {
  fn default() -> Self {
    Self {
      name: Input::Undefined,
      time_bits: Input::Undefined,
      time_unit_ms: Input::Undefined,
      node_bits: Input::Undefined,
      sequence_bits: Input::Undefined,
      order: Input::Undefined,
      epoch: Input::Undefined,
    }
  }
}

const NAMES: &str =
  "'flake-idgen', 'twitter', 'discord', 'instagram', 'snowcast', 'hazelcast', 'sonyflake'";

/// The layout `value` (with `fields`, read when it is an object) says; unset is flake-idgen's.
pub fn layout(value: &Input, fields: &RawLayout) -> Result<Layout, FlakeError> {
  let preset = match value {
    Input::String(name) => Preset::from_name(name),
    _ => None,
  };
  match (value, preset) {
    (unset, _) if unset.is_unset() => Ok(Layout::DEFAULT),
    (_, Some(preset)) => Ok(Layout::preset(preset)),
    (Input::Object, _) => custom(fields),
    (other, _) => Err(FlakeError::OptionType {
      option: "layout".into(),
      expected: format!(
        "one of {NAMES}, or an object {{ timeBits, timeUnitMs, nodeBits, sequenceBits, order, epoch }}"
      ),
      got: other.clone(),
    }),
  }
}

/// A layout object: its bits, or a preset's (`name`, as a generator's `layout` shows it) whose
/// bits it must then agree with.
fn custom(fields: &RawLayout) -> Result<Layout, FlakeError> {
  let preset = match &fields.name {
    Input::String(name) => Preset::from_name(name),
    _ => None,
  };
  let field = |name: &'static str, value: &Input, default: Option<u64>, max: u64, expected| match (
    value, default,
  ) {
    (unset, Some(default)) if unset.is_unset() => Ok(default),
    _ => integer(name, value, max, expected),
  };
  let base = preset.map(Preset::shape);
  let time_bits = field(
    "layout.timeBits",
    &fields.time_bits,
    base.map(|shape| u64::from(shape.time_bits)),
    63,
    "an integer making timeBits + nodeBits + sequenceBits 63 or 64",
  )?;
  let unit_ms = field(
    "layout.timeUnitMs",
    &fields.time_unit_ms,
    Some(base.map_or(1, |shape| shape.unit())),
    1000,
    "an integer number of ms from 1 to 1000",
  )?;
  let node_bits = field(
    "layout.nodeBits",
    &fields.node_bits,
    base.map(|shape| u64::from(shape.node_bits)),
    16,
    "an integer from 0 to 16",
  )?;
  let sequence_bits = field(
    "layout.sequenceBits",
    &fields.sequence_bits,
    base.map(|shape| u64::from(shape.sequence_bits)),
    16,
    "an integer from 1 to 16",
  )?;
  let order = match (&fields.order, base) {
    (unset, base) if unset.is_unset() => base.map_or(Order::NodeSequence, |shape| shape.order),
    (Input::String(order), _) if order == "node-sequence" => Order::NodeSequence,
    (Input::String(order), _) if order == "sequence-node" => Order::SequenceNode,
    (other, _) => {
      return Err(FlakeError::OptionType {
        option: "layout.order".into(),
        expected: "'node-sequence' or 'sequence-node'".into(),
        got: other.clone(),
      })
    }
  };
  let shape = Shape {
    time_bits: time_bits as u8,
    unit_ms: unit_ms as u16,
    node_bits: node_bits as u8,
    sequence_bits: sequence_bits as u8,
    order,
  };
  let shape = shape.check().map_err(|(name, expected)| {
    let got = match name {
      "nodeBits" => &fields.node_bits,
      "sequenceBits" => &fields.sequence_bits,
      "timeUnitMs" => &fields.time_unit_ms,
      _ => &fields.time_bits,
    };
    FlakeError::OptionRange {
      option: format!("layout.{name}").into(),
      expected: expected.into(),
      got: got.clone(),
    }
  })?;
  if let Some(preset) = preset.filter(|preset| preset.shape() != shape) {
    return Err(FlakeError::OptionRange {
      option: "layout".into(),
      expected: format!(
        "the bits of '{}' ({}) with name '{}', or no name",
        preset.name(),
        preset.shape().key(),
        preset.name()
      ),
      got: Input::Object,
    });
  }
  let epoch = match &fields.epoch {
    unset if unset.is_unset() => preset.map_or(0, Preset::epoch),
    value => epoch(value).map_err(|err| rename(err, "layout.epoch"))?,
  };
  Ok(Layout {
    shape,
    epoch,
    preset,
  })
}

/// `err` about an option, said of `option` instead.
fn rename(err: FlakeError, option: &'static str) -> FlakeError {
  match err {
    FlakeError::OptionRange { expected, got, .. } => FlakeError::OptionRange {
      option: option.into(),
      expected,
      got,
    },
    FlakeError::OptionType { expected, got, .. } => FlakeError::OptionType {
      option: option.into(),
      expected,
      got,
    },
    other => other,
  }
}

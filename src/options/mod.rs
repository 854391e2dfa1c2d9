//! The constructor options: flake-idgen's coercions (numeric strings, a `Date` epoch, unset
//! meaning the default) without its silent masking: anything out of range is refused.

use std::path::PathBuf;

use crate::error::FlakeError;
use crate::host::dir::{absolute, default_dirs, named_dir};
use crate::input::Input;
use crate::kinds::layout::{node_id, Layout, Preset, MAX_PART};
use crate::kinds::Kind;

pub mod id_from;
pub mod layout;
pub mod unknown;
pub mod values;

use id_from::Environment;
use layout::{layout, RawLayout};
use values::reword;
pub use values::{epoch, integer};

/// The options object as read from JS, one field per option.
#[derive(Debug, Clone, PartialEq)]
pub struct RawOptions {
  pub layout: Input,
  /// The `layout` object's fields, when it is one.
  pub layout_fields: RawLayout,
  pub id: Input,
  pub datacenter: Input,
  pub worker: Input,
  /// Discord's low part of the node id.
  pub process: Input,
  /// Where the environment holds the node id (see `id_from`), and what to add to it.
  pub id_from: Input,
  pub id_offset: Input,
  pub epoch: Input,
  pub seq_mask: Input,
  pub clock: Input,
  pub allowed_future_ms: Input,
  pub scope: Input,
  pub state_dir: Input,
}

impl Default for RawOptions {
  fn default() -> Self {
    Self {
      layout: Input::Undefined,
      layout_fields: RawLayout::default(),
      id: Input::Undefined,
      datacenter: Input::Undefined,
      worker: Input::Undefined,
      process: Input::Undefined,
      id_from: Input::Undefined,
      id_offset: Input::Undefined,
      epoch: Input::Undefined,
      seq_mask: Input::Undefined,
      clock: Input::Undefined,
      allowed_future_ms: Input::Undefined,
      scope: Input::Undefined,
      state_dir: Input::Undefined,
    }
  }
}

/// A validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
  /// Its bits; its epoch is `epoch`.
  pub layout: Layout,
  /// The node id (generator id).
  pub id: u16,
  /// The node id's two parts (high first), for a layout that names them (`Layout::parts`);
  /// `None` when `id` was given, as in flake-idgen.
  pub parts: Option<[u8; 2]>,
  pub epoch: u64,
  pub seq_mask: u16,
  pub custom_clock: bool,
  /// How far ahead of the clock ids may be borrowed instead of refusing; 0: never.
  pub allowed_future_ms: u64,
  /// Which processes share the state (a generator with a `clock` has a private one anyway).
  pub scope: Scope,
}

/// Which processes share a generator id's state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scope {
  /// This process only: its threads.
  Process,
  /// Every process of the host (of the user) that uses the same state directory.
  Host {
    dir: PathBuf,
    /// Tried in order when `dir` cannot be used: the default directory's next candidates
    /// (`dir::candidates`); none for a directory given (`stateDir`, `FLAKE_IDGEN_STATE_DIR`).
    alternatives: Vec<PathBuf>,
    /// Asked for (`scope: 'host'`, a `stateDir` or `FLAKE_IDGEN_STATE_DIR`): an unusable
    /// directory is then an error, not a fallback to `Process`.
    required: bool,
  },
}

/// Validates `raw`; `now_ms` (the system clock) bounds the epoch unless a custom clock is given.
#[cfg(test)]
pub fn parse(raw: &RawOptions, now_ms: u64) -> Result<Config, FlakeError> {
  parse_kind(raw, Kind::FlakeId, now_ms, &id_from::System)
}

/// As `parse`, for a generator of `kind`, `idFrom` reading `env`: a 128-bit kind's ids are made
/// from ids of its row's shape, which stands in for the `layout` option (unset, as every option
/// such a generator does not take: see `lib/options/options.js`).
pub fn parse_kind(
  raw: &RawOptions,
  kind: Kind,
  now_ms: u64,
  env: &dyn Environment,
) -> Result<Config, FlakeError> {
  let custom_clock = match &raw.clock {
    unset if unset.is_unset() => false,
    Input::Function => true,
    other => {
      return Err(FlakeError::OptionType {
        option: "clock".into(),
        expected: "a function returning milliseconds since 1970".into(),
        got: other.clone(),
      })
    }
  };

  let layout = match kind.row().shape {
    Some(shape) => Layout {
      shape,
      epoch: 0,
      preset: None,
    },
    None => layout(&raw.layout, &raw.layout_fields)?,
  };
  let shape = layout.shape;
  let (id, parts) = node(raw, &layout, env)?;

  // Explicit options win: the layout's epoch is the default.
  let epoch = match &raw.epoch {
    unset if unset.is_unset() => layout.epoch,
    value => epoch(value)?,
  };
  if !custom_clock && epoch > now_ms {
    // Named where it came from: the option, or the layout object's.
    let (option, got) = match &raw.epoch {
      unset if unset.is_unset() => ("layout.epoch", raw.layout_fields.epoch.clone()),
      given => ("epoch", given.clone()),
    };
    return Err(FlakeError::OptionRange {
      option: option.into(),
      expected: format!("not in the future (the clock reads {now_ms})"),
      got,
    });
  }

  // flake-idgen's `options.seqMask || 0xFFF`: the number 0 is the default too. Any other
  // mask that is not a run of low bits is refused.
  let max_sequence = shape.max_sequence();
  let seq_mask = if raw.seq_mask.is_unset() || is_zero(&raw.seq_mask) {
    max_sequence
  } else {
    let expected = format!(
      "2^k - 1 for k from 1 to {} (1, 3, 7, ..., {max_sequence})",
      shape.sequence_bits
    );
    let mask = integer("seqMask", &raw.seq_mask, u64::MAX, "a positive integer")
      .map_err(|err| reword(err, &expected))?;
    let is_low_bits = mask & (mask + 1) == 0;
    if mask == 0 || mask > u64::from(max_sequence) || !is_low_bits {
      return Err(FlakeError::OptionRange {
        option: "seqMask".into(),
        expected,
        got: raw.seq_mask.clone(),
      });
    }
    mask as u16
  };

  let max_allowed = shape.max_allowed_future_ms();
  let allowed_future_ms = if raw.allowed_future_ms.is_unset() {
    0
  } else {
    integer(
      "allowedFutureMs",
      &raw.allowed_future_ms,
      max_allowed,
      "an integer number of ms within the layout's limit",
    )
    .map_err(|err| {
      reword(
        err,
        &format!(
          "an integer number of ms from 0 to {max_allowed}{}",
          match layout.preset {
            Some(Preset::FlakeIdgen) => String::new(),
            _ => format!(" (layout {})", shape.key()),
          }
        ),
      )
    })?
  };

  let scope = scope(raw, custom_clock)?;

  Ok(Config {
    layout: Layout { epoch, ..layout },
    id,
    parts,
    epoch,
    seq_mask,
    custom_clock,
    allowed_future_ms,
    scope,
  })
}

/// `scope` and `stateDir`: host scope by default on the system clock. Combinations that could
/// not do what they say are refused rather than ignored.
fn scope(raw: &RawOptions, custom_clock: bool) -> Result<Scope, FlakeError> {
  let host = match &raw.scope {
    unset if unset.is_unset() => None,
    Input::String(name) if name == "host" => Some(true),
    Input::String(name) if name == "process" => Some(false),
    other => {
      return Err(FlakeError::OptionType {
        option: "scope".into(),
        expected: "'host' or 'process'".into(),
        got: other.clone(),
      })
    }
  };
  let dir = match &raw.state_dir {
    unset if unset.is_unset() => None,
    Input::String(dir) if absolute(dir).is_some() => absolute(dir),
    other => {
      return Err(FlakeError::OptionType {
        option: "stateDir".into(),
        expected: "an absolute path".into(),
        got: other.clone(),
      })
    }
  };
  let refuse = |option: &'static str, expected: &str, got: &Input| FlakeError::OptionType {
    option: option.into(),
    expected: expected.into(),
    got: got.clone(),
  };
  if custom_clock && host == Some(true) {
    return Err(refuse(
      "scope",
      "'process' or unset with a `clock` option (a clock of its own keeps a private state)",
      &raw.scope,
    ));
  }
  if custom_clock && dir.is_some() {
    return Err(refuse(
      "stateDir",
      "unset with a `clock` option (a clock of its own keeps a private state)",
      &raw.state_dir,
    ));
  }
  if host == Some(false) && dir.is_some() {
    return Err(refuse(
      "stateDir",
      "unset with scope 'process'",
      &raw.state_dir,
    ));
  }
  // A directory the user named, by option or environment, is the one they meant: falling back
  // from it would split a generator id's state between processes that can use it and not.
  let required = host.is_some() || dir.is_some() || named_dir().is_some();
  Ok(match host {
    Some(false) => Scope::Process,
    _ if custom_clock => Scope::Process,
    _ => {
      let mut dirs = dir.map_or_else(default_dirs, |dir| vec![dir]);
      Scope::Host {
        dir: dirs.remove(0),
        alternatives: dirs,
        required,
      }
    }
  })
}

/// The node id and, when neither `idFrom` nor `id` is given and the layout splits it, its
/// parts. flake-idgen: `id` wins whenever it is not `undefined`; the parts are then ignored.
/// `null` is such a value, and `null & 0x3FF` is 0. A part the layout does not have is refused
/// (flake-idgen's own layout ignores them, as flake-idgen does).
fn node(
  raw: &RawOptions,
  layout: &Layout,
  env: &dyn Environment,
) -> Result<(u16, Option<[u8; 2]>), FlakeError> {
  let given = [
    ("id", &raw.id),
    ("datacenter", &raw.datacenter),
    ("worker", &raw.worker),
    ("process", &raw.process),
  ];
  let max = layout.shape.max_node();
  if let Some(id) = id_from::node_id(&raw.id_from, &raw.id_offset, &given, max, env)? {
    return Ok((id, None));
  }
  let parts = layout.parts();
  if layout.preset != Some(Preset::FlakeIdgen) {
    let names = parts.map_or("id".to_string(), |[high, low]| format!("id, {high}, {low}"));
    for &(option, value) in &given[1..] {
      if !value.is_unset() && !parts.is_some_and(|parts| parts.contains(&option)) {
        return Err(FlakeError::OptionType {
          option: option.into(),
          expected: format!(
            "unset with layout '{}' (its node id is given as {names})",
            layout.name()
          ),
          got: value.clone(),
        });
      }
    }
  }
  if raw.id == Input::Null {
    return Ok((0, None));
  }
  if raw.id != Input::Undefined {
    let id = integer(
      "id",
      &raw.id,
      u64::from(max),
      "an integer within the layout's node ids",
    )
    .map_err(|err| reword(err, &format!("an integer from 0 to {max}")))?;
    return Ok((id as u16, None));
  }
  let Some([high, low]) = parts else {
    return Ok((0, None));
  };
  let value = |name: &str| match name {
    "datacenter" => &raw.datacenter,
    "worker" => &raw.worker,
    _ => &raw.process,
  };
  let (high_part, low_part) = (part(high, value(high))?, part(low, value(low))?);
  Ok((node_id(high_part, low_part), Some([high_part, low_part])))
}

/// A part of the node id (`datacenter`, `worker`, `process`): unset is 0, as in flake-idgen.
fn part(option: &'static str, value: &Input) -> Result<u8, FlakeError> {
  if value.is_unset() {
    return Ok(0);
  }
  let n = integer(
    option,
    value,
    u64::from(MAX_PART),
    "an integer from 0 to 31",
  )?;
  Ok(n as u8)
}

/// The number 0 (or -0), which flake-idgen's `options.x || default` reads as unset. A string
/// "0" is not: flake-idgen takes it as given.
fn is_zero(value: &Input) -> bool {
  *value == Input::Number(0.0)
}

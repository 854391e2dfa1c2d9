//! `idFrom`: the node id a fleet's orchestrator numbered the process with, read from the
//! environment once, as the generator is made, plus `idOffset`: a StatefulSet pod's ordinal, an
//! Indexed Job's index, PM2's instance number, or any variable holding a whole number. What is
//! missing, holds no number or is past the layout's node ids is refused (`ERR_FLAKE_ID_FROM`):
//! processes that each fell back to node id 0 would repeat each other's ids.

use std::ffi::OsString;

use super::unknown::nearest;
use super::values::{integer, is_decimal, reword};
use crate::error::FlakeError;
use crate::input::Input;
use crate::os;

/// What `idFrom` reads: the process's environment and the host's name.
pub trait Environment {
  /// The variable `name` (letters, digits and `_`), if it is set.
  fn var(&self, name: &str) -> Option<OsString>;
  /// The host's name, as `os.hostname()` gives it; why not, where it cannot be read.
  fn hostname(&self) -> Result<String, String>;
}

/// The process's own environment, as it is when a generator is made. The WebAssembly build's is
/// the copy of `process.env` its WASI instance was given as the package loaded, and it has no
/// host's name.
pub struct System;

impl Environment for System {
  fn var(&self, name: &str) -> Option<OsString> {
    std::env::var_os(name)
  }

  fn hostname(&self) -> Result<String, String> {
    os::hostname()
  }
}

/// An orchestrator `idFrom` names.
struct Orchestrator {
  /// `idFrom`'s value.
  name: &'static str,
  /// The variable it sets in each process.
  variable: &'static str,
  /// Whether the variable holds a pod's name that ends in the number (a StatefulSet's
  /// `orders-7`), which the host's name also is when the variable is not set.
  ordinal: bool,
  /// Who sets the variable, for the error when it is not set (none for a StatefulSet's, whose
  /// host's name is read instead).
  set_by: &'static str,
}

/// The orchestrators, a row each; `env:NAME` reads any other variable.
const ORCHESTRATORS: [Orchestrator; 3] = [
  Orchestrator {
    name: "statefulset",
    variable: "HOSTNAME",
    ordinal: true,
    set_by: "",
  },
  Orchestrator {
    name: "job-index",
    variable: "JOB_COMPLETION_INDEX",
    ordinal: false,
    set_by: " (an Indexed Job sets it in each pod)",
  },
  Orchestrator {
    name: "pm2",
    variable: "NODE_APP_INSTANCE",
    ordinal: false,
    set_by: " (PM2 sets it in each instance of an app, unless its instance_var names another)",
  },
];

/// The prefix of `idFrom: 'env:NAME'`.
const ENV_PREFIX: &str = "env:";

/// Where `idFrom` says the number is.
enum Source<'a> {
  Orchestrator(&'static Orchestrator),
  /// `env:NAME`'s variable.
  Env(&'a str),
}

/// The node id the options `idFrom` and `idOffset` give (read from `env`), within the layout's
/// `max`: `None` when `idFrom` is unset, and then `idOffset` must be too. Beside `idFrom`, the
/// given source's options (`given`: `id` and its parts, by name) are refused whatever their
/// value but `undefined` (`id: null` is a node id in flake-idgen), as a lease refuses them.
pub fn node_id(
  id_from: &Input,
  id_offset: &Input,
  given: &[(&'static str, &Input)],
  max: u16,
  env: &dyn Environment,
) -> Result<Option<u16>, FlakeError> {
  let Some((id_from, source)) = source(id_from)? else {
    if !id_offset.is_unset() {
      return Err(FlakeError::OptionType {
        option: "idOffset".into(),
        expected: "unset without `idFrom` (it is added to the number `idFrom` reads)".into(),
        got: id_offset.clone(),
      });
    }
    return Ok(None);
  };
  if let Some((option, value)) = given.iter().find(|(_, value)| **value != Input::Undefined) {
    return Err(FlakeError::OptionType {
      option: (*option).into(),
      expected: "left out: `idFrom` sets the node id".into(),
      got: (*value).clone(),
    });
  }
  let offset = match id_offset {
    unset if unset.is_unset() => 0,
    value => integer(
      "idOffset",
      value,
      u64::from(max),
      "an integer within the layout's node ids",
    )
    .map_err(|err| reword(err, &format!("an integer from 0 to {max}")))? as u16,
  };
  let (read, text, ordinal) = read(&source, id_from, env)?;
  let digits = if ordinal {
    text
      .rsplit_once('-')
      .filter(|(name, number)| !name.is_empty() && is_decimal(number))
      .map(|(_, number)| number)
  } else {
    Some(text.as_str()).filter(|number| is_decimal(number))
  };
  let Some(digits) = digits else {
    return Err(FlakeError::IdFromValue {
      id_from: id_from.into(),
      read,
      value: Input::String(text),
      problem: if ordinal {
        "which has no ordinal at its end (a StatefulSet names its pods <name>-<ordinal>, such as orders-7)"
      } else {
        "not a whole number (decimal digits only)"
      },
    });
  };
  // Digits past u64 are past every layout's node ids, as is a sum past them.
  let number = digits.parse::<u64>().unwrap_or(u64::MAX);
  match number.checked_add(u64::from(offset)) {
    Some(id) if id <= u64::from(max) => Ok(Some(id as u16)),
    _ => Err(FlakeError::IdFromRange {
      id_from: id_from.into(),
      read,
      value: Input::String(text),
      offset,
      max,
    }),
  }
}

/// `idFrom`'s `value`, checked, and what it names: `None` when it is unset.
fn source(value: &Input) -> Result<Option<(&str, Source<'_>)>, FlakeError> {
  let names: Vec<&str> = ORCHESTRATORS.iter().map(|row| row.name).collect();
  let listed = format!(
    "{} or '{ENV_PREFIX}NAME'",
    names
      .iter()
      .map(|name| format!("'{name}'"))
      .collect::<Vec<_>>()
      .join(", ")
  );
  let refuse = |expected: String| FlakeError::OptionType {
    option: "idFrom".into(),
    expected,
    got: value.clone(),
  };
  let text = match value {
    unset if unset.is_unset() => return Ok(None),
    Input::String(text) => text,
    _ => return Err(refuse(listed)),
  };
  if let Some(row) = ORCHESTRATORS.iter().find(|row| row.name == text) {
    return Ok(Some((text, Source::Orchestrator(row))));
  }
  if let Some(name) = text.strip_prefix(ENV_PREFIX) {
    if is_name(name) {
      return Ok(Some((text, Source::Env(name))));
    }
    return Err(refuse(format!(
      "{listed}, NAME of letters, digits and _, not starting with a digit"
    )));
  }
  // `ENV:SHARD` meant `env:SHARD`; `statefulSet` or `job_index`, a row's name.
  let meant = match text.get(..ENV_PREFIX.len()) {
    Some(prefix)
      if prefix.eq_ignore_ascii_case(ENV_PREFIX) && is_name(&text[ENV_PREFIX.len()..]) =>
    {
      Some(format!("{ENV_PREFIX}{}", &text[ENV_PREFIX.len()..]))
    }
    _ => nearest(text, &names).map(str::to_string),
  };
  Err(refuse(match meant {
    Some(meant) => format!("{listed} (did you mean '{meant}'?)"),
    None => listed,
  }))
}

/// A variable's name as shells write one: letters, digits and `_`, not starting with a digit
/// (and so never one `std::env` refuses: empty, or with `=` or NUL).
fn is_name(name: &str) -> bool {
  let mut chars = name.chars();
  chars
    .next()
    .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
    && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What `source` reads from `env`: where it was read (for messages), its text, and whether
/// that text is a pod's name ending in its ordinal. A StatefulSet's pod has its name in
/// `HOSTNAME` and as the host's name: the host's name is read when `HOSTNAME` is not set.
fn read(
  source: &Source,
  id_from: &str,
  env: &dyn Environment,
) -> Result<(String, String, bool), FlakeError> {
  let (variable, ordinal, set_by) = match source {
    Source::Orchestrator(row) => (row.variable, row.ordinal, row.set_by),
    Source::Env(name) => (*name, false, ""),
  };
  let value = env.var(variable);
  let empty = value.as_ref().is_some_and(|text| text.is_empty());
  if let Some(text) = value.filter(|text| !text.is_empty()) {
    return Ok((
      variable.into(),
      text.to_string_lossy().into_owned(),
      ordinal,
    ));
  }
  let state = if empty { "empty" } else { "not set" };
  if ordinal {
    return match env.hostname() {
      Ok(name) => Ok((
        format!("the host's name ({variable} is {state})"),
        name,
        true,
      )),
      Err(why) => Err(FlakeError::IdFromUnset {
        id_from: id_from.into(),
        variable: variable.into(),
        empty,
        hint: format!(", and the host's name cannot be read: {why}"),
      }),
    };
  }
  Err(FlakeError::IdFromUnset {
    id_from: id_from.into(),
    variable: variable.into(),
    empty,
    hint: set_by.into(),
  })
}

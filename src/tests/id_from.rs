//! `idFrom` and `idOffset` on an environment of the test's own: what each orchestrator sets
//! gives the node id; what is missing, malformed or past the layout's node ids is refused,
//! never taken as node id 0.

use std::collections::HashMap;
use std::ffi::OsString;

use super::NOW;
use crate::error::{ErrorKind, FlakeError};
use crate::input::Input::{self, Bool, Null, Number};
use crate::kinds::Kind;
use crate::options::id_from::Environment;
use crate::options::{parse_kind, Config, RawOptions};

/// Variables, and the host's name (or why it cannot be read).
struct Env {
  vars: HashMap<&'static str, &'static str>,
  hostname: Result<&'static str, &'static str>,
}

impl Environment for Env {
  fn var(&self, name: &str) -> Option<OsString> {
    self.vars.get(name).map(OsString::from)
  }

  fn hostname(&self) -> Result<String, String> {
    self.hostname.map(str::to_string).map_err(str::to_string)
  }
}

fn env(vars: &[(&'static str, &'static str)]) -> Env {
  Env {
    vars: vars.iter().copied().collect(),
    hostname: Ok("build-host"),
  }
}

fn s(text: &str) -> Input {
  Input::String(text.into())
}

fn options(id_from: &str, set: impl FnOnce(&mut RawOptions)) -> RawOptions {
  let mut raw = RawOptions {
    id_from: s(id_from),
    ..RawOptions::default()
  };
  set(&mut raw);
  raw
}

fn parsed(raw: &RawOptions, env: &Env) -> Result<Config, FlakeError> {
  parse_kind(raw, Kind::FlakeId, NOW, env)
}

/// The node id `id_from` reads from `vars`.
fn id(id_from: &str, vars: &[(&'static str, &'static str)]) -> u16 {
  let config = parsed(&options(id_from, |_| {}), &env(vars)).unwrap_or_else(|e| panic!("{e}"));
  assert_eq!(config.parts, None, "no parts: the node id was read whole");
  config.id
}

/// The refusal of `raw` on `env`: its message, checked for its code and class.
fn refused(raw: &RawOptions, env: &Env, code: &str, kind: ErrorKind) -> String {
  match parsed(raw, env) {
    Ok(config) => panic!("{raw:?} accepted as node id {}", config.id),
    Err(err) => {
      assert_eq!((err.code(), err.kind()), (code, kind), "{err}");
      err.to_string()
    }
  }
}

fn from_env(raw: &RawOptions, env: &Env, kind: ErrorKind) -> String {
  refused(raw, env, "ERR_FLAKE_ID_FROM", kind)
}

#[test]
fn each_orchestrator_gives_the_node_id_it_sets() {
  assert_eq!(id("statefulset", &[("HOSTNAME", "orders-7")]), 7);
  // Only the last dash ends the StatefulSet's name.
  assert_eq!(id("statefulset", &[("HOSTNAME", "web-api-12")]), 12);
  assert_eq!(id("job-index", &[("JOB_COMPLETION_INDEX", "3")]), 3);
  assert_eq!(id("pm2", &[("NODE_APP_INSTANCE", "2")]), 2);
  assert_eq!(id("env:SHARD_7x", &[("SHARD_7x", "1023")]), 1023);
  assert_eq!(id("env:_N", &[("_N", "0")]), 0);
  // A number is its decimal digits: leading zeros are its own.
  assert_eq!(id("env:N", &[("N", "0042")]), 42);
  assert_eq!(id("statefulset", &[("HOSTNAME", "node-07")]), 7);
}

#[test]
fn a_statefulset_pod_without_hostname_reads_the_hosts_name() {
  let env = Env {
    vars: HashMap::new(),
    hostname: Ok("orders-5"),
  };
  let config = parsed(&options("statefulset", |_| {}), &env).unwrap();
  assert_eq!(config.id, 5);
  // Set but empty reads the host's name too.
  let empty = Env {
    vars: [("HOSTNAME", "")].into_iter().collect(),
    hostname: Ok("orders-6"),
  };
  assert_eq!(
    parsed(&options("statefulset", |_| {}), &empty).unwrap().id,
    6
  );
  // HOSTNAME wins over the host's name.
  let both = Env {
    vars: [("HOSTNAME", "orders-1")].into_iter().collect(),
    hostname: Ok("orders-6"),
  };
  assert_eq!(
    parsed(&options("statefulset", |_| {}), &both).unwrap().id,
    1
  );
}

#[test]
fn a_missing_or_empty_variable_is_refused_never_node_id_0() {
  let raw = options("job-index", |_| {});
  assert_eq!(
    from_env(&raw, &env(&[]), ErrorKind::Error),
    "idFrom 'job-index': JOB_COMPLETION_INDEX is not set (an Indexed Job sets it in each pod)"
  );
  assert_eq!(
    from_env(
      &raw,
      &env(&[("JOB_COMPLETION_INDEX", "")]),
      ErrorKind::Error
    ),
    "idFrom 'job-index': JOB_COMPLETION_INDEX is empty (an Indexed Job sets it in each pod)"
  );
  assert!(
    from_env(&options("pm2", |_| {}), &env(&[]), ErrorKind::Error)
      .starts_with("idFrom 'pm2': NODE_APP_INSTANCE is not set (PM2 sets it")
  );
  assert_eq!(
    from_env(&options("env:SHARD", |_| {}), &env(&[]), ErrorKind::Error),
    "idFrom 'env:SHARD': SHARD is not set"
  );
  let no_name = Env {
    vars: HashMap::new(),
    hostname: Err("WASI gives none"),
  };
  assert_eq!(
    from_env(&options("statefulset", |_| {}), &no_name, ErrorKind::Error),
    "idFrom 'statefulset': HOSTNAME is not set, and the host's name cannot be read: WASI gives none"
  );
}

#[test]
fn a_name_with_no_ordinal_is_refused_naming_where_it_was_read() {
  let raw = options("statefulset", |_| {});
  for name in [
    "orders",
    "orders-",
    "orders-x",
    "orders-7x",
    "-7",
    "7",
    "orders-+7",
    "orders-٣",
  ] {
    let message = from_env(&raw, &env(&[("HOSTNAME", name)]), ErrorKind::TypeError);
    assert_eq!(
      message,
      format!(
        "idFrom 'statefulset': HOSTNAME is {}, which has no ordinal at its end (a StatefulSet names its pods <name>-<ordinal>, such as orders-7)",
        s(name)
      )
    );
  }
  let host = Env {
    vars: HashMap::new(),
    hostname: Ok("laptop"),
  };
  assert!(from_env(&raw, &host, ErrorKind::TypeError)
    .starts_with("idFrom 'statefulset': the host's name (HOSTNAME is not set) is \"laptop\", which has no ordinal"));
}

#[test]
fn a_value_that_is_not_decimal_digits_is_refused() {
  let raw = options("env:N", |_| {});
  for text in [
    " 3", "3 ", "3\n", "+3", "-3", "-0", "3.0", "1e3", "0x1F", "٣", "3_000",
  ] {
    let message = from_env(&raw, &env(&[("N", text)]), ErrorKind::TypeError);
    assert_eq!(
      message,
      format!(
        "idFrom 'env:N': N is {}, not a whole number (decimal digits only)",
        s(text)
      )
    );
  }
}

#[test]
fn id_offset_is_added_and_the_sum_checked_against_the_layout() {
  let vars = [("NODE_APP_INSTANCE", "2")];
  for offset in [Number(100.0), s("100")] {
    let raw = options("pm2", |o| o.id_offset = offset);
    assert_eq!(parsed(&raw, &env(&vars)).unwrap().id, 102);
  }
  // null is unset, as for every option but `id`.
  assert_eq!(
    parsed(&options("pm2", |o| o.id_offset = Null), &env(&vars))
      .unwrap()
      .id,
    2
  );
  let last = options("pm2", |o| o.id_offset = Number(1021.0));
  assert_eq!(parsed(&last, &env(&vars)).unwrap().id, 1023);
  let past = options("pm2", |o| o.id_offset = Number(1022.0));
  assert_eq!(
    from_env(&past, &env(&vars), ErrorKind::RangeError),
    "idFrom 'pm2': NODE_APP_INSTANCE is \"2\", whose number plus idOffset 1022 is past the layout's last node id, 1023"
  );
  let raw = options("statefulset", |_| {});
  assert_eq!(
    from_env(&raw, &env(&[("HOSTNAME", "orders-1024")]), ErrorKind::RangeError),
    "idFrom 'statefulset': HOSTNAME is \"orders-1024\", whose number is past the layout's last node id, 1023"
  );
  // Digits past 64 bits are past every layout's node ids, not a parse failure.
  let huge = "184467440737095516160";
  assert!(from_env(
    &options("env:N", |_| {}),
    &env(&[("N", huge)]),
    ErrorKind::RangeError
  )
  .contains("whose number is past the layout's last node id, 1023"));
}

#[test]
fn each_layout_has_its_own_range() {
  for (layout, last) in [
    ("twitter", 1023),
    ("instagram", 8191),
    ("sonyflake", 65_535),
    ("hazelcast", 65_535),
  ] {
    let at = |n: &'static str, offset: f64| {
      let raw = options("env:N", |o| {
        o.layout = s(layout);
        o.id_offset = Number(offset);
      });
      parsed(&raw, &env(&[("N", n)]))
    };
    assert_eq!(at("0", f64::from(last)).unwrap().id, last, "{layout}");
    let past = at("1", f64::from(last)).unwrap_err();
    assert_eq!(past.code(), "ERR_FLAKE_ID_FROM", "{layout}: {past}");
    assert!(past.to_string().ends_with(&format!(", {last}")), "{past}");
    // idOffset alone may not pass the layout's node ids.
    let offset = at("0", f64::from(last) + 1.0).unwrap_err();
    assert_eq!(
      offset.to_string(),
      format!(
        "option `idOffset` must be an integer from 0 to {last}, got {}",
        last as u32 + 1
      )
    );
    assert_eq!(offset.kind(), ErrorKind::RangeError);
  }
}

#[test]
fn the_given_sources_options_are_refused_beside_id_from() {
  let vars = [("JOB_COMPLETION_INDEX", "3")];
  for (option, set) in [
    (
      "id",
      (|o: &mut RawOptions| o.id = Number(1.0)) as fn(&mut RawOptions),
    ),
    ("id", |o| o.id = Null),
    ("datacenter", |o| o.datacenter = Number(1.0)),
    ("worker", |o| o.worker = s("1")),
    ("process", |o| {
      o.layout = s("discord");
      o.process = Number(1.0);
    }),
  ] {
    let message = refused(
      &options("job-index", set),
      &env(&vars),
      "ERR_FLAKE_INVALID_OPTION",
      ErrorKind::TypeError,
    );
    assert!(
      message.starts_with(&format!(
        "option `{option}` must be left out: `idFrom` sets the node id, got"
      )),
      "{message}"
    );
  }
}

#[test]
fn id_from_and_id_offset_null_are_unset() {
  let raw = RawOptions {
    id_from: Null,
    id_offset: Null,
    ..RawOptions::default()
  };
  let config = parsed(&raw, &env(&[])).unwrap();
  assert_eq!((config.id, config.parts), (0, Some([0, 0])));
}

#[test]
fn id_offset_without_id_from_is_refused() {
  let raw = RawOptions {
    id: Number(3.0),
    id_offset: Number(100.0),
    ..RawOptions::default()
  };
  assert_eq!(
    refused(&raw, &env(&[]), "ERR_FLAKE_INVALID_OPTION", ErrorKind::TypeError),
    "option `idOffset` must be unset without `idFrom` (it is added to the number `idFrom` reads), got 100"
  );
}

#[test]
fn an_unknown_id_from_is_refused_with_the_name_it_likely_meant() {
  let listed = "'statefulset', 'job-index', 'pm2' or 'env:NAME'";
  for (value, hint) in [
    (s("StatefulSet"), " (did you mean 'statefulset'?)"),
    (s("job_index"), " (did you mean 'job-index'?)"),
    (s("pm"), " (did you mean 'pm2'?)"),
    (s("ENV:SHARD"), " (did you mean 'env:SHARD'?)"),
    (s("kubernetes"), ""),
    (s(""), ""),
    (Number(7.0), ""),
    (Bool(true), ""),
  ] {
    let message = refused(
      &RawOptions {
        id_from: value.clone(),
        ..RawOptions::default()
      },
      &env(&[]),
      "ERR_FLAKE_INVALID_OPTION",
      ErrorKind::TypeError,
    );
    assert_eq!(
      message,
      format!("option `idFrom` must be {listed}{hint}, got {value}")
    );
  }
  for bad in ["env:", "env:1X", "env:A=B", "env:A B", "env:A\0"] {
    let message = refused(
      &options(bad, |_| {}),
      &env(&[]),
      "ERR_FLAKE_INVALID_OPTION",
      ErrorKind::TypeError,
    );
    assert_eq!(
      message,
      format!("option `idFrom` must be {listed}, NAME of letters, digits and _, not starting with a digit, got {}", s(bad))
    );
  }
}

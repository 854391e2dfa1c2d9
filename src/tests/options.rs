//! The option table: what flake-idgen accepts keeps working, what it would mask is refused.

use super::NOW;
use crate::error::{ErrorKind, FlakeError};
use crate::input::Input::{self, *};
use std::path::PathBuf;

use crate::host::dir::default_dirs;
use crate::kinds::layout::Layout;
use crate::options::{parse, Config, RawOptions, Scope};

fn with(set: impl FnOnce(&mut RawOptions)) -> RawOptions {
  let mut raw = RawOptions::default();
  set(&mut raw);
  raw
}

fn ok(raw: RawOptions) -> Config {
  parse(&raw, NOW).unwrap_or_else(|e| panic!("{raw:?} refused: {e}"))
}

fn refused(raw: RawOptions) -> FlakeError {
  match parse(&raw, NOW) {
    Ok(config) => panic!("{raw:?} accepted as {config:?}"),
    Err(err) => {
      assert_eq!(err.code(), "ERR_FLAKE_INVALID_OPTION", "{err}");
      err
    }
  }
}

fn s(text: &str) -> Input {
  String(text.into())
}

/// An absolute path on this system ("/tmp/x" is not one on Windows, which wants a drive).
const ABSOLUTE: &str = if cfg!(windows) { "C:/x" } else { "/tmp/x" };

#[test]
fn defaults_are_flake_idgens() {
  let config = ok(RawOptions::default());
  assert_eq!(
    config,
    Config {
      layout: Layout::DEFAULT,
      id: 0,
      parts: Some([0, 0]),
      epoch: 0,
      seq_mask: 4095,
      custom_clock: false,
      allowed_future_ms: 0,
      scope: default_scope(false),
    }
  );
  // `null` is unset too, as in flake-idgen's `options.x || 0`.
  let nulls = ok(with(|o| {
    o.datacenter = Null;
    o.worker = Null;
    o.epoch = Null;
    o.seq_mask = Null;
    o.clock = Null;
    o.allowed_future_ms = Null;
    o.scope = Null;
    o.state_dir = Null;
  }));
  assert_eq!(nulls, config);
}

#[test]
fn id_null_wins_as_generator_0_as_in_flake_idgen() {
  // flake-idgen: `typeof null !== 'undefined'`, so `id` wins and is `null & 0x3FF`.
  for (datacenter, worker) in [(Undefined, Undefined), (Number(3.0), Number(1.0))] {
    let config = ok(with(|o| {
      o.id = Null;
      o.datacenter = datacenter;
      o.worker = worker;
    }));
    assert_eq!((config.id, config.parts), (0, None));
  }
}

#[test]
fn seq_mask_0_is_the_default_as_in_flake_idgen() {
  // flake-idgen: `options.seqMask || 0xFFF`.
  for zero in [0.0, -0.0] {
    assert_eq!(ok(with(|o| o.seq_mask = Number(zero))).seq_mask, 4095);
  }
}

#[test]
fn id_wins_over_datacenter_and_worker() {
  let config = ok(with(|o| {
    o.id = Number(100.0);
    o.datacenter = Number(9.0);
    o.worker = Number(99.0);
  }));
  assert_eq!((config.id, config.parts), (100, None));
}

#[test]
fn datacenter_and_worker_make_the_id() {
  let config = ok(with(|o| {
    o.datacenter = Number(9.0);
    o.worker = Number(7.0);
  }));
  assert_eq!((config.id, config.parts), (9 << 5 | 7, Some([9, 7])));
  assert_eq!(
    ok(with(|o| {
      o.datacenter = Number(31.0);
      o.worker = Number(31.0)
    }))
    .id,
    1023
  );
}

#[test]
fn numeric_strings_are_accepted() {
  assert_eq!(ok(with(|o| o.id = s("1023"))).id, 1023);
  assert_eq!(ok(with(|o| o.worker = s(" 7\n"))).parts, Some([0, 7]));
  assert_eq!(
    ok(with(|o| o.epoch = s("1300000000000"))).epoch,
    1300000000000
  );
  assert_eq!(ok(with(|o| o.seq_mask = s("255"))).seq_mask, 255);
}

#[test]
fn epoch_takes_a_number_a_date_or_a_numeric_string() {
  assert_eq!(
    ok(with(|o| o.epoch = Number(1300000000000.0))).epoch,
    1300000000000
  );
  assert_eq!(
    ok(with(|o| o.epoch = Date(1300000000000.0))).epoch,
    1300000000000
  );
  assert_eq!(ok(with(|o| o.epoch = Number(NOW as f64))).epoch, NOW);
}

#[test]
fn out_of_range_numbers_are_range_errors_naming_option_and_value() {
  let cases = [
    (with(|o| o.id = Number(1024.0)), "option `id` must be an integer from 0 to 1023, got 1024"),
    (with(|o| o.id = Number(-1.0)), "option `id` must be an integer from 0 to 1023, got -1"),
    (with(|o| o.id = Number(1.5)), "option `id` must be an integer from 0 to 1023, got 1.5"),
    (with(|o| o.id = Number(f64::NAN)), "option `id` must be an integer from 0 to 1023, got NaN"),
    (with(|o| o.id = s("99999")), "option `id` must be an integer from 0 to 1023, got \"99999\""),
    (with(|o| o.worker = Number(32.0)), "option `worker` must be an integer from 0 to 31, got 32"),
    (
      with(|o| o.datacenter = Number(f64::INFINITY)),
      "option `datacenter` must be an integer from 0 to 31, got Infinity",
    ),
    (
      with(|o| o.epoch = Number((NOW + 1) as f64)),
      "option `epoch` must be not in the future (the clock reads 1795300000000), got 1795300000001",
    ),
    (
      with(|o| o.epoch = Date(f64::NAN)),
      "option `epoch` must be a non-negative integer number (or bigint) of ms since 1970, a Date or a numeric string, got Invalid Date",
    ),
    (
      with(|o| o.epoch = Number(-1.0)),
      "option `epoch` must be a non-negative integer number (or bigint) of ms since 1970, a Date or a numeric string, got -1",
    ),
  ];
  for (raw, message) in cases {
    let err = refused(raw);
    assert_eq!(
      (err.kind(), err.to_string().as_str()),
      (ErrorKind::RangeError, message)
    );
  }
}

#[test]
fn seq_mask_must_be_a_run_of_low_bits() {
  for k in 1..=12 {
    let mask = (1u16 << k) - 1;
    assert_eq!(
      ok(with(|o| o.seq_mask = Number(f64::from(mask)))).seq_mask,
      mask
    );
  }
  for bad in [
    s("0"),
    Number(2.0),
    Number(5.0),
    Number(4094.0),
    Number(4096.0),
    Number(8191.0),
  ] {
    let err = refused(with(|o| o.seq_mask = bad));
    assert_eq!(err.kind(), ErrorKind::RangeError);
    assert!(
      err
        .to_string()
        .starts_with("option `seqMask` must be 2^k - 1"),
      "{err}"
    );
  }
}

#[test]
fn values_of_the_wrong_type_are_type_errors() {
  let cases = [
    (with(|o| o.id = Bool(true)), "option `id` must be an integer from 0 to 1023, got true"),
    (with(|o| o.worker = s("abc")), "option `worker` must be an integer from 0 to 31, got \"abc\""),
    (with(|o| o.worker = s("")), "option `worker` must be an integer from 0 to 31, got \"\""),
    (with(|o| o.worker = s("0x1")), "option `worker` must be an integer from 0 to 31, got \"0x1\""),
    (with(|o| o.datacenter = Object), "option `datacenter` must be an integer from 0 to 31, got an object"),
    (with(|o| o.datacenter = Date(1.0)), "option `datacenter` must be an integer from 0 to 31, got a Date (1 ms)"),
    (
      with(|o| o.epoch = s("2020-01-01")),
      "option `epoch` must be a non-negative integer number (or bigint) of ms since 1970, a Date or a numeric string, got \"2020-01-01\"",
    ),
    (
      with(|o| o.seq_mask = BigInt("3".into())),
      "option `seqMask` must be 2^k - 1 for k from 1 to 12 (1, 3, 7, ..., 4095), got 3n",
    ),
    (
      with(|o| o.allowed_future_ms = s("5ms")),
      "option `allowedFutureMs` must be an integer number of ms from 0 to 1000, got \"5ms\"",
    ),
    (
      with(|o| o.clock = Number(5.0)),
      "option `clock` must be a function returning milliseconds since 1970, got 5",
    ),
  ];
  for (raw, message) in cases {
    let err = refused(raw);
    assert_eq!(
      (err.kind(), err.to_string().as_str()),
      (ErrorKind::TypeError, message)
    );
  }
}

#[test]
fn a_custom_clock_lifts_the_future_epoch_check() {
  let config = ok(with(|o| {
    o.clock = Function;
    o.epoch = Number((NOW + 1000) as f64);
  }));
  assert_eq!((config.epoch, config.custom_clock), (NOW + 1000, true));
}

#[test]
fn allowed_future_ms_is_an_integer_up_to_one_second() {
  assert_eq!(
    ok(with(|o| o.allowed_future_ms = Number(0.0))).allowed_future_ms,
    0
  );
  assert_eq!(
    ok(with(|o| o.allowed_future_ms = s("1000"))).allowed_future_ms,
    1000
  );
  for bad in [-1.0, 0.5, 1001.0, f64::NAN] {
    let err = refused(with(|o| o.allowed_future_ms = Number(bad)));
    assert_eq!(err.kind(), ErrorKind::RangeError, "{bad}");
    assert!(
      err
        .to_string()
        .starts_with("option `allowedFutureMs` must be"),
      "{err}"
    );
  }
}

#[test]
fn scope_is_host_by_default_and_required_once_asked_for() {
  let host = |dir: &str, required| Scope::Host {
    dir: PathBuf::from(dir),
    alternatives: vec![],
    required,
  };
  assert_eq!(ok(with(|o| o.scope = s("process"))).scope, Scope::Process);
  assert_eq!(ok(with(|o| o.scope = s("host"))).scope, default_scope(true));
  assert_eq!(
    ok(with(|o| o.state_dir = s(ABSOLUTE))).scope,
    host(ABSOLUTE, true)
  );
  // A clock of its own: a private state, whatever the default.
  assert_eq!(ok(with(|o| o.clock = Function)).scope, Scope::Process);
}

#[test]
fn scope_and_state_dir_refuse_what_they_could_not_do() {
  let cases = [
    (
      with(|o| o.scope = s("Host")),
      "option `scope` must be 'host' or 'process', got \"Host\"".to_string(),
    ),
    (
      with(|o| o.scope = Bool(true)),
      "option `scope` must be 'host' or 'process', got true".to_string(),
    ),
    (
      with(|o| o.state_dir = s("relative/dir")),
      "option `stateDir` must be an absolute path, got \"relative/dir\"".to_string(),
    ),
    (
      with(|o| o.state_dir = Number(1.0)),
      "option `stateDir` must be an absolute path, got 1".to_string(),
    ),
    (
      with(|o| {
        o.scope = s("process");
        o.state_dir = s(ABSOLUTE);
      }),
      format!("option `stateDir` must be unset with scope 'process', got \"{ABSOLUTE}\""),
    ),
    (
      with(|o| {
        o.clock = Function;
        o.scope = s("host");
      }),
      "option `scope` must be 'process' or unset with a `clock` option (a clock of its own keeps a private state), got \"host\"".to_string(),
    ),
    (
      with(|o| {
        o.clock = Function;
        o.state_dir = s(ABSOLUTE);
      }),
      format!("option `stateDir` must be unset with a `clock` option (a clock of its own keeps a private state), got \"{ABSOLUTE}\""),
    ),
  ];
  for (raw, message) in cases {
    let err = refused(raw);
    assert_eq!(
      (err.kind(), err.to_string().as_str()),
      (ErrorKind::TypeError, message.as_str())
    );
  }
}

/// Host scope in the default directories, as `parse` gives it without a `stateDir`.
fn default_scope(required: bool) -> Scope {
  let dirs = default_dirs();
  Scope::Host {
    dir: dirs[0].clone(),
    alternatives: dirs[1..].to_vec(),
    required,
  }
}

#[test]
fn bigint_epochs_as_sapphire_gives_them() {
  use crate::options::values::epoch;
  assert_eq!(
    epoch(&Input::BigInt("1420070400000".into())),
    Ok(1_420_070_400_000)
  );
  assert_eq!(epoch(&Input::BigInt("0".into())), Ok(0));
  for bad in ["-1", "9007199254740992"] {
    let err = epoch(&Input::BigInt(bad.into())).unwrap_err();
    assert_eq!(err.code(), "ERR_FLAKE_INVALID_OPTION", "{bad}");
    assert_eq!(err.kind(), crate::error::ErrorKind::RangeError, "{bad}");
  }
}

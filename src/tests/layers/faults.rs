//! The layers' checks on small crates held in memory: each fault they exist to find, found and
//! named, and what they must let be.

use std::collections::HashMap;

use super::gates::{misplaced, Allowance};
use super::{file_circles, folder_circles, ALLOWED_CIRCLES, LINUX, WASM};
use crate::tests::modules::{module_graph, tree_of, Source};

/// The module tree of these files, by their paths from `src/`.
fn tree(files: &[(&str, &str)]) -> Vec<Source> {
  let files: HashMap<String, String> = files
    .iter()
    .map(|(path, text)| (path.to_string(), text.to_string()))
    .collect();
  tree_of(|file| files.get(file).cloned())
}

/// The one failure `faults` holds for `case`, which must name each of `culprits`.
fn names(case: &str, faults: &[String], culprits: &[&str]) {
  assert_eq!(faults.len(), 1, "one fault for {case}: {faults:#?}");
  for culprit in culprits {
    assert!(
      faults[0].contains(culprit),
      "`{culprit}` named for {case} in:\n{}",
      faults[0]
    );
  }
}

/// `y.rs` reaches `x/inner.rs`, which imports it back, by `reach` (its `use`s) and `call` (its
/// code), with `x/mod.rs` holding `x`: a circle between those two files, whatever path names
/// `x/inner.rs`.
fn circle_by(x: &str, reach: &str, call: &str) -> Vec<String> {
  let y = format!("{reach}\npub fn f() {{ {call}(); }}\n");
  let sources = tree(&[
    ("lib.rs", "mod x;\nmod y;\n"),
    ("x/mod.rs", x),
    ("x/inner.rs", "use crate::y::f;\npub fn g() {}\n"),
    ("y.rs", &y),
  ]);
  file_circles(&sources, &[])
}

#[test]
fn a_circle_through_a_rename_or_an_import_is_found() {
  for (reach, call) in [
    ("use crate::x as alias;", "alias::inner::g"),
    ("use super::{x as alias};", "alias::inner::g"),
    ("use crate::x::{self as alias};", "alias::inner::g"),
    ("use crate::x;", "x::inner::g"),
    ("use crate::x::inner as i; use i as j;", "j::g"),
    ("use crate::x::*;", "inner::g"),
  ] {
    names(
      &format!("{reach} {call}"),
      &circle_by("mod inner;\n", reach, call),
      &[
        "src/x/inner.rs, src/y.rs:",
        "src/y.rs -> src/x/inner.rs",
        "src/x/inner.rs -> src/y.rs (crate::y::f)",
      ],
    );
  }
}

#[test]
fn a_re_export_is_followed_to_the_module_that_holds_it() {
  for (reach, call) in [
    ("", "crate::x::g"),
    ("use crate::x::g;", "g"),
    ("use crate::x::g as h;", "h"),
  ] {
    names(
      &format!("{reach} {call}"),
      &circle_by("mod inner;\npub use inner::g;\n", reach, call),
      &[
        "src/x/inner.rs, src/y.rs:",
        "src/y.rs -> src/x/inner.rs (",
        ", that is crate::x::inner)",
      ],
    );
  }
  // A glob re-export, and a rename in one, reach the file that defines the name.
  for (x, path) in [
    ("mod inner;\npub use inner::*;\n", "crate::x::g"),
    (
      "mod inner;\npub use self::inner::{g as h};\n",
      "crate::x::h",
    ),
  ] {
    let y = format!("pub fn f() {{ {path}(); }}\n");
    let sources = tree(&[
      ("lib.rs", "mod x;\nmod y;\n"),
      ("x/mod.rs", x),
      ("x/inner.rs", "pub fn g() {}\n"),
      ("y.rs", &y),
    ]);
    let to: Vec<&str> = module_graph(&sources)[3]
      .keys()
      .map(|&i| sources[i].file.as_str())
      .collect();
    assert_eq!(to, ["x/inner.rs"], "{path} with x/mod.rs: {x}");
  }
}

#[test]
fn a_circle_through_a_path_attribute_is_found() {
  let sources = tree(&[
    ("lib.rs", "#[path = \"real.rs\"]\nmod alias;\nmod y;\n"),
    ("real.rs", "use crate::y::f;\npub fn g() {}\n"),
    ("y.rs", "pub fn f() { crate::alias::g(); }\n"),
  ]);
  names(
    "a #[path] module",
    &file_circles(&sources, &[]),
    &[
      "src/real.rs -> src/y.rs",
      "src/y.rs -> src/real.rs (crate::alias::g)",
    ],
  );
}

#[test]
fn words_that_are_not_paths_make_no_edges() {
  let sources = tree(&[
    ("lib.rs", "mod x;\nmod y;\n"),
    ("x.rs", "use crate::y::f;\n"),
    (
      "y.rs",
      "// crate::x::a\nconst S: &str = \"crate::x::b\";\nuse std::x as x2;\npub fn f() { x2::c(); }\n",
    ),
  ]);
  assert_eq!(file_circles(&sources, &[]), Vec::<String>::new());
}

/// The SIGBUS guard's pair, and `extra` beside it.
fn host(extra: &[(&str, &str)]) -> Vec<Source> {
  let mut files = vec![
    ("lib.rs", "mod host;\nmod z;\n"),
    ("host/mod.rs", "mod file;\nmod sigbus;\n"),
    (
      "host/file.rs",
      "use super::sigbus::register;\npub fn lost() {}\n",
    ),
  ];
  files.extend_from_slice(extra);
  tree(&files)
}

#[test]
fn the_sigbus_pair_alone_is_allowed() {
  let sources = host(&[
    (
      "host/sigbus.rs",
      "use super::file::lost;\npub fn register() {}\n",
    ),
    ("z.rs", ""),
  ]);
  assert_eq!(
    file_circles(&sources, ALLOWED_CIRCLES),
    Vec::<String>::new()
  );
  // Unless it is gone: then the allowance is stale.
  let sources = host(&[("host/sigbus.rs", "pub fn register() {}\n"), ("z.rs", "")]);
  names(
    "the pair gone",
    &file_circles(&sources, ALLOWED_CIRCLES),
    &["the allowed circle [\"host/file.rs\", \"host/sigbus.rs\"] is not among those found"],
  );
}

#[test]
fn a_circle_that_swallows_the_sigbus_pair_is_blamed_on_its_new_edges() {
  let sources = host(&[
    (
      "host/sigbus.rs",
      "use super::file::lost;\nuse crate::z::shared;\npub fn register() {}\n",
    ),
    ("z.rs", "pub fn shared() { crate::host::file::lost(); }\n"),
  ]);
  let faults = file_circles(&sources, ALLOWED_CIRCLES);
  names(
    "the pair swallowed",
    &faults,
    &[
      "closed by src/host/sigbus.rs -> src/z.rs (crate::z::shared) and src/z.rs -> src/host/file.rs (crate::host::file::lost)",
      "src/host/file.rs -> src/host/sigbus.rs (super::sigbus::register) [allowed]",
    ],
  );
  assert!(!faults[0].contains("is not among"), "{}", faults[0]);
}

#[test]
fn a_circle_of_folders_is_found() {
  let sources = tree(&[
    ("lib.rs", "mod a;\nmod b;\n"),
    ("a/mod.rs", "mod one;\nmod two;\n"),
    ("a/one.rs", "use crate::b::f;\n"),
    ("a/two.rs", "pub fn g() {}\n"),
    ("b.rs", "pub fn f() { crate::a::two::g(); }\n"),
  ]);
  assert_eq!(file_circles(&sources, &[]), Vec::<String>::new());
  names(
    "a circle of folders",
    &folder_circles(&sources),
    &[
      "src/a/, src/b.rs",
      "src/a/one.rs -> src/b.rs",
      "src/b.rs -> src/a/two.rs",
    ],
  );
}

/// `gate` in file `file` of a crate beside `os/`, checked against `allowed`.
fn gated(file: &str, gate: &str, allowed: &[Allowance]) -> Vec<String> {
  let text = format!("//! A file.\n{gate}\npub fn f() {{}}\n");
  let sources = tree(&[
    ("lib.rs", "mod a;\nmod host;\nmod js;\nmod os;\n"),
    ("a.rs", if file == "a.rs" { &text } else { "" }),
    ("host/mod.rs", "mod file;\n"),
    (
      "host/file.rs",
      if file == "host/file.rs" { &text } else { "" },
    ),
    ("js/mod.rs", "mod seam;\n"),
    ("js/seam/mod.rs", "mod protocol;\n"),
    (
      "js/seam/protocol.rs",
      if file == "js/seam/protocol.rs" {
        &text
      } else {
        ""
      },
    ),
    ("os/mod.rs", if file == "os/mod.rs" { &text } else { "" }),
  ]);
  misplaced(&sources, allowed)
}

#[test]
fn every_platform_gate_outside_os_is_found() {
  for gate in [
    "#[cfg(target_env = \"musl\")]",
    "#[cfg(target_arch = \"x86_64\")]",
    "#[cfg(all(unix, target_pointer_width = \"64\"))]",
    "#[cfg(any(unix, windows))]",
    "#[cfg(not(target_family = \"wasm\"))]",
    "#[cfg(target_vendor = \"apple\")]",
    "#[cfg_attr(target_os = \"macos\", allow(dead_code))]",
    "const X: bool = cfg!(windows);",
  ] {
    names(gate, &gated("a.rs", gate, &[]), &["src/a.rs:2: "]);
    // In os/, it is where it belongs.
    assert_eq!(
      gated("os/mod.rs", gate, &[]),
      Vec::<String>::new(),
      "{gate}"
    );
  }
  names(
    "a test's gate on musl",
    &gated("a.rs", "#[cfg(all(test, target_env = \"musl\"))]", &[]),
    &["src/a.rs:2: cfg(all(test, target_env = \"musl\")) (names target_env = \"musl\")"],
  );
}

#[test]
fn gates_on_no_system_are_no_faults() {
  for gate in [
    "#[cfg(test)]",
    "#[cfg(feature = \"x\")]",
    "#[cfg_attr(test, allow(dead_code))]",
    "const X: bool = cfg!(debug_assertions);",
    "// #[cfg(unix)]",
    "const S: &str = \"#[cfg(windows)]\";",
    "#[cfg_attr(test, path = \"unix.rs\")]",
  ] {
    assert_eq!(gated("a.rs", gate, &[]), Vec::<String>::new(), "{gate}");
  }
}

#[test]
fn an_allowance_takes_its_places_and_conditions_alone() {
  let linux = "#[cfg(any(target_os = \"linux\", target_os = \"android\"))]";
  let guard: &[Allowance] = &[("host/file.rs", LINUX, "the guard")];
  assert_eq!(gated("host/file.rs", linux, guard), Vec::<String>::new());
  // Not in another file, nor on another condition in its own.
  let faults = gated("a.rs", linux, guard);
  assert_eq!(faults.len(), 2, "{faults:#?}");
  assert!(
    faults[0].starts_with("src/a.rs:2: cfg(any("),
    "{}",
    faults[0]
  );
  assert!(
    faults[1].starts_with("src/host/file.rs: no gate"),
    "{}",
    faults[1]
  );
  assert!(
    faults[1].contains("no longer needs its allowance: the guard"),
    "{}",
    faults[1]
  );
  let faults = gated(
    "host/file.rs",
    "#[cfg(all(target_os = \"linux\", target_env = \"musl\"))]",
    guard,
  );
  assert_eq!(faults.len(), 2, "{faults:#?}");
  assert!(
    faults[0].starts_with("src/host/file.rs:2: cfg(all("),
    "{}",
    faults[0]
  );
  assert!(
    faults[0].ends_with("target_env = \"musl\")"),
    "{}",
    faults[0]
  );
  // A file of that name at any depth under its folder.
  let wasm = "#[cfg(target_family = \"wasm\")]";
  let scratch: &[Allowance] = &[("js/**/protocol.rs", WASM, "the scratch")];
  assert_eq!(
    gated("js/seam/protocol.rs", wasm, scratch),
    Vec::<String>::new()
  );
  assert!(gated("a.rs", wasm, scratch)[0].starts_with("src/a.rs:2: "));
}

#[test]
fn a_last_segment_names_both_an_item_and_an_import_of_its_name() {
  // `x/mod.rs` has a function `inner` and, by a `use`, another module named `inner`: a path
  // ending in it may mean either, so it names both.
  let sources = tree(&[
    ("lib.rs", "mod x;\nmod y;\nmod z;\n"),
    (
      "x/mod.rs",
      "use crate::z::{self as inner};\npub fn inner() {}\n",
    ),
    (
      "y.rs",
      "pub fn f() { crate::x::inner(); crate::x::inner::g(); }\n",
    ),
    ("z.rs", "pub fn g() {}\n"),
  ]);
  let to: Vec<&str> = module_graph(&sources)[2]
    .keys()
    .map(|&i| sources[i].file.as_str())
    .collect();
  assert_eq!(to, ["x/mod.rs", "z.rs"]);
}

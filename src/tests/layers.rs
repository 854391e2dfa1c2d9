//! The rules of docs/ARCHITECTURE.md that the layout keeps. The core stands apart from N-API:
//! only `js` (and these tests) may know it, so that every rule of the ids can be tested here on
//! a fake clock, without Node. No two files (or folders) import each other, but for the SIGBUS
//! guard's pair. Code for one system lives in `os/`, but for the SIGBUS guard and the
//! WebAssembly build's exports, each place named with its reason (`OS_GATED`). Imports are read
//! through renames and re-exports (`modules`); `faults` shows each check finding what it is for.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::modules::{circles, module_graph, module_tree, unexcused, Source};
use gates::{misplaced, Allowance};

mod faults;
mod gates;

/// The `.rs` files under `dir`, sorted, so a failure names the same files on every run.
fn sources_under(dir: &Path) -> Vec<PathBuf> {
  let mut files = Vec::new();
  let mut dirs = vec![dir.to_path_buf()];
  while let Some(dir) = dirs.pop() {
    for entry in std::fs::read_dir(&dir).expect("a readable source directory") {
      let path = entry.expect("a readable directory entry").path();
      if path.is_dir() {
        dirs.push(path);
      } else if path.extension().is_some_and(|ext| ext == "rs") {
        files.push(path);
      }
    }
  }
  files.sort();
  files
}

#[test]
fn only_the_js_layer_knows_napi() {
  let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
  let files = sources_under(&src);
  assert!(
    files.iter().any(|file| file.ends_with("lib.rs")),
    "the sources under {}",
    src.display()
  );
  let offenders: Vec<String> = files
    .iter()
    .filter(|file| !file.starts_with(src.join("js")) && !file.starts_with(src.join("tests")))
    .flat_map(|file| {
      let text = std::fs::read_to_string(file).expect("a readable source file");
      let shown = file.strip_prefix(&src).unwrap().display().to_string();
      ["crate::js", "napi"]
        .into_iter()
        .filter(move |word| text.contains(word))
        .map(move |word| format!("src/{shown} mentions `{word}`"))
    })
    .collect();
  // Nor reach `js` by another name (`use crate as c;` then `c::js::…`).
  let mut offenders = offenders;
  let sources = module_tree(&src);
  let in_js = |i: usize| sources[i].file.starts_with("js/");
  for (from, edges) in module_graph(&sources).iter().enumerate() {
    for (&to, path) in edges.iter().filter(|(&to, _)| in_js(to) && !in_js(from)) {
      let (from, to) = (&sources[from].file, &sources[to].file);
      offenders.push(format!("src/{from} uses src/{to} ({path})"));
    }
  }
  assert!(
    offenders.is_empty(),
    "outside src/js/, the core must not know N-API:\n{}",
    offenders.join("\n")
  );
}

/// The import circles allowed: the SIGBUS handler and the file it guards, which must know each
/// other (the handler finds the mapping the fault is in; the file registers its mappings).
const ALLOWED_CIRCLES: &[&[&str]] = &[&["host/file.rs", "host/sigbus.rs"]];

/// A circle's cycles, a step a line: `src/a.rs -> src/b.rs (the path that names it)`; where a
/// cycle takes allowed steps, they are marked so, and the steps that are not named first.
fn worded(
  cycles: &[Vec<usize>],
  step: impl Fn(usize, usize) -> String,
  allowed: impl Fn(usize, usize) -> bool,
) -> String {
  cycles
    .iter()
    .map(|cycle| {
      let steps: Vec<(usize, usize)> = cycle.windows(2).map(|pair| (pair[0], pair[1])).collect();
      let new: Vec<String> = steps
        .iter()
        .filter(|&&(from, to)| !allowed(from, to))
        .map(|&(from, to)| step(from, to))
        .collect();
      let all: Vec<String> = steps
        .iter()
        .map(|&(from, to)| {
          let mark = if allowed(from, to) { " [allowed]" } else { "" };
          format!("{}{mark}", step(from, to))
        })
        .collect();
      if new.len() == steps.len() {
        all.join(",\n    ")
      } else {
        format!(
          "closed by {}:\n      {}",
          new.join(" and "),
          all.join(",\n      ")
        )
      }
    })
    .collect::<Vec<_>>()
    .join("\n    ")
}

/// The circles of files among `sources` that `allowed` does not name, each worded with the
/// edges that close it; and each allowed circle no longer found (stale, or this reading stopped
/// seeing the paths that make it).
fn file_circles(sources: &[Source], allowed: &[&[&str]]) -> Vec<String> {
  let named = module_graph(sources);
  let edges: Vec<BTreeSet<usize>> = named
    .iter()
    .map(|to| to.keys().copied().collect())
    .collect();
  let file = |i: usize| sources[i].file.as_str();
  let excused = |from: usize, to: usize| {
    allowed
      .iter()
      .any(|circle| circle.contains(&file(from)) && circle.contains(&file(to)))
  };
  let step = |from: usize, to: usize| {
    format!(
      "src/{} -> src/{} ({})",
      file(from),
      file(to),
      named[from][&to]
    )
  };
  let groups = circles(&edges);
  let mut out: Vec<String> = allowed
    .iter()
    .filter(|circle| {
      !groups.iter().any(|group| {
        circle
          .iter()
          .all(|member| group.iter().any(|&i| file(i) == *member))
      })
    })
    .map(|circle| format!("the allowed circle {circle:?} is not among those found"))
    .collect();
  for (group, cycles) in unexcused(&edges, excused) {
    let files: Vec<String> = group.iter().map(|&i| format!("src/{}", file(i))).collect();
    out.push(format!(
      "{}:\n    {}",
      files.join(", "),
      worded(&cycles, step, excused)
    ));
  }
  out
}

#[test]
fn no_two_rust_files_import_each_other() {
  let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
  let sources = module_tree(&src);
  // Every file of src/ is in the tree (else this test would not read it).
  let in_tree: BTreeSet<String> = sources.iter().map(|source| source.file.clone()).collect();
  let on_disk: BTreeSet<String> = sources_under(&src)
    .iter()
    .map(|file| {
      file
        .strip_prefix(&src)
        .unwrap()
        .display()
        .to_string()
        .replace('\\', "/")
    })
    .filter(|file| !file.starts_with("tests/"))
    .collect();
  assert_eq!(
    in_tree, on_disk,
    "the files `mod` declarations reach are src/'s"
  );
  let bad = file_circles(&sources, ALLOWED_CIRCLES);
  assert!(
    bad.is_empty(),
    "Rust files that import each other (docs/ARCHITECTURE.md):\n  {}",
    bad.join("\n  ")
  );
}

/// The circles between src/'s top-level folders (and its files) among `sources`: one may use
/// another, or be used by it, not both.
fn folder_circles(sources: &[Source]) -> Vec<String> {
  let named = module_graph(sources);
  let unit = |file: &str| match file.split_once('/') {
    Some((folder, _)) => format!("{folder}/"),
    None => file.to_string(),
  };
  let units: Vec<String> = sources
    .iter()
    .map(|source| unit(&source.file))
    .collect::<BTreeSet<_>>()
    .into_iter()
    .collect();
  let index = |file: &str| units.iter().position(|unit_| *unit_ == unit(file)).unwrap();
  let mut unit_edges = vec![BTreeSet::new(); units.len()];
  let mut unit_named: HashMap<(usize, usize), String> = HashMap::new();
  for (from, to_all) in named.iter().enumerate() {
    for (&to, path) in to_all {
      let (a, b) = (index(&sources[from].file), index(&sources[to].file));
      if a != b {
        unit_edges[a].insert(b);
        unit_named.entry((a, b)).or_insert_with(|| {
          let (from, to) = (&sources[from].file, &sources[to].file);
          format!("src/{from} -> src/{to} ({path})")
        });
      }
    }
  }
  let step = |from: usize, to: usize| unit_named[&(from, to)].clone();
  unexcused(&unit_edges, |_, _| false)
    .into_iter()
    .map(|(group, cycles)| {
      let names: Vec<String> = group.iter().map(|&i| format!("src/{}", units[i])).collect();
      format!(
        "{}:\n    {}",
        names.join(", "),
        worded(&cycles, step, |_, _| false)
      )
    })
    .collect()
}

#[test]
fn no_two_folders_of_src_import_each_other() {
  let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
  let bad = folder_circles(&module_tree(&src));
  assert!(
    bad.is_empty(),
    "folders of src/ that import each other:\n  {}",
    bad.join("\n  ")
  );
}

/// The SIGBUS guard's condition: Linux (and Android, Linux's kernel).
const LINUX: &[&str] = &[r#"target_os = "linux""#, r#"target_os = "android""#];

/// The WebAssembly build's condition.
const WASM: &[&str] = &[r#"target_family = "wasm""#];

/// The places outside `os/` that may hold code for one system (`#[cfg(unix)]`,
/// `cfg!(target_os = …)`, `target_env`, `target_arch`, …), on which conditions, and why.
const OS_GATED: &[Allowance] = &[
  (
    "host/mod.rs",
    LINUX,
    "declares the SIGBUS guard, Linux's alone",
  ),
  (
    "host/file.rs",
    LINUX,
    "the SIGBUS guard: a truncated mapping survived, on Linux",
  ),
  (
    "sequencer.rs",
    LINUX,
    "`spent`, the words a lost state file reads, for the SIGBUS guard",
  ),
  (
    "js/mod.rs",
    WASM,
    "declares the WebAssembly build's plain exports (js/wasm_exports.rs), its module alone",
  ),
  (
    "js/**/protocol.rs",
    WASM,
    "the WebAssembly build's scratch, in the module's memory (its runtime copies JS buffers)",
  ),
  (
    "js/**/setup.rs",
    WASM,
    "the WebAssembly build's refusal(), which throws why a plain export issued nothing",
  ),
  (
    "js/**/thread.rs",
    WASM,
    "the WebAssembly build's one env, which its plain exports (called with none) serve",
  ),
];

#[test]
fn code_for_one_system_lives_in_os() {
  let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
  let bad = misplaced(&module_tree(&src), OS_GATED);
  assert!(
    bad.is_empty(),
    "code for one system outside src/os/ (docs/ARCHITECTURE.md):\n  {}",
    bad.join("\n  ")
  );
}

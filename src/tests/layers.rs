//! The rules of docs/ARCHITECTURE.md that the layout keeps. The core stands apart from N-API:
//! only `js` (and these tests) may know it, so that every rule of the ids can be tested here on
//! a fake clock, without Node. No two files (or folders) import each other, but for the SIGBUS
//! guard's pair. Code for one system lives in `os/`, but for the SIGBUS guard.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::modules::{circles, cycle, module_graph, module_tree, tokens};

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
  assert!(
    offenders.is_empty(),
    "outside src/js/, the core must not know N-API:\n{}",
    offenders.join("\n")
  );
}

/// The import circles allowed: the SIGBUS handler and the file it guards, which must know each
/// other (the handler finds the mapping the fault is in; the file registers its mappings).
const ALLOWED_CIRCLES: &[&[&str]] = &[&["host/file.rs", "host/sigbus.rs"]];

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
  let named = module_graph(&sources);
  let edges: Vec<BTreeSet<usize>> = named
    .iter()
    .map(|to| to.keys().copied().collect())
    .collect();
  let shown = |path: &[usize]| {
    path
      .windows(2)
      .map(|step| {
        let (from, to) = (&sources[step[0]].file, &sources[step[1]].file);
        format!("src/{from} -> src/{to} ({})", named[step[0]][&step[1]])
      })
      .collect::<Vec<_>>()
      .join(",\n    ")
  };
  let groups = circles(&edges);
  let seen: Vec<Vec<&str>> = groups
    .iter()
    .map(|group| group.iter().map(|&i| sources[i].file.as_str()).collect())
    .collect();
  for allowed in ALLOWED_CIRCLES {
    // Else the allowance is stale, or this test stopped reading `super::` paths.
    assert!(
      seen.iter().any(|group| group == allowed),
      "the allowed circle {allowed:?} is not among those found: {seen:?}"
    );
  }
  let bad: Vec<String> = groups
    .into_iter()
    .filter(|group| {
      let files: Vec<&str> = group.iter().map(|&i| sources[i].file.as_str()).collect();
      !ALLOWED_CIRCLES.contains(&files.as_slice())
    })
    .map(|group| {
      let files: Vec<String> = group
        .iter()
        .map(|&i| format!("src/{}", sources[i].file))
        .collect();
      format!(
        "{}:\n    {}",
        files.join(", "),
        shown(&cycle(&edges, &group))
      )
    })
    .collect();
  assert!(
    bad.is_empty(),
    "Rust files that import each other (docs/ARCHITECTURE.md):\n  {}",
    bad.join("\n  ")
  );
}

/// The same between src/'s top-level folders (and its files): one may use another, or be used
/// by it, not both.
#[test]
fn no_two_folders_of_src_import_each_other() {
  let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
  let sources = module_tree(&src);
  let named = module_graph(&sources);
  let unit = |file: &str| match file.split_once('/') {
    Some((folder, _)) => format!("{folder}/"),
    None => file.to_string(),
  };
  let units: Vec<String> = sources
    .iter()
    .map(|source| source.file.as_str())
    .map(&unit)
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
  let bad: Vec<String> = circles(&unit_edges)
    .into_iter()
    .map(|group| {
      let path = cycle(&unit_edges, &group);
      let steps: Vec<String> = path
        .windows(2)
        .map(|step| unit_named[&(step[0], step[1])].clone())
        .collect();
      let names: Vec<String> = group.iter().map(|&i| format!("src/{}", units[i])).collect();
      format!("{}:\n    {}", names.join(", "), steps.join(",\n    "))
    })
    .collect();
  assert!(
    bad.is_empty(),
    "folders of src/ that import each other:\n  {}",
    bad.join("\n  ")
  );
}

/// The files outside `os/` that may hold code for one system (`#[cfg(unix)]`,
/// `cfg!(target_os = …)`, …), and why.
const OS_GATED: &[(&str, &str)] = &[
  ("host/mod.rs", "declares the SIGBUS guard, Linux's alone"),
  (
    "host/file.rs",
    "the SIGBUS guard: a truncated mapping survived, on Linux",
  ),
  (
    "js/mod.rs",
    "declares the WebAssembly build's plain exports (js/wasm_exports.rs), its module alone",
  ),
  (
    "js/protocol.rs",
    "the WebAssembly build's scratch, in the module's memory (its runtime copies JS buffers)",
  ),
  (
    "js/setup.rs",
    "the WebAssembly build's refusal(), which throws why a plain export issued nothing",
  ),
  (
    "js/thread.rs",
    "the WebAssembly build's one env, which its plain exports (called with none) serve",
  ),
  (
    "sequencer.rs",
    "`spent`, the words a lost state file reads, for the SIGBUS guard",
  ),
];

#[test]
fn code_for_one_system_lives_in_host_os() {
  let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
  let mut gated = Vec::new();
  for source in module_tree(&src) {
    if source.file.starts_with("os/") {
      continue;
    }
    let words = tokens(&source.code);
    let mut count = 0;
    for (i, word) in words.iter().enumerate() {
      if !["cfg", "cfg_attr"].contains(&word.as_str()) {
        continue;
      }
      // The condition: from the `(` after `cfg`, `cfg!` or `cfg_attr` to its match.
      let open = i + 1 + usize::from(words.get(i + 1).is_some_and(|word| word == "!"));
      if words.get(open).is_none_or(|word| word != "(") {
        continue;
      }
      let mut depth = 0;
      let condition = words[open..].iter().take_while(|word| {
        depth += match word.as_str() {
          "(" => 1,
          ")" => -1,
          _ => 0,
        };
        depth > 0
      });
      let os = [
        "unix",
        "windows",
        "target_os",
        "target_family",
        "target_vendor",
      ];
      if condition
        .into_iter()
        .any(|word| os.contains(&word.as_str()))
      {
        count += 1;
      }
    }
    let allowed = OS_GATED.iter().any(|(file, _)| *file == source.file);
    if count > 0 && !allowed {
      gated.push(format!("src/{}: {count}", source.file));
    }
    if count == 0 && allowed {
      gated.push(format!(
        "src/{}: none (no longer needs its allowance)",
        source.file
      ));
    }
  }
  assert!(
    gated.is_empty(),
    "code for one system outside src/os/ (gates per file):\n  {}",
    gated.join("\n  ")
  );
}

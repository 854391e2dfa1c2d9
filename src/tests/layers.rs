//! The core stands apart from N-API: only `js` (and these tests) may know it, so that every rule
//! of the ids can be tested here on a fake clock, without Node.

use std::path::{Path, PathBuf};

/// The `.rs` files under `dir`, sorted, so a failure names the same files on every run.
fn sources(dir: &Path) -> Vec<PathBuf> {
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
  let files = sources(&src);
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

//! The crate's module tree and import graph, read from `src/` as text for `layers`: which file
//! each `mod` declares (here), which files each one's paths name (`graph`), and the circles
//! they make (`circles`).

use std::path::Path;

mod circles;
mod graph;

pub(super) use circles::{circles, unexcused};
pub(super) use graph::module_graph;

/// The source with its comments and the insides of its string and char literals blanked (line
/// breaks kept, so a line of it is the same line of the file): what is left is code.
pub(super) fn code(text: &str) -> String {
  let chars: Vec<char> = text.chars().collect();
  let mut out = String::with_capacity(text.len());
  let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
  let mut i = 0;
  while i < chars.len() {
    let c = chars[i];
    let next = chars.get(i + 1).copied();
    if c == '/' && next == Some('/') {
      while i < chars.len() && chars[i] != '\n' {
        blank(&mut out, chars[i]);
        i += 1;
      }
    } else if c == '/' && next == Some('*') {
      let mut depth = 0;
      while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
          depth += 1;
          out.push_str("  ");
          i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
          depth -= 1;
          out.push_str("  ");
          i += 2;
          if depth == 0 {
            break;
          }
        } else {
          blank(&mut out, chars[i]);
          i += 1;
        }
      }
    } else if c == 'r' && (next == Some('"') || next == Some('#')) && !word_before(&chars, i) {
      // A raw string: r"…" or r#"…"#.
      let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
      if chars.get(i + 1 + hashes) != Some(&'"') {
        out.push(c);
        i += 1;
        continue;
      }
      let end: String = std::iter::once('"')
        .chain("#".repeat(hashes).chars())
        .collect();
      let body = i + 2 + hashes;
      let close = chars[body..]
        .windows(end.len())
        .position(|w| w.iter().copied().eq(end.chars()))
        .map_or(chars.len(), |at| body + at + end.len());
      for &c in &chars[i..close] {
        blank(&mut out, c);
      }
      i = close;
    } else if c == '"' {
      blank(&mut out, c);
      i += 1;
      while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
          blank(&mut out, chars[i]);
          i += 1;
        }
        if i < chars.len() {
          blank(&mut out, chars[i]);
          i += 1;
        }
      }
      if i < chars.len() {
        blank(&mut out, chars[i]);
        i += 1;
      }
    } else if c == '\'' && next == Some('\\') {
      // A char literal with an escape: blank up to its closing quote.
      let close = chars[i + 2..]
        .iter()
        .position(|&c| c == '\'')
        .map_or(chars.len(), |at| i + 3 + at);
      for &c in &chars[i..close] {
        blank(&mut out, c);
      }
      i = close;
    } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
      out.push_str("   ");
      i += 3;
    } else {
      out.push(c);
      i += 1;
    }
  }
  out
}

/// Whether `chars[i]` continues a word (so an `r` there is not a raw string's).
fn word_before(chars: &[char], i: usize) -> bool {
  i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Code with the bodies of its inline test modules (`#[cfg(test)] mod tests { … }`) blanked:
/// like `src/tests/`, they are not the crate's.
fn without_test_modules(code: &str) -> String {
  let mut out = code.to_string();
  let mut from = 0;
  while let Some(at) = out[from..].find("#[cfg(test)]").map(|at| from + at) {
    from = at + 1;
    let after = out[at + "#[cfg(test)]".len()..].trim_start();
    let words = tokens(after.split('{').next().unwrap_or(""));
    let inline =
      after.contains('{') && matches!(words.as_slice(), [module, _name] if module == "mod");
    if !inline {
      continue;
    }
    let open = at + out[at..].find('{').unwrap();
    let mut depth = 0;
    let close = out[open..]
      .char_indices()
      .find_map(|(i, c)| {
        depth += match c {
          '{' => 1,
          '}' => -1,
          _ => 0,
        };
        (depth == 0).then_some(open + i)
      })
      .expect("a closed module");
    let blanked: String = out[open + 1..close]
      .chars()
      .map(|c| if c == '\n' { '\n' } else { ' ' })
      .collect();
    out.replace_range(open + 1..close, &blanked);
  }
  out
}

/// The tokens of code: words, `::`, and every other character alone.
pub(super) fn tokens(code: &str) -> Vec<String> {
  spans(code).into_iter().map(|(word, _)| word).collect()
}

/// The tokens of code, each with its place as a range of char indices (which are the same in
/// the file, `code` keeping one char for each).
pub(super) fn spans(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
  let chars: Vec<char> = code.chars().collect();
  let mut out = Vec::new();
  let mut i = 0;
  while i < chars.len() {
    let c = chars[i];
    let start = i;
    if c.is_whitespace() {
      i += 1;
      continue;
    } else if c.is_alphanumeric() || c == '_' {
      while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
        i += 1;
      }
    } else if c == ':' && chars.get(i + 1) == Some(&':') {
      i += 2;
    } else {
      i += 1;
    }
    out.push((chars[start..i].iter().collect(), start..i));
  }
  out
}

/// A file of the crate's module tree: its path from `src/`, its module's path, the modules it
/// declares (`mod name;`), its text, and its code (`code`, test modules blanked).
pub(super) struct Source {
  pub file: String,
  pub module: Vec<String>,
  pub children: Vec<String>,
  pub text: String,
  pub code: String,
}

/// Every file of the crate's module tree from `src/lib.rs`, by `mod` declarations (each of a
/// `#[path]` or `#[cfg_attr(…, path = …)]`'s files: every system's), but for the tests.
pub(super) fn module_tree(src: &Path) -> Vec<Source> {
  tree_of(|file| std::fs::read_to_string(src.join(file)).ok())
}

/// The module tree of the files `read` gives by their paths from `src/` (`None`: no such file),
/// from `lib.rs`: `module_tree` reads them from disk, the layers' own tests from memory.
pub(super) fn tree_of(read: impl Fn(&str) -> Option<String>) -> Vec<Source> {
  let mut out: Vec<Source> = Vec::new();
  let mut queue = vec![("lib.rs".to_string(), Vec::<String>::new())];
  while let Some((file, module)) = queue.pop() {
    let text = read(&file).unwrap_or_else(|| panic!("src/{file}: a readable source file"));
    let code = without_test_modules(&code(&text));
    // Where its children's files are: beside it for lib.rs and a mod.rs, else in its folder.
    let folder = match file.rsplit_once('/') {
      _ if file == "lib.rs" => String::new(),
      Some((dir, "mod.rs")) => format!("{dir}/"),
      _ => format!("{}/", file.trim_end_matches(".rs")),
    };
    let here = file
      .rsplit_once('/')
      .map_or(String::new(), |(dir, _)| format!("{dir}/"));
    let mut children = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    let mut test_only = false;
    for (line, raw) in code.lines().zip(text.lines()) {
      let words = tokens(line);
      let at = |i: usize| words.get(i).map_or("", String::as_str);
      if at(0) == "#" {
        if let Some((_, rest)) = raw.split_once("path = \"") {
          paths.push(rest.split('"').next().unwrap().to_string());
        }
        test_only |= line.replace(' ', "") == "#[cfg(test)]";
        continue;
      }
      let start = words.iter().position(|word| word == "mod");
      let declared = start.filter(|&i| {
        words[..i]
          .iter()
          .all(|word| ["pub", "(", ")", "crate", "super", "in"].contains(&word.as_str()))
      });
      if let Some(i) = declared {
        let name = at(i + 1).to_string();
        if at(i + 2) == "{" && test_only {
          // An inline test module: its body is blanked (`without_test_modules`).
          paths.clear();
          test_only = false;
          continue;
        }
        assert_eq!(
          at(i + 2),
          ";",
          "src/{file}: `mod {name}` inline: this test reads only modules of their own files"
        );
        let files = if paths.is_empty() {
          let flat = format!("{folder}{name}.rs");
          vec![if read(&flat).is_some() {
            flat
          } else {
            format!("{folder}{name}/mod.rs")
          }]
        } else {
          paths.iter().map(|path| format!("{here}{path}")).collect()
        };
        let mut path = module.clone();
        path.push(name.clone());
        for child in files.into_iter().filter(|file| !file.starts_with("tests/")) {
          queue.push((child, path.clone()));
        }
        children.push(name);
      }
      paths.clear();
      test_only = false;
    }
    out.push(Source {
      file,
      module,
      children,
      text,
      code,
    });
  }
  out.sort_by(|a, b| a.file.cmp(&b.file));
  out
}

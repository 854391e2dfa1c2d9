//! The crate's module tree and import graph, read from `src/` as text for `layers`: which file
//! each `mod` declares, and which files each one's paths name.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

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
  let chars: Vec<char> = code.chars().collect();
  let mut out = Vec::new();
  let mut i = 0;
  while i < chars.len() {
    let c = chars[i];
    if c.is_whitespace() {
      i += 1;
    } else if c.is_alphanumeric() || c == '_' {
      let start = i;
      while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
        i += 1;
      }
      out.push(chars[start..i].iter().collect());
    } else if c == ':' && chars.get(i + 1) == Some(&':') {
      out.push("::".into());
      i += 2;
    } else {
      out.push(c.into());
      i += 1;
    }
  }
  out
}

/// A file of the crate's module tree: its path from `src/`, its module's path, and the modules
/// it declares (`mod name;`).
pub(super) struct Source {
  pub file: String,
  module: Vec<String>,
  children: Vec<String>,
  pub code: String,
}

/// Every file of the crate's module tree from `src/lib.rs`, by `mod` declarations (each of a
/// `#[path]` or `#[cfg_attr(…, path = …)]`'s files: every system's), but for the tests.
pub(super) fn module_tree(src: &Path) -> Vec<Source> {
  let mut out: Vec<Source> = Vec::new();
  let mut queue = vec![("lib.rs".to_string(), Vec::<String>::new())];
  while let Some((file, module)) = queue.pop() {
    let text = std::fs::read_to_string(src.join(&file)).expect("a readable source file");
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
          vec![if src.join(&flat).exists() {
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
      code,
    });
  }
  out.sort_by(|a, b| a.file.cmp(&b.file));
  out
}

/// The paths a use tree at `words[*at..]` names, each from `prefix`: `a::b::{c, d::*}` is
/// `a::b::c` and `a::b::d`.
fn use_tree(words: &[String], at: &mut usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
  while let Some(word) = words.get(*at) {
    match word.as_str() {
      "{" => {
        *at += 1;
        while words.get(*at).is_some_and(|word| word != "}") {
          use_tree(words, at, prefix.clone(), out);
          // Past a rename (`as x`) to the next branch.
          while words
            .get(*at)
            .is_some_and(|word| word != "," && word != "}")
          {
            *at += 1;
          }
          if words.get(*at).is_some_and(|word| word == ",") {
            *at += 1;
          }
        }
        *at += 1;
        return;
      }
      "*" => {
        *at += 1;
        break;
      }
      word if word.chars().all(|c| c.is_alphanumeric() || c == '_') => {
        prefix.push(word.to_string());
        *at += 1;
        if words.get(*at).is_some_and(|word| word == "::") {
          *at += 1;
        } else {
          break;
        }
      }
      _ => break,
    }
  }
  out.push(prefix);
}

/// Each file's edges to the files whose modules it names (`crate::…`, `super::…`, `self::…`, a
/// child's `name::…`, in `use` lines and in code), each with the first path that names it.
pub(super) fn module_graph(sources: &[Source]) -> Vec<BTreeMap<usize, String>> {
  let mut files_of: HashMap<&[String], Vec<usize>> = HashMap::new();
  for (i, source) in sources.iter().enumerate() {
    files_of.entry(&source.module).or_default().push(i);
  }
  sources
    .iter()
    .enumerate()
    .map(|(from, source)| {
      let words = tokens(&source.code);
      let mut edges = BTreeMap::new();
      for i in 0..words.len() {
        let starts = words.get(i + 1).is_some_and(|word| word == "::")
          && (i == 0 || words[i - 1] != "::")
          && (["crate", "super", "self"].contains(&words[i].as_str())
            || source.children.contains(&words[i]));
        if !starts {
          continue;
        }
        let mut paths = Vec::new();
        let mut at = i;
        use_tree(&words, &mut at, Vec::new(), &mut paths);
        for path in paths {
          let mut module = Vec::new();
          for (k, segment) in path.iter().enumerate() {
            match segment.as_str() {
              "crate" if k == 0 => module.clear(),
              "self" if k == 0 => module = source.module.clone(),
              "self" => {}
              "super" if k == 0 => module = source.module[..source.module.len() - 1].to_vec(),
              "super" => {
                module.pop();
              }
              _ if k == 0 => {
                module = source.module.clone();
                module.push(segment.clone());
              }
              _ => module.push(segment.clone()),
            }
          }
          // The module it names is the longest prefix of it that is one.
          let named = (0..=module.len())
            .rev()
            .find_map(|len| files_of.get(&module[..len]))
            .expect("the crate root is a module");
          for &to in named {
            if to != from {
              let path = path.strip_suffix(&["self".to_string()]).unwrap_or(&path);
              edges.entry(to).or_insert_with(|| path.join("::"));
            }
          }
        }
      }
      edges
    })
    .collect()
}

/// The groups of nodes that reach one another (strongly connected, two nodes or more), each
/// sorted, and with one shortest cycle through its first node, as node indices.
pub(super) fn circles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
  let reach = |from: usize| {
    let mut seen = BTreeSet::from([from]);
    let mut todo = vec![from];
    while let Some(node) = todo.pop() {
      for &next in &edges[node] {
        if seen.insert(next) {
          todo.push(next);
        }
      }
    }
    seen
  };
  let reached: Vec<BTreeSet<usize>> = (0..edges.len()).map(reach).collect();
  let mut groups: Vec<Vec<usize>> = (0..edges.len())
    .map(|a| {
      (0..edges.len())
        .filter(|&b| reached[a].contains(&b) && reached[b].contains(&a))
        .collect::<Vec<_>>()
    })
    .filter(|group| group.len() > 1)
    .collect();
  groups.sort();
  groups.dedup();
  groups
}

/// One shortest cycle through `group[0]` within `group`, back to where it starts.
pub(super) fn cycle(edges: &[BTreeSet<usize>], group: &[usize]) -> Vec<usize> {
  let start = group[0];
  let mut came_from: HashMap<usize, usize> = HashMap::new();
  let mut todo = std::collections::VecDeque::from([start]);
  while let Some(node) = todo.pop_front() {
    for &next in edges[node].iter().filter(|next| group.contains(next)) {
      if next == start {
        let mut path = vec![start, node];
        while *path.last().unwrap() != start {
          path.push(came_from[path.last().unwrap()]);
        }
        path.reverse();
        return path;
      }
      if let std::collections::hash_map::Entry::Vacant(entry) = came_from.entry(next) {
        entry.insert(node);
        todo.push_back(next);
      }
    }
  }
  unreachable!("a group of nodes that reach one another has a cycle")
}

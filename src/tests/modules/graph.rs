//! Which files each file of the module tree names. Each path (in `use` lines and in code) is
//! resolved to the module that holds what it names: through the names a file's `use`s bind
//! (`use crate::x as y;` then `y::…`, `use super::{a as b}`, `use crate::options;` then
//! `options::…`, globs), through re-exports (`pub use inner::Item`, `pub use inner::*`), and to
//! every file of a `#[path]` module. A path named through a re-export or a rename would else
//! stop at the module it passes through, and a circle made that way would go unseen.

use std::collections::{BTreeMap, HashMap};

use super::{tokens, Source};

/// What a `use` binds when it names a glob (`a::*`): no one name.
const GLOB: &str = "*";

/// How many renames and re-exports one path is followed through: past it, a loop of them.
const HOPS: usize = 16;

/// A leaf of a use tree (or a path in code): its segments as written, and the name it binds
/// (its rename, else its last segment; `GLOB` for a glob, `_` for none).
struct Leaf {
  path: Vec<String>,
  name: String,
}

/// Whether a token is a word (a name, a keyword, a number), not punctuation.
fn is_word(word: &str) -> bool {
  word.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The leaves of a use tree (or the one path) at `words[*at..]`, each from `prefix`:
/// `a::b::{c as d, e::*}` is `a::b::c` bound as `d` and a glob of `a::b::e`. `*at` ends past it.
fn use_tree(words: &[String], at: &mut usize, mut prefix: Vec<String>, out: &mut Vec<Leaf>) {
  let word = |at: usize| words.get(at).map_or("", String::as_str);
  loop {
    match word(*at) {
      "{" => {
        *at += 1;
        while !["}", ""].contains(&word(*at)) {
          use_tree(words, at, prefix.clone(), out);
          // Past anything this reading does not know, to the next branch.
          while ![",", "}", ""].contains(&word(*at)) {
            *at += 1;
          }
          if word(*at) == "," {
            *at += 1;
          }
        }
        *at += 1;
        return;
      }
      "*" => {
        *at += 1;
        out.push(Leaf {
          path: prefix,
          name: GLOB.into(),
        });
        return;
      }
      segment if !segment.is_empty() && is_word(segment) => {
        prefix.push(segment.to_string());
        *at += 1;
        if word(*at) != "::" {
          break;
        }
        *at += 1;
      }
      _ => break,
    }
  }
  if prefix.last().is_some_and(|last| last == "self") {
    prefix.pop();
  }
  let mut name = prefix.last().cloned().unwrap_or_default();
  if word(*at) == "as" && is_word(word(*at + 1)) {
    name = word(*at + 1).to_string();
    *at += 2;
  }
  out.push(Leaf { path: prefix, name });
}

/// A file's `use` leaves, and the places (token index ranges) its `use` items take.
fn uses(words: &[String]) -> (Vec<Leaf>, Vec<std::ops::Range<usize>>) {
  let mut leaves = Vec::new();
  let mut places = Vec::new();
  for i in (0..words.len()).filter(|&i| words[i] == "use") {
    let mut at = i + 1 + usize::from(words.get(i + 1).is_some_and(|word| word == "::"));
    use_tree(words, &mut at, Vec::new(), &mut leaves);
    places.push(i..at);
  }
  (leaves, places)
}

/// The module tree, with each file's tokens and `use` leaves: what resolving a path reads.
struct Crate<'a> {
  sources: &'a [Source],
  files_of: HashMap<&'a [String], Vec<usize>>,
  words: Vec<Vec<String>>,
  bindings: Vec<Vec<Leaf>>,
}

impl Crate<'_> {
  /// `path`, written in file `from`, from the crate's root; `None` for another crate's (or a
  /// local item's, which names no module).
  fn absolute(&self, from: usize, path: &[String], hops: usize) -> Option<Vec<String>> {
    let source = &self.sources[from];
    let (first, rest) = path.split_first()?;
    let mut out = match first.as_str() {
      "crate" => Vec::new(),
      "self" => source.module.clone(),
      "super" => source.module[..source.module.len().saturating_sub(1)].to_vec(),
      name if source.children.contains(first) => {
        [source.module.as_slice(), &[name.into()]].concat()
      }
      name if hops < HOPS => self.imported(from, name, hops + 1)?,
      _ => return None,
    };
    for segment in rest {
      match segment.as_str() {
        "self" => {}
        "super" => {
          out.pop();
        }
        _ => out.push(segment.clone()),
      }
    }
    Some(out)
  }

  /// What `name` stands for in file `from` by its `use`s (a glob's only where the module it
  /// opens has that name), from the crate's root.
  fn imported(&self, from: usize, name: &str, hops: usize) -> Option<Vec<String>> {
    let leaves = &self.bindings[from];
    if let Some(leaf) = leaves.iter().find(|leaf| leaf.name == name) {
      return self.absolute(from, &leaf.path, hops);
    }
    if defines(&self.words[from], name) {
      return None;
    }
    leaves
      .iter()
      .filter(|leaf| leaf.name == GLOB)
      .filter_map(|leaf| self.absolute(from, &leaf.path, hops))
      .find(|opened| self.knows(opened, name))
      .map(|opened| [opened, vec![name.to_string()]].concat())
  }

  /// Whether `module` has `name`: a module of it, an item, or a name one of its `use`s binds.
  fn knows(&self, module: &[String], name: &str) -> bool {
    let inner = [module, &[name.to_string()]].concat();
    self.files_of.contains_key(inner.as_slice())
      || self.files_of.get(module).is_some_and(|files| {
        files.iter().any(|&file| {
          defines(&self.words[file], name)
            || self.bindings[file].iter().any(|leaf| leaf.name == name)
        })
      })
  }

  /// The modules that hold what `path` (from the crate's root) names: down its modules, and on
  /// through a name a module imports or re-exports, to the first segment that is an item. A
  /// last segment may name both an item of its module and an import (a function and the module
  /// of the same name a `use` brings in): then both.
  fn resolve(&self, path: &[String], hops: usize) -> Vec<Vec<String>> {
    let mut module: Vec<String> = Vec::new();
    for (k, segment) in path.iter().enumerate() {
      module.push(segment.clone());
      if self.files_of.contains_key(module.as_slice()) {
        continue;
      }
      module.pop();
      let files = self.files_of.get(module.as_slice()).into_iter().flatten();
      let through = files
        .clone()
        .find_map(|&file| self.imported(file, segment, hops + 1))
        .filter(|_| hops < HOPS);
      let Some(target) = through else {
        break;
      };
      let mut out = self.resolve(&[target.as_slice(), &path[k + 1..]].concat(), hops + 1);
      let here = files
        .clone()
        .any(|&file| defines(&self.words[file], segment));
      if here && k + 1 == path.len() {
        out.push(module);
      }
      return out;
    }
    vec![module]
  }
}

/// Whether code declares an item `name` (`fn name`, `struct name`, `macro_rules! name`, …).
fn defines(words: &[String], name: &str) -> bool {
  const ITEMS: &[&str] = &[
    "fn", "struct", "enum", "union", "trait", "type", "const", "static", "mod",
  ];
  words
    .windows(2)
    .any(|pair| pair[1] == name && ITEMS.contains(&pair[0].as_str()))
    || words
      .windows(3)
      .any(|three| three[0] == "macro_rules" && three[1] == "!" && three[2] == name)
}

/// Each file's edges to the files whose modules it names (`crate::…`, `super::…`, `self::…`, a
/// child's `name::…`, a name a `use` binds), in `use` items and in code, each with the first path
/// that names it (and, where a rename or re-export led elsewhere, the module it led to).
pub(in super::super) fn module_graph(sources: &[Source]) -> Vec<BTreeMap<usize, String>> {
  let mut files_of: HashMap<&[String], Vec<usize>> = HashMap::new();
  for (i, source) in sources.iter().enumerate() {
    files_of.entry(&source.module).or_default().push(i);
  }
  let words: Vec<Vec<String>> = sources.iter().map(|source| tokens(&source.code)).collect();
  let mut places = Vec::new();
  let mut bindings = Vec::new();
  for words in &words {
    let (leaves, taken) = uses(words);
    bindings.push(leaves);
    places.push(taken);
  }
  let krate = Crate {
    sources,
    files_of,
    words,
    bindings,
  };
  (0..sources.len())
    .map(|from| {
      let words = &krate.words[from];
      let source = &sources[from];
      // Whether a path from this word is read from where it is written (else through a `use`).
      let literal = |word: &String| {
        ["crate", "super", "self"].contains(&word.as_str()) || source.children.contains(word)
      };
      let mut paths: Vec<Vec<String>> = krate.bindings[from]
        .iter()
        .map(|leaf| leaf.path.clone())
        .collect();
      let mut i = 0;
      while i < words.len() {
        if let Some(place) = places[from].iter().find(|place| place.contains(&i)) {
          i = place.end;
          continue;
        }
        let starts = words.get(i + 1).is_some_and(|word| word == "::")
          && (i == 0 || words[i - 1] != "::")
          && (literal(&words[i]) || krate.imported(from, &words[i], 0).is_some());
        if !starts {
          i += 1;
          continue;
        }
        let mut leaves = Vec::new();
        use_tree(words, &mut i, Vec::new(), &mut leaves);
        paths.extend(leaves.into_iter().map(|leaf| leaf.path));
      }
      let mut edges = BTreeMap::new();
      for path in paths {
        let Some(absolute) = krate.absolute(from, &path, 0) else {
          continue;
        };
        let written = path.join("::");
        // As written, unless a rename or re-export made it name another module than its words.
        let named = (0..=absolute.len())
          .rev()
          .find(|&len| krate.files_of.contains_key(&absolute[..len]))
          .map(|len| &absolute[..len]);
        for module in krate.resolve(&absolute, 0) {
          let shown = if named == Some(module.as_slice()) && literal(&path[0]) {
            written.clone()
          } else {
            let module: Vec<&str> = module.iter().map(String::as_str).collect();
            format!(
              "{written}, that is {}",
              [&["crate"], module.as_slice()].concat().join("::")
            )
          };
          for &to in krate.files_of.get(module.as_slice()).into_iter().flatten() {
            if to != from {
              edges.entry(to).or_insert_with(|| shown.clone());
            }
          }
        }
      }
      edges
    })
    .collect()
}

//! Platform gates: a `#[cfg(…)]`, `#[cfg_attr(…)]` or `cfg!(…)` whose condition names a system
//! (`unix`, `windows`, or any `target_…`: `target_os`, `target_family`, `target_env`,
//! `target_arch`, `target_pointer_width`, …), and those outside `os/` that no allowance takes.

use crate::tests::modules::{spans, Source};

/// Where code may be gated on a system, on which conditions, and why: a file from `src/`, or
/// `dir/**/name.rs` for a file of that name at any depth under `dir/` (so that files moved into
/// subfolders keep their allowance); and the predicates its gates may name (`target_os =
/// "linux"`, `unix`, as written but for spaces).
pub(in crate::tests) type Allowance = (&'static str, &'static [&'static str], &'static str);

/// A platform gate: its line, the attribute or macro and its condition as written, and the
/// system predicates that condition names.
struct Gate {
  line: usize,
  shown: String,
  predicates: Vec<String>,
}

/// Whether a predicate names a system.
fn names_a_system(predicate: &str) -> bool {
  let key = predicate.split(' ').next().unwrap_or("");
  key == "unix" || key == "windows" || key.starts_with("target_")
}

/// The predicates of a condition as written: `all(unix, target_os = "linux")` is `unix` and
/// `target_os = "linux"`.
fn predicates(condition: &str) -> Vec<String> {
  let mut words: Vec<String> = Vec::new();
  let mut chars = condition.chars().peekable();
  while let Some(c) = chars.next() {
    if c == '"' {
      let mut text = String::from('"');
      for c in chars.by_ref() {
        text.push(c);
        if c == '"' {
          break;
        }
      }
      words.push(text);
    } else if c.is_alphanumeric() || c == '_' {
      let mut word = String::from(c);
      while let Some(&c) = chars.peek().filter(|c| c.is_alphanumeric() || **c == '_') {
        word.push(c);
        chars.next();
      }
      words.push(word);
    } else if !c.is_whitespace() {
      words.push(c.into());
    }
  }
  let mut out = Vec::new();
  let mut i = 0;
  while i < words.len() {
    let word = &words[i];
    let next = words.get(i + 1).map_or("", String::as_str);
    if next == "=" && words.get(i + 2).is_some() {
      out.push(format!("{word} = {}", words[i + 2]));
      i += 3;
    } else {
      if next != "(" && word.chars().all(|c| c.is_alphanumeric() || c == '_') {
        out.push(word.clone());
      }
      i += 1;
    }
  }
  out
}

/// The platform gates of a file's code (not its comments, strings or test modules).
fn gates(source: &Source) -> Vec<Gate> {
  let text: Vec<char> = source.text.chars().collect();
  let words = spans(&source.code);
  let word = |i: usize| words.get(i).map_or("", |(word, _)| word.as_str());
  let mut out = Vec::new();
  for i in 0..words.len() {
    let kind = word(i);
    if !["cfg", "cfg_attr"].contains(&kind) {
      continue;
    }
    let open = i + 1 + usize::from(word(i + 1) == "!");
    if word(open) != "(" {
      continue;
    }
    // Its condition: to the matching `)`, or for `cfg_attr` to the comma before the attribute.
    let mut depth = 0;
    let end = (open..words.len())
      .find(|&k| {
        depth += match word(k) {
          "(" => 1,
          ")" => -1,
          _ => 0,
        };
        depth == 0 || (depth == 1 && kind == "cfg_attr" && word(k) == ",")
      })
      .unwrap_or(words.len() - 1);
    let inside = words[open].1.end..words[end].1.start;
    let condition: String = text[inside.clone()].iter().collect();
    let condition = condition.split_whitespace().collect::<Vec<_>>().join(" ");
    let predicates: Vec<String> = predicates(&condition)
      .into_iter()
      .filter(|predicate| names_a_system(predicate))
      .collect();
    if !predicates.is_empty() {
      out.push(Gate {
        line: 1 + text[..inside.start].iter().filter(|&&c| c == '\n').count(),
        shown: format!("{kind}{}({condition})", if open > i + 1 { "!" } else { "" }),
        predicates,
      });
    }
  }
  out
}

/// Whether an allowance's place is this file (from `src/`).
fn is_place(place: &str, file: &str) -> bool {
  match place.split_once("**/") {
    Some((dir, name)) => file.starts_with(dir) && file.rsplit('/').next() == Some(name),
    None => place == file,
  }
}

/// Each platform gate outside `os/` that no allowance takes (by file and line, with the
/// predicates none allows there), and each allowance no gate needs any more.
pub(in crate::tests) fn misplaced(sources: &[Source], allowed: &[Allowance]) -> Vec<String> {
  let mut out = Vec::new();
  let mut needed = vec![false; allowed.len()];
  for source in sources
    .iter()
    .filter(|source| !source.file.starts_with("os/"))
  {
    for gate in gates(source) {
      let mut taken = false;
      for (k, (place, predicates, _)) in allowed.iter().enumerate() {
        let allows = |predicate: &String| predicates.contains(&predicate.as_str());
        if is_place(place, &source.file) && gate.predicates.iter().all(allows) {
          needed[k] = true;
          taken = true;
        }
      }
      if !taken {
        out.push(format!(
          "src/{}:{}: {} (names {})",
          source.file,
          gate.line,
          gate.shown,
          gate.predicates.join(", ")
        ));
      }
    }
  }
  for ((place, predicates, why), needed) in allowed.iter().zip(needed) {
    if !needed {
      out.push(format!(
        "src/{place}: no gate on {} any more (no longer needs its allowance: {why})",
        predicates.join(", ")
      ));
    }
  }
  out
}

//! Options a `FlakeId` does not take. flake-idgen ignores them, and so does a `FlakeId`, but a
//! typo (`workerId`) then leaves the generator id it meant at 0 on every process of a fleet:
//! each such name is reported once per process, with the option it most likely meant.

use std::collections::HashSet;
use std::sync::Mutex;

/// Names reported so far in this process.
static REPORTED: Mutex<Option<HashSet<String>>> = Mutex::new(None);
/// Distinct names reported at most: options built from untrusted keys cannot grow the set, or
/// the warnings, without bound.
const MAX_REPORTED: usize = 64;
/// How much of a name a report quotes.
const MAX_QUOTED_CHARS: usize = 64;

/// Names people use for the node id's parts (after a trailing `id` is dropped): the option
/// each means.
const ALIASES: [(&str, &str); 4] = [
  ("node", "id"),
  ("machine", "id"),
  ("generator", "id"),
  ("dc", "datacenter"),
];

/// The option of `known` that `name` most likely meant, if any is close: the same name but
/// for case, `_`, `-` or a trailing `id` (`workerId`, `datacenter_id`), a common alias
/// (`machineId`, `nodeId`), or at most two edits away (`wokrer`, `epochMs`).
pub fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
  let folded: String = name
    .chars()
    .filter(|c| *c != '_' && *c != '-')
    .flat_map(char::to_lowercase)
    .collect();
  let stem = folded
    .strip_suffix("id")
    .filter(|stem| !stem.is_empty())
    .unwrap_or(&folded);
  for candidate in [folded.as_str(), stem] {
    if let Some(option) = known
      .iter()
      .find(|option| option.to_lowercase() == candidate)
    {
      return Some(option);
    }
    if let Some((_, option)) = ALIASES.iter().find(|(alias, _)| *alias == candidate) {
      return known.iter().copied().find(|known| known == option);
    }
  }
  known
    .iter()
    .map(|option| (distance(&folded, &option.to_lowercase()), *option))
    .filter(|(edits, option)| *edits <= 2 && *edits < option.len().min(folded.chars().count()))
    .min_by_key(|(edits, _)| *edits)
    .map(|(_, option)| option)
}

/// Levenshtein distance, by chars.
fn distance(a: &str, b: &str) -> usize {
  let b: Vec<char> = b.chars().collect();
  let mut row: Vec<usize> = (0..=b.len()).collect();
  for (i, ca) in a.chars().enumerate() {
    let mut diagonal = row[0];
    row[0] = i + 1;
    for (j, cb) in b.iter().enumerate() {
      let above = row[j + 1];
      row[j + 1] = (above + 1)
        .min(row[j] + 1)
        .min(diagonal + usize::from(ca != *cb));
      diagonal = above;
    }
  }
  row[b.len()]
}

/// `name` as a report shows it: quoted, escaped (NUL, control characters), and cut short.
fn quoted(name: &str) -> String {
  let mut shown: String = name.chars().take(MAX_QUOTED_CHARS).collect();
  if shown.len() < name.len() {
    shown.push_str("...");
  }
  format!("{shown:?}")
}

/// What to say about `name`, an option `FlakeId` does not take (`known` are those it does).
pub fn report(name: &str, known: &[&'static str]) -> String {
  let meant = match nearest(name, known) {
    Some(option) => format!("did you mean {option:?}?"),
    None => format!("it takes {}", known.join(", ")),
  };
  format!(
    "new FlakeId() has no option {} ({meant}). It is ignored, as flake-idgen ignores it: what \
     it meant keeps its default (the generator id 0, unless another option sets it).",
    quoted(name)
  )
}

/// The reports of those of `names` not reported before in this process, in order.
pub fn first_reports(names: &[String], known: &[&'static str]) -> Vec<String> {
  if names.is_empty() {
    return Vec::new();
  }
  // A panic while the lock was held left the set whole: a poisoned lock is still usable.
  let mut reported = REPORTED
    .lock()
    .unwrap_or_else(std::sync::PoisonError::into_inner);
  let reported = reported.get_or_insert_with(HashSet::new);
  let mut reports = Vec::new();
  for name in names {
    if reported.len() >= MAX_REPORTED || reported.contains(name) {
      continue;
    }
    reported.insert(name.clone());
    reports.push(report(name, known));
  }
  reports
}

/// The options `read_options` reads: a `FlakeId`'s, and flake-idgen's among them.
pub const FLAKE_ID_OPTIONS: [&str; 13] = [
  "layout",
  "id",
  "datacenter",
  "worker",
  "process",
  "idFrom",
  "idOffset",
  "epoch",
  "seqMask",
  "clock",
  "allowedFutureMs",
  "scope",
  "stateDir",
];

#[cfg(test)]
mod tests {
  use super::*;

  const KNOWN: [&str; 13] = FLAKE_ID_OPTIONS;

  #[test]
  fn names_the_option_meant() {
    for (name, meant) in [
      ("workerId", Some("worker")),
      ("worker_id", Some("worker")),
      ("WORKER", Some("worker")),
      ("datacenterId", Some("datacenter")),
      ("dataCenterId", Some("datacenter")),
      ("machineId", Some("id")),
      ("nodeId", Some("id")),
      ("processId", Some("process")),
      ("ids", Some("id")),
      ("wokrer", Some("worker")),
      ("epochMs", Some("epoch")),
      ("seqmask", Some("seqMask")),
      ("statedir", Some("stateDir")),
      ("allowedFuture", Some("allowedFutureMs")),
      ("a", None),
      ("Id", Some("id")),
      ("timeBits", None),
      ("__proto__", None),
      ("", None),
    ] {
      assert_eq!(nearest(name, &KNOWN), meant, "{name}");
    }
  }

  #[test]
  fn quotes_hostile_names_escaped_and_short() {
    let long = "x".repeat(5000);
    let shown = report(&long, &KNOWN);
    assert!(shown.len() < 400, "{shown}");
    assert!(report("a\0b", &KNOWN).contains(r#""a\0b""#));
  }

  #[test]
  fn reports_each_name_once() {
    let names = vec![
      "unknownOptionOnce".to_string(),
      "unknownOptionOnce".to_string(),
    ];
    assert_eq!(first_reports(&names, &KNOWN).len(), 1);
    assert!(first_reports(&names, &KNOWN).is_empty());
  }
}

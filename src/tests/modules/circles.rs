//! Circles in a graph of nodes by index: the groups of nodes that reach one another, and the
//! edges that close each, for a failure to name.

use std::collections::{BTreeSet, HashMap, VecDeque};

/// The groups of nodes that reach one another (strongly connected, two nodes or more), each
/// sorted.
pub(in super::super) fn circles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
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

/// One shortest path from `from` to `to` within `group`, both ends included.
fn path_within(edges: &[BTreeSet<usize>], group: &[usize], from: usize, to: usize) -> Vec<usize> {
  let mut came_from: HashMap<usize, usize> = HashMap::from([(from, from)]);
  let mut todo = VecDeque::from([from]);
  while let Some(node) = todo.pop_front() {
    if node == to {
      let mut path = vec![to];
      while *path.last().unwrap() != from {
        path.push(came_from[path.last().unwrap()]);
      }
      path.reverse();
      return path;
    }
    for &next in edges[node].iter().filter(|next| group.contains(next)) {
      came_from.entry(next).or_insert_with(|| {
        todo.push_back(next);
        node
      });
    }
  }
  unreachable!("the nodes of a group reach one another")
}

/// The circles of `edges` that `allowed` does not excuse, each as its group and cycles (node
/// paths back to where they start). A group is excused when every edge between its nodes is
/// allowed; else each edge of it that is not allowed is shown on a cycle (that edge, then the
/// shortest way back), one cycle for several where it takes them: so when a new edge makes an
/// allowed circle part of a bigger one, the failure names the new edges, not the allowed ones.
pub(in super::super) fn unexcused(
  edges: &[BTreeSet<usize>],
  allowed: impl Fn(usize, usize) -> bool,
) -> Vec<(Vec<usize>, Vec<Vec<usize>>)> {
  circles(edges)
    .into_iter()
    .filter_map(|group| {
      let mut cycles: Vec<Vec<usize>> = Vec::new();
      for &from in &group {
        for &to in edges[from].iter().filter(|to| group.contains(to)) {
          let shown = cycles
            .iter()
            .any(|cycle| cycle.windows(2).any(|step| step == [from, to]));
          if !allowed(from, to) && !shown {
            cycles.push([vec![from], path_within(edges, &group, to, from)].concat());
          }
        }
      }
      (!cycles.is_empty()).then_some((group, cycles))
    })
    .collect()
}

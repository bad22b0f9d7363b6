//! Connected components of the graph taken as undirected.
//!
//! [`components_union_find`] unites the ends of every edge in a lock-free forest, in parallel
//! (no copy of the graph); [`components_bfs`] labels by breadth-first search over both edge directions. Both return,
//! for every node, the smallest node id of its component, so equal partitions give equal vectors.
//! Outputs of GPU programs are compared as partitions with [`same_partition`].

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::csr::Csr;

/// Component labels (smallest node id in the component) by union-find.
pub fn components_union_find(g: &Csr) -> Vec<u32> {
    union_find(g, |_, _| true)
}

/// [`components_union_find`] for a symmetric graph (every edge has its reverse, as in
/// [`Csr::undirected_simple`]): each edge is united once, from its smaller end.
pub fn components_union_find_symmetric(g: &Csr) -> Vec<u32> {
    union_find(g, |u, v| u < v)
}

/// Unites the ends of every edge `u -> v` for which `unite(u, v)` holds, node ranges in
/// parallel, on a [`Forest`].
fn union_find(g: &Csr, unite: impl Fn(u32, u32) -> bool + Sync) -> Vec<u32> {
    let forest = Forest::new(g.n);
    crate::par::edge_ranges(&g.offsets)
        .into_par_iter()
        .for_each(|r| {
            for u in r {
                for &v in g.neighbours(u as u32) {
                    if unite(u as u32, v) {
                        forest.unite(u as u32, v);
                    }
                }
            }
        });
    forest.labels()
}

/// A lock-free union-find forest over nodes `0..n`, shared by threads: a root is only ever
/// linked under a root of smaller id, by a compare-and-swap that fails (and is retried) where
/// another thread linked it first, and finds halve their paths. A component's smallest node is
/// a root throughout (no smaller root exists to link it under), so it is the root at the end,
/// and each node's label is its root: the same labels on any number of threads, in any order
/// of the unions.
pub struct Forest {
    parent: Vec<AtomicU32>,
}

impl Forest {
    pub fn new(n: u32) -> Self {
        Forest {
            parent: (0..n).into_par_iter().map(AtomicU32::new).collect(),
        }
    }

    fn find(&self, mut x: u32) -> u32 {
        loop {
            let p = self.parent[x as usize].load(Ordering::Relaxed);
            if p == x {
                return x;
            }
            let grand = self.parent[p as usize].load(Ordering::Relaxed);
            if grand != p {
                let _ = self.parent[x as usize].compare_exchange(
                    p,
                    grand,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            x = p;
        }
    }

    /// Puts `u` and `v` in one component.
    pub fn unite(&self, u: u32, v: u32) {
        loop {
            let (a, b) = (self.find(u), self.find(v));
            if a == b {
                return;
            }
            let (high, low) = if a > b { (a, b) } else { (b, a) };
            if self.parent[high as usize]
                .compare_exchange(high, low, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
        }
    }

    /// Every node's label: the smallest node of its component.
    pub fn labels(&self) -> Vec<u32> {
        (0..self.parent.len() as u32)
            .into_par_iter()
            .map(|x| self.find(x))
            .collect()
    }
}

/// Component labels (smallest node id in the component) by BFS over the undirected view.
pub fn components_bfs(g: &Csr) -> Vec<u32> {
    let u = g.undirected_simple();
    let mut label = vec![u32::MAX; u.n as usize];
    let mut queue = VecDeque::new();
    for s in 0..u.n {
        if label[s as usize] != u32::MAX {
            continue;
        }
        label[s as usize] = s;
        queue.push_back(s);
        while let Some(x) = queue.pop_front() {
            for &y in u.neighbours(x) {
                if label[y as usize] == u32::MAX {
                    label[y as usize] = s;
                    queue.push_back(y);
                }
            }
        }
    }
    label
}

/// Relabels any labelling so that each class is named by its smallest member. Labels below
/// about twice the node count (node ids, as programs give them) are looked up in a table
/// indexed by label, others in a hash map: on 134 M nodes the map took most of a minute.
pub fn canonical(labels: &[u32]) -> Vec<u32> {
    let largest = labels.iter().copied().max().unwrap_or(0) as usize;
    if largest <= 2 * labels.len() + 1024 {
        // Node ids are below u32::MAX (the readers' limit), so it marks a label not yet seen.
        let mut first = vec![u32::MAX; largest + 1];
        return labels
            .iter()
            .enumerate()
            .map(|(v, &l)| {
                let f = &mut first[l as usize];
                if *f == u32::MAX {
                    *f = v as u32;
                }
                *f
            })
            .collect();
    }
    let mut first: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    labels
        .iter()
        .enumerate()
        .map(|(v, &l)| *first.entry(l).or_insert(v as u32))
        .collect()
}

/// Number of components in a labelling.
pub fn count(labels: &[u32]) -> u64 {
    canonical(labels)
        .iter()
        .enumerate()
        .filter(|&(v, &l)| v as u32 == l)
        .count() as u64
}

/// A node where two labellings disagree as partitions: `node` is grouped with `other` in one
/// labelling but not in the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionMismatch {
    pub node: u32,
    /// The representative (smallest member) of `node`'s class in the expected labelling.
    pub expected_with: u32,
    /// The representative of `node`'s class in the given labelling.
    pub got_with: u32,
}

/// Nodes at which `got` differs from `expected` as a partition (empty when they are the same).
pub fn same_partition(expected: &[u32], got: &[u32]) -> Vec<PartitionMismatch> {
    let e = canonical(expected);
    let g = canonical(got);
    e.iter()
        .zip(&g)
        .enumerate()
        .filter(|&(_, (a, b))| a != b)
        .map(|(v, (&a, &b))| PartitionMismatch {
            node: v as u32,
            expected_with: a,
            got_with: b,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    #[test]
    fn canonical_names_each_class_by_its_first_member_with_any_labels() {
        // Small labels (the table) and the same partition under labels far above the node
        // count (the map).
        let small = [3u32, 3, 0, 7, 0, 3, 7, 1];
        let large: Vec<u32> = small.iter().map(|&l| u32::MAX - 1 - l * 1000).collect();
        let want = vec![0, 0, 2, 3, 2, 0, 3, 7];
        assert_eq!(canonical(&small), want);
        assert_eq!(canonical(&large), want);
        assert_eq!(count(&small), 4);
        assert_eq!(count(&large), 4);
        assert!(canonical(&[]).is_empty());
    }

    #[test]
    fn components_ignore_direction_and_agree() {
        // {0, 1, 2} via 0 -> 1 and 2 -> 1; {3}; {4, 5} via a self-loop and 5 -> 4.
        let mut l = EdgeList::new(6, false);
        for (u, v) in [(0, 1), (2, 1), (4, 4), (5, 4)] {
            l.push(u, v, 0);
        }
        let g = Csr::from_edge_list(l);
        let want = vec![0, 0, 0, 3, 4, 4];
        assert_eq!(components_union_find(&g), want);
        assert_eq!(components_bfs(&g), want);
        assert_eq!(count(&want), 3);
    }

    #[test]
    fn partitions_compare_independently_of_labels() {
        assert!(same_partition(&[0, 0, 2], &[7, 7, 1]).is_empty());
        let m = same_partition(&[0, 0, 2], &[7, 1, 1]);
        assert_eq!(
            m[0],
            PartitionMismatch {
                node: 1,
                expected_with: 0,
                got_with: 1
            }
        );
    }
}

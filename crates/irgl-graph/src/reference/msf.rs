//! Minimum spanning forest of the graph taken as undirected (both directions merged, the
//! smallest weight of parallel edges kept, self-loops ignored).
//!
//! [`kruskal`] sorts the undirected edges and joins them with petgraph's `UnionFind`;
//! [`kruskal_petgraph`] runs `petgraph::algo::min_spanning_tree` on a petgraph copy, as a second
//! reference for tests. [`check_marked`] examines the edges a GPU program marked.

use petgraph::unionfind::UnionFind;
use rayon::prelude::*;

use crate::csr::Csr;

/// A minimum spanning forest's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Forest {
    /// Total weight.
    pub weight: u64,
    /// Number of (undirected) edges: N minus the number of components.
    pub edges: u64,
    /// Number of connected components.
    pub components: u64,
}

/// The undirected edges `(u, v, w)` with `u < v` of the simple undirected view.
fn undirected_edges(g: &Csr) -> Option<Vec<(u32, u32, u32)>> {
    let u = g.undirected_simple();
    let w = u.weights.as_ref()?;
    let (u, dst) = (&u, &u.dst);
    Some(
        (0..u.n)
            .into_par_iter()
            .with_min_len(1 << 12)
            .flat_map_iter(|a| {
                u.edge_range(a)
                    .filter(move |&e| a < dst[e])
                    .map(move |e| (a, dst[e], w[e]))
            })
            .collect(),
    )
}

/// Kruskal's algorithm; `None` if the graph has no weights.
pub fn kruskal(g: &Csr) -> Option<Forest> {
    let mut edges = undirected_edges(g)?;
    edges.par_sort_unstable_by_key(|&(u, v, w)| (w, u, v));
    let mut uf = UnionFind::<u32>::new(g.n as usize);
    let (mut weight, mut count) = (0u64, 0u64);
    for (u, v, w) in edges {
        if uf.union(u, v) {
            weight += u64::from(w);
            count += 1;
        }
    }
    Some(Forest {
        weight,
        edges: count,
        components: u64::from(g.n) - count,
    })
}

/// The forest weight by `petgraph::algo::min_spanning_tree`; `None` without weights.
pub fn kruskal_petgraph(g: &Csr) -> Option<u64> {
    let edges = undirected_edges(g)?;
    let mut pg = petgraph::graph::UnGraph::<(), u32, u32>::with_capacity(g.n as usize, edges.len());
    for _ in 0..g.n {
        pg.add_node(());
    }
    pg.extend_with_edges(edges.iter().map(|&(u, v, w)| (u, v, w)));
    let mut weight = 0u64;
    for el in petgraph::algo::min_spanning_tree(&pg) {
        if let petgraph::data::Element::Edge { weight: w, .. } = el {
            weight += u64::from(w);
        }
    }
    Some(weight)
}

/// What the marked edges of a GPU answer amount to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marked {
    /// Distinct undirected edges marked (an edge marked in both directions counts once).
    pub edges: u64,
    /// Their total weight (for an undirected edge marked with two different weights, the smaller).
    pub weight: u64,
    /// Marked self-loops, by edge id.
    pub self_loops: Vec<u64>,
    /// Marked edges that close a cycle with earlier marked edges, as `(u, v)`.
    pub cycle_edges: Vec<(u32, u32)>,
}

/// Examines the edges marked in `in_mst` (one flag per edge, CSR order). Needs weights.
pub fn check_marked(g: &Csr, in_mst: &[bool]) -> Option<Marked> {
    let weights = g.weights.as_ref()?;
    let mut pairs: Vec<(u32, u32, u32)> = Vec::new();
    let mut self_loops = Vec::new();
    for u in 0..g.n {
        for e in g.edge_range(u) {
            if !in_mst.get(e).copied().unwrap_or(false) {
                continue;
            }
            let v = g.dst[e];
            if u == v {
                self_loops.push(e as u64);
            } else {
                pairs.push((u.min(v), u.max(v), weights[e]));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup_by_key(|&mut (u, v, _)| (u, v));
    let mut uf = UnionFind::<u32>::new(g.n as usize);
    let mut cycle_edges = Vec::new();
    let mut weight = 0u64;
    for &(u, v, w) in &pairs {
        if !uf.union(u, v) {
            cycle_edges.push((u, v));
        }
        weight += u64::from(w);
    }
    Some(Marked {
        edges: pairs.len() as u64,
        weight,
        self_loops,
        cycle_edges,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    /// A square 0-1-2-3 with weights 1, 2, 3, 4 and diagonal 0-2 of weight 2, plus an isolated
    /// pair 4-5 of weight 7 given in both directions with different weights (7 and 9).
    fn sample() -> Csr {
        let mut l = EdgeList::new(6, true);
        for (u, v, w) in [
            (0, 1, 1),
            (1, 2, 2),
            (2, 3, 3),
            (3, 0, 4),
            (0, 2, 2),
            (4, 5, 7),
            (5, 4, 9),
            (3, 3, 0),
        ] {
            l.push(u, v, w);
        }
        Csr::from_edge_list(l)
    }

    #[test]
    fn kruskal_matches_hand_computation_and_petgraph() {
        let g = sample();
        let f = kruskal(&g).unwrap();
        // 0-1 (1) + one of 1-2/0-2 (2) + 2-3 (3) + 4-5 (7).
        assert_eq!(
            f,
            Forest {
                weight: 13,
                edges: 4,
                components: 2
            }
        );
        assert_eq!(kruskal_petgraph(&g), Some(13));
    }

    #[test]
    fn marked_edges_count_once_and_cycles_are_found() {
        let g = sample();
        let mark = |pairs: &[(u32, u32)]| -> Vec<bool> {
            let src = g.sources();
            (0..g.dst.len())
                .map(|e| pairs.contains(&(src[e], g.dst[e])))
                .collect()
        };
        let m = check_marked(&g, &mark(&[(0, 1), (1, 0), (1, 2), (2, 3), (4, 5)])).unwrap();
        assert_eq!((m.edges, m.weight), (4, 13));
        assert!(m.cycle_edges.is_empty() && m.self_loops.is_empty());
        let m = check_marked(&g, &mark(&[(0, 1), (1, 2), (0, 2), (3, 3)])).unwrap();
        assert_eq!(m.cycle_edges, vec![(1, 2)]);
        assert_eq!(m.self_loops.len(), 1);
    }
}

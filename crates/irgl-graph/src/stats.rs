//! Facts about a graph for `irglc graph info`: counts, degree statistics, symmetry, components
//! and an estimated diameter.
//!
//! The diameter estimate is a lower bound: BFS sweeps on the graph taken as undirected, starting
//! from a seeded random non-isolated node and restarting from the farthest node found, keeping
//! the largest eccentricity seen (exact on trees and grids, usually close on road networks).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::INF_U32;
use crate::csr::Csr;
use crate::reference::{bfs, cc};

/// Number of BFS sweeps of the diameter estimate.
pub const DIAMETER_SWEEPS: u32 = 4;

/// Facts about a graph.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphStats {
    pub nodes: u32,
    /// Edges (arcs) as stored.
    pub edges: u64,
    /// Distinct unordered pairs `{u, v}`, `u != v`, joined by an edge in either direction.
    pub undirected_edges: u64,
    pub self_loops: u64,
    /// Edges that repeat an earlier edge with the same source and destination.
    pub duplicate_edges: u64,
    /// Whether every edge has its reverse.
    pub symmetric: bool,
    /// Whether each node's neighbours are sorted by destination.
    pub sorted: bool,
    pub weighted: bool,
    /// Smallest and largest weight, if weighted and non-empty.
    pub weight_range: Option<(u32, u32)>,
    pub degree_min: u64,
    pub degree_max: u64,
    pub degree_mean: f64,
    pub degree_median: f64,
    /// The share of a warp's lanes that do useful work when each thread walks one node's
    /// edges alone, nodes taken 32 at a time in order: edges / (32 x the sum over each 32
    /// consecutive nodes of their largest degree); 1 for equal degrees, near 0 with hubs.
    /// The generated programs measure the same at load to choose a serial inner loop.
    pub warp_efficiency: f64,
    pub isolated_nodes: u64,
    /// Connected components of the undirected view.
    pub components: u64,
    /// Estimated diameter of the undirected view (a lower bound), in hops.
    pub diameter_estimate: u32,
    /// Bytes of the CSR arrays.
    pub memory_bytes: u64,
}

/// Computes [`GraphStats`]; `seed` picks the diameter sweeps' start.
pub fn describe(g: &Csr, seed: u64) -> GraphStats {
    let sorted = g.is_sorted();
    let owned;
    let s: &Csr = if sorted {
        g
    } else {
        let mut c = g.clone();
        c.sort_neighbours();
        owned = c;
        &owned
    };
    let view = undirected_view(s);
    let Undirected {
        duplicate_edges,
        symmetric,
        ..
    } = view;
    // A simple symmetric graph is its own view.
    let undirected = view.graph.as_ref().unwrap_or(s);
    let undirected_edges = undirected.num_edges() / 2;
    let mut degrees: Vec<u64> = (0..g.n).into_par_iter().map(|v| g.degree(v)).collect();
    degrees.par_sort_unstable();
    let median = match degrees.len() {
        0 => 0.0,
        k if k % 2 == 1 => degrees[k / 2] as f64,
        k => (degrees[k / 2 - 1] + degrees[k / 2]) as f64 / 2.0,
    };
    let weight_range = g
        .weights
        .as_ref()
        .and_then(|w| Some((*w.par_iter().min()?, *w.par_iter().max()?)));
    let labels = cc::components_union_find_symmetric(undirected);
    let components = cc::count(&labels);
    GraphStats {
        nodes: g.n,
        edges: g.num_edges(),
        undirected_edges,
        self_loops: g.self_loops(),
        duplicate_edges,
        symmetric,
        sorted,
        weighted: g.weights.is_some(),
        weight_range,
        degree_min: degrees.first().copied().unwrap_or(0),
        degree_max: degrees.last().copied().unwrap_or(0),
        degree_mean: if g.n == 0 {
            0.0
        } else {
            g.num_edges() as f64 / f64::from(g.n)
        },
        degree_median: median,
        warp_efficiency: warp_efficiency(g),
        isolated_nodes: (0..undirected.n)
            .filter(|&v| undirected.degree(v) == 0)
            .count() as u64,
        components,
        diameter_estimate: sweep_diameter(undirected, &labels, seed),
        memory_bytes: g.memory_bytes(),
    }
}

/// What one pass over a graph and its reverse finds: the undirected simple view and two
/// facts about the stored edges.
struct Undirected {
    /// Both directions of every edge, self-loops and repeats dropped, neighbours sorted
    /// (structure only); `None` where that is the graph itself (symmetric, simple).
    graph: Option<Csr>,
    /// Edges that repeat the one before them in their source's sorted list.
    duplicate_edges: u64,
    /// Whether every edge has its reverse.
    symmetric: bool,
}

/// Builds [`Undirected`] from `s`, whose neighbours must be sorted, in time linear in its
/// edges and in parallel over node ranges: the reverse graph's structure
/// ([`Csr::reverse_structure`], each node's sources in order), per node the repeats in its
/// out-list and whether its out- and in-lists hold the same nodes (the symmetry), and unless
/// the graph is symmetric and simple, the union of each node's out- and in-lists (the view).
fn undirected_view(s: &Csr) -> Undirected {
    let rev = s.reverse_structure();
    let duplicate_edges = (0..s.n)
        .into_par_iter()
        .with_min_len(1 << 12)
        .map(|u| s.neighbours(u).windows(2).filter(|w| w[0] == w[1]).count() as u64)
        .sum();
    let symmetric = s.is_symmetric_given(&rev);
    let simple = symmetric && duplicate_edges == 0 && s.self_loops() == 0;
    let graph = (!simple).then(|| s.union_with(&rev, false));
    Undirected {
        graph,
        duplicate_edges,
        symmetric,
    }
}

/// Lanes of a warp.
pub const WARP: u32 = 32;

/// [`GraphStats::warp_efficiency`]: 1 for a graph without edges.
pub fn warp_efficiency(g: &Csr) -> f64 {
    let mut lanes = 0u64;
    let mut start = 0u32;
    while start < g.n {
        let end = start.saturating_add(WARP).min(g.n);
        let widest = (start..end).map(|v| g.degree(v)).max().unwrap_or(0);
        lanes += u64::from(WARP) * widest;
        start = end;
    }
    if lanes == 0 {
        1.0
    } else {
        g.num_edges() as f64 / lanes as f64
    }
}

/// Lower bound on the diameter of a symmetric graph by repeated BFS sweeps, starting from a
/// seeded random node of the largest component.
pub fn estimate_diameter(u: &Csr, seed: u64) -> u32 {
    sweep_diameter(u, &cc::components_union_find(u), seed)
}

/// [`estimate_diameter`] with the component labels of `u` already found.
fn sweep_diameter(u: &Csr, labels: &[u32], seed: u64) -> u32 {
    let mut size = vec![0u32; u.n as usize];
    for &l in labels {
        size[l as usize] += 1;
    }
    let Some(largest) = (0..u.n).max_by_key(|&l| (size[l as usize], std::cmp::Reverse(l))) else {
        return 0;
    };
    let candidates: Vec<u32> = (0..u.n)
        .filter(|&v| labels[v as usize] == largest)
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pick = ((u128::from(rng.next_u64()) * candidates.len() as u128) >> 64) as usize;
    let mut start = candidates[pick];
    let mut best = 0;
    for _ in 0..DIAMETER_SWEEPS {
        let levels = bfs::bfs_levels(u, start);
        let (far, ecc) = levels
            .iter()
            .enumerate()
            .filter(|&(_, &l)| l != INF_U32)
            .max_by_key(|&(_, &l)| l)
            .map_or((start, 0), |(v, &l)| (v as u32, l));
        best = best.max(ecc);
        start = far;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;
    use crate::generate::grid;

    #[test]
    fn grid_facts() {
        let g = Csr::from_edge_list(grid(5, 7).unwrap());
        let s = describe(&g, 1);
        assert_eq!((s.nodes, s.edges, s.undirected_edges), (35, 116, 58));
        assert!(s.symmetric && s.sorted);
        assert_eq!((s.degree_min, s.degree_max, s.components), (2, 4, 1));
        assert_eq!(s.diameter_estimate, 4 + 6);
        // Two warps: nodes 0-31 (widest 4) and 32-34 (widest 3): 116 / (32 * (4 + 3)).
        assert!((s.warp_efficiency - 116.0 / 224.0).abs() < 1e-12);
    }

    #[test]
    fn warp_efficiency_falls_with_a_hub() {
        let mut l = EdgeList::new(64, false);
        for v in 1..64 {
            l.push(0, v, 0);
            l.push(v, 0, 0);
        }
        // Warp 0: the hub (63 edges) and 31 leaves; warp 1: 32 leaves of degree 1.
        let g = Csr::from_edge_list(l);
        assert!((warp_efficiency(&g) - 126.0 / (32.0 * 64.0)).abs() < 1e-12);
        assert_eq!(
            warp_efficiency(&Csr::from_edge_list(EdgeList::new(3, false))),
            1.0
        );
    }

    #[test]
    fn counts_duplicates_loops_and_one_way_pairs() {
        let mut l = EdgeList::new(4, false);
        for (u, v) in [(0, 1), (0, 1), (1, 0), (2, 2), (3, 2)] {
            l.push(u, v, 0);
        }
        let s = describe(&Csr::from_edge_list(l), 0);
        assert_eq!(
            (s.undirected_edges, s.duplicate_edges, s.self_loops),
            (2, 1, 1)
        );
        assert!(!s.symmetric);
        assert_eq!(s.components, 2);
        assert_eq!(s.degree_median, 1.0);
    }

    #[test]
    fn repeated_edges_with_their_reverse_are_symmetric() {
        let mut l = EdgeList::new(3, false);
        for (u, v) in [(0, 1), (0, 1), (1, 0), (1, 2), (2, 1), (2, 1), (2, 2)] {
            l.push(u, v, 0);
        }
        let s = describe(&Csr::from_edge_list(l), 0);
        assert!(s.symmetric);
        assert_eq!((s.undirected_edges, s.duplicate_edges), (2, 2));
    }

    #[test]
    fn the_one_pass_view_agrees_with_sets_on_random_graphs() {
        use std::collections::BTreeSet;
        for seed in 0..300u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let n = 1 + (rng.next_u64() % 12) as u32;
            let m = rng.next_u64() % 40;
            let mut l = EdgeList::new(n, false);
            let mut arcs = Vec::new();
            for _ in 0..m {
                let (u, v) = (
                    (rng.next_u64() % u64::from(n)) as u32,
                    (rng.next_u64() % u64::from(n)) as u32,
                );
                l.push(u, v, 0);
                arcs.push((u, v));
            }
            let s = describe(&Csr::from_edge_list(l), 0);
            let set: BTreeSet<(u32, u32)> = arcs.iter().copied().collect();
            let pairs: BTreeSet<(u32, u32)> = arcs
                .iter()
                .filter(|(u, v)| u != v)
                .map(|&(u, v)| (u.min(v), u.max(v)))
                .collect();
            let touched: BTreeSet<u32> = pairs.iter().flat_map(|&(u, v)| [u, v]).collect();
            assert_eq!(s.undirected_edges, pairs.len() as u64, "seed {seed}");
            assert_eq!(s.duplicate_edges, m - set.len() as u64, "seed {seed}");
            assert_eq!(
                s.symmetric,
                set.iter().all(|&(u, v)| set.contains(&(v, u))),
                "seed {seed}"
            );
            assert_eq!(
                s.isolated_nodes,
                u64::from(n) - touched.len() as u64,
                "seed {seed}"
            );
        }
    }

    #[test]
    fn diameter_sweeps_start_in_the_largest_component() {
        // A path of 6 nodes and many isolated pairs.
        let mut l = EdgeList::new(40, false);
        for i in 0..5 {
            l.push(i, i + 1, 0);
            l.push(i + 1, i, 0);
        }
        for i in (6..40).step_by(2) {
            l.push(i, i + 1, 0);
            l.push(i + 1, i, 0);
        }
        let g = Csr::from_edge_list(l);
        for seed in 0..10 {
            assert_eq!(estimate_diameter(&g, seed), 5);
        }
    }
}

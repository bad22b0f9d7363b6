//! Graph transformations applied by `irglc graph convert` and `gen`: drop self-loops, symmetrize,
//! merge duplicate edges, add seeded weights. Every transformation leaves each node's neighbours
//! sorted by destination, which the GPU triangle-counting program relies on.
//!
//! Weights added by [`add_weights`] are uniform integers in `[1, 100]`, a pure function of
//! `(seed, min(u, v), max(u, v))`, so both directions of an undirected edge get the same weight
//! and the same seed always gives the same graph.

use rayon::prelude::*;

use crate::csr::Csr;
use crate::par;

/// Lowest weight [`add_weights`] produces.
pub const MIN_WEIGHT: u32 = 1;
/// Highest weight [`add_weights`] produces.
pub const MAX_WEIGHT: u32 = 100;

/// Which transformations to apply, in the order [`apply`] applies them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TransformOptions {
    /// Drop edges `v -> v`.
    pub drop_self_loops: bool,
    /// Add the reverse of every edge (merges duplicates, see [`symmetrize`]).
    pub symmetrize: bool,
    /// Merge parallel edges, keeping the smallest weight.
    pub dedup: bool,
    /// Add weights from this seed where the graph has none.
    pub weights_seed: Option<u64>,
}

/// Applies `opts` to `g` and sorts adjacency. Returns the graph and notes for the user (for
/// instance that weights were added, or that the graph already had some).
pub fn apply(mut g: Csr, opts: &TransformOptions) -> (Csr, Vec<String>) {
    let mut notes = Vec::new();
    if opts.drop_self_loops {
        let before = g.num_edges();
        drop_self_loops(&mut g);
        let dropped = before - g.num_edges();
        if dropped > 0 {
            notes.push(format!("dropped {dropped} self-loops"));
        }
    }
    if opts.symmetrize {
        let before = g.num_edges();
        g = symmetrize(&g);
        notes.push(format!(
            "symmetrized: {before} edges became {}",
            g.num_edges()
        ));
    } else {
        g.sort_neighbours();
    }
    if opts.dedup {
        let before = g.num_edges();
        dedup_sorted(&mut g);
        let merged = before - g.num_edges();
        if merged > 0 {
            notes.push(format!("merged {merged} duplicate edges"));
        }
    }
    if let Some(seed) = opts.weights_seed {
        if g.weights.is_some() {
            notes.push("the graph already has edge weights; --weights was not applied".into());
        } else {
            add_weights(&mut g, seed);
            notes.push(format!(
                "added uniform random weights in [{MIN_WEIGHT}, {MAX_WEIGHT}] from seed {seed}"
            ));
        }
    }
    (g, notes)
}

/// Removes edges `v -> v`, keeping the order of the rest.
pub fn drop_self_loops(g: &mut Csr) {
    retain_edges(g, |u, list, i| list[i] != u);
}

/// Keeps the edges for which `keep(u, list, i)` holds (`list` the neighbours of `u`, `i` the
/// edge's place in it), in order: node ranges in parallel, one pass counting what each node
/// keeps, a second copying it.
fn retain_edges(g: &mut Csr, keep: impl Fn(u32, &[u32], usize) -> bool + Sync) {
    let keep = &keep;
    let kept = |u: usize| {
        let list = g.neighbours(u as u32);
        (0..list.len()).filter(move |&i| keep(u as u32, list, i))
    };
    let (offsets, dst, weights) = par::build_lists(
        g.n as usize,
        &par::edge_ranges(&g.offsets),
        g.weights.is_some(),
        |u| kept(u).count() as u64,
        |u, d, mut w| {
            let (list, weights) = (g.neighbours(u as u32), g.weights_of(u as u32));
            for (at, i) in kept(u).enumerate() {
                d[at] = list[i];
                if let (Some(w), Some(x)) = (&mut w, weights) {
                    w[at] = x[i];
                }
            }
        },
    );
    g.offsets = offsets;
    g.dst = dst;
    g.weights = weights;
}

/// Merges parallel edges of a graph whose neighbours are sorted (by destination, then weight),
/// keeping the first, that is the smallest weight.
pub fn dedup_sorted(g: &mut Csr) {
    retain_edges(g, |_, list, i| i == 0 || list[i] != list[i - 1]);
}

/// The union of `g` and its reverse, sorted, with parallel edges merged (keeping the smallest
/// weight, so both directions of an edge end up with the same weight). A self-loop stays one edge.
pub fn symmetrize(g: &Csr) -> Csr {
    g.union_with_reverse(true)
}

/// The weight [`add_weights`] gives the undirected edge `{u, v}` for `seed`.
pub fn edge_weight(seed: u64, u: u32, v: u32) -> u32 {
    let (a, b) = if u <= v { (u, v) } else { (v, u) };
    let key = (u64::from(a) << 32) | u64::from(b);
    let h = splitmix64(splitmix64(seed) ^ key);
    let span = u64::from(MAX_WEIGHT - MIN_WEIGHT + 1);
    MIN_WEIGHT + ((u128::from(h) * u128::from(span)) >> 64) as u32
}

/// Gives every edge the weight [`edge_weight`]`(seed, u, v)`, replacing any weights.
pub fn add_weights(g: &mut Csr, seed: u64) {
    let mut w = vec![0u32; g.dst.len()];
    let ranges = par::edge_ranges(&g.offsets);
    par::split_by_ranges(&mut w, &g.offsets, &ranges)
        .into_par_iter()
        .zip(&ranges)
        .for_each(|(w, r)| {
            let base = g.offsets[r.start] as usize;
            for u in r.clone() {
                for e in g.edge_range(u as u32) {
                    w[e - base] = edge_weight(seed, u as u32, g.dst[e]);
                }
            }
        });
    g.weights = Some(w);
}

/// SplitMix64's output function: a fast, well-mixed 64-bit hash.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    fn graph(n: u32, edges: &[(u32, u32)]) -> Csr {
        Csr::from_pairs(n, edges)
    }

    #[test]
    fn symmetrize_adds_reverses_once() {
        let g = symmetrize(&graph(3, &[(0, 1), (1, 0), (1, 2), (2, 2)]));
        assert_eq!(g.offsets, vec![0, 1, 3, 5]);
        assert_eq!(g.dst, vec![1, 0, 2, 1, 2]);
        assert!(g.is_symmetric());
    }

    #[test]
    fn weights_are_symmetric_deterministic_and_in_range() {
        let g = symmetrize(&graph(50, &(0..49).map(|i| (i, i + 1)).collect::<Vec<_>>()));
        let (a, _) = apply(
            g.clone(),
            &TransformOptions {
                weights_seed: Some(7),
                ..Default::default()
            },
        );
        let (b, _) = apply(
            g,
            &TransformOptions {
                weights_seed: Some(7),
                ..Default::default()
            },
        );
        assert_eq!(a, b);
        let w = a.weights.as_ref().unwrap();
        assert!(w.iter().all(|&x| (MIN_WEIGHT..=MAX_WEIGHT).contains(&x)));
        for u in 0..a.n {
            for e in a.edge_range(u) {
                let v = a.dst[e];
                let back = a.edge_range(v).find(|&f| a.dst[f] == u).unwrap();
                assert_eq!(w[e], w[back]);
            }
        }
        assert_ne!(edge_weight(7, 1, 2), edge_weight(8, 1, 2));
    }

    #[test]
    fn weights_cover_the_range_roughly_uniformly() {
        let mut counts = [0u32; 100];
        for v in 0..100_000 {
            counts[(edge_weight(1, 0, v) - 1) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn dedup_keeps_smallest_weight_and_drop_loops_keeps_order() {
        let mut l = EdgeList::new(2, true);
        l.push(0, 1, 9);
        l.push(0, 1, 3);
        l.push(1, 1, 4);
        l.push(1, 0, 1);
        let mut g = Csr::from_edge_list(l);
        dedup_sorted(&mut g);
        assert_eq!(g.dst, vec![1, 0, 1]);
        assert_eq!(g.weights, Some(vec![3, 1, 4]));
        drop_self_loops(&mut g);
        assert_eq!(g.offsets, vec![0, 1, 2]);
        assert_eq!(g.weights, Some(vec![3, 1]));
    }
}

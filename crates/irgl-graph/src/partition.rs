//! Partitioning a graph over several GPUs: an edge-cut by contiguous node ranges, the first
//! step of partitioned execution (docs/multi-gpu.md).
//!
//! Each part *owns* a contiguous range of nodes (its *masters*) and every out-edge of them.
//! An edge whose destination another part owns points, in the part's local graph, at a
//! *mirror*: a local copy of the remote node. Local ids are the masters first (global id minus
//! the range's start), then the mirrors in increasing global id; mirrors have no out-edges.
//! The ranges are balanced by nodes plus edges, each part's weight at most an even share plus
//! the heaviest node (a hub is never split: that is node splitting's business).
//!
//! After a round a program reduces each mirror's value into its master (min for labels and
//! distances, sum for contributions) and, where masters changed, broadcasts them back. The
//! plan for that exchange is here: per pair of parts, which mirrors of one stand for which
//! masters of the other ([`Part::mirrors_of`], [`Part::mirrored_on`]), in the same order on
//! both sides, so that a reduction is one contiguous buffer per pair.

use std::ops::Range;

use rayon::prelude::*;

use crate::csr::Csr;

/// A graph split over `parts` parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// Part `p` owns the global nodes `starts[p]..starts[p + 1]`; `starts.len() == parts + 1`.
    pub starts: Vec<u32>,
    pub parts: Vec<Part>,
}

/// One part: its masters, its local graph and its mirrors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The global ids of its masters.
    pub masters: Range<u32>,
    /// The local graph: `masters.len() + mirrors.len()` nodes, the masters' out-edges (weights
    /// kept) with local destinations; mirrors have none.
    pub csr: Csr,
    /// The global ids of its mirrors, increasing: mirror `i` is local node
    /// `masters.len() + i`.
    pub mirrors: Vec<u32>,
    /// Per part `q`: the positions in `mirrors` of the mirrors whose master `q` owns (a
    /// range, since mirrors are sorted and ranges contiguous; empty for `q` itself).
    pub mirrors_of: Vec<Range<u32>>,
    /// Per part `q`: the local ids of this part's masters that `q` mirrors, in `q`'s mirror
    /// order (so `q`'s `mirrors_of[self]` lines up with it, element for element).
    pub mirrored_on: Vec<Vec<u32>>,
}

impl Part {
    /// The number of local nodes: masters, then mirrors.
    pub fn local_nodes(&self) -> u32 {
        self.csr.n
    }

    /// The global id of local node `v`.
    pub fn global(&self, v: u32) -> u32 {
        let m = self.masters.len() as u32;
        if v < m {
            self.masters.start + v
        } else {
            self.mirrors[(v - m) as usize]
        }
    }
}

/// What a partition costs: per part its masters, edges and mirrors, and the totals that
/// matter for communication.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionStats {
    /// Per part: masters, edges, mirrors.
    pub parts: Vec<(u32, u64, u32)>,
    /// Mirrors over all parts: the values one reduction (or one broadcast) moves when every
    /// mirror is sent.
    pub mirrors: u64,
    /// (masters + mirrors) / masters over the whole graph.
    pub replication: f64,
    /// The heaviest part's nodes + edges over the mean part's.
    pub imbalance: f64,
}

/// The node ranges of `parts` parts balanced by nodes plus out-edges: part `p` starts at the
/// first node whose prefix weight reaches `p / parts` of the total. `parts` is at least 1;
/// parts may be empty on graphs with fewer nodes than parts.
pub fn balanced_ranges(g: &Csr, parts: u32) -> Vec<u32> {
    ranges_by_offsets(&g.offsets, parts)
}

/// [`balanced_ranges`] over the `n + 1` offsets of a CSR (node `v`'s arcs before it:
/// `offsets[v]`), for graphs whose offsets are known before their arcs (`crate::parts`).
pub(crate) fn ranges_by_offsets(offsets: &[u64], parts: u32) -> Vec<u32> {
    let parts = parts.max(1);
    let n = (offsets.len() - 1) as u32;
    // Weight before node v: v + offsets[v] (both non-decreasing in v).
    let weight = |v: u32| u64::from(v) + offsets[v as usize];
    let total = weight(n);
    let mut starts = Vec::with_capacity(parts as usize + 1);
    starts.push(0);
    for p in 1..parts {
        let target = (u128::from(total) * u128::from(p) / u128::from(parts)) as u64;
        // The first node whose weight before it reaches the target.
        let (mut lo, mut hi) = (*starts.last().unwrap(), n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if weight(mid) < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        starts.push(lo);
    }
    starts.push(n);
    starts
}

/// Splits `g` over `parts` parts (at least 1) by [`balanced_ranges`]; parts are built in
/// parallel, the same result on any number of threads.
pub fn partition(g: &Csr, parts: u32) -> Partition {
    partition_at(g, balanced_ranges(g, parts))
}

/// Splits `g` at `starts` (part `p` owns `starts[p]..starts[p + 1]`: non-decreasing, from 0
/// to `g.n`).
pub fn partition_at(g: &Csr, starts: Vec<u32>) -> Partition {
    assert!(
        starts.first() == Some(&0)
            && starts.last() == Some(&g.n)
            && starts.windows(2).all(|w| w[0] <= w[1]),
        "part starts {starts:?} do not cover 0..{}",
        g.n
    );
    let owner = |v: u32| (starts.partition_point(|&s| s <= v) - 1) as u32;
    let mut built: Vec<Part> = (0..starts.len() - 1)
        .into_par_iter()
        .map(|p| {
            let masters = starts[p]..starts[p + 1];
            let (lo, hi) = (
                g.offsets[masters.start as usize] as usize,
                g.offsets[masters.end as usize] as usize,
            );
            let mut mirrors: Vec<u32> = g.dst[lo..hi]
                .iter()
                .copied()
                .filter(|v| !masters.contains(v))
                .collect();
            mirrors.par_sort_unstable();
            mirrors.dedup();
            let m = masters.end - masters.start;
            let local = |v: u32| {
                if masters.contains(&v) {
                    v - masters.start
                } else {
                    m + mirrors
                        .binary_search(&v)
                        .expect("a mirror of every remote end") as u32
                }
            };
            let csr = Csr {
                n: m + mirrors.len() as u32,
                offsets: g.offsets[masters.start as usize..=masters.end as usize]
                    .iter()
                    .map(|&o| o - lo as u64)
                    .chain(std::iter::repeat_n((hi - lo) as u64, mirrors.len()))
                    .collect(),
                dst: g.dst[lo..hi].iter().map(|&v| local(v)).collect(),
                weights: g.weights.as_ref().map(|w| w[lo..hi].to_vec()),
            };
            let mirrors_of = (0..starts.len() - 1)
                .map(|q| {
                    let a = mirrors.partition_point(|&v| v < starts[q]) as u32;
                    let b = mirrors.partition_point(|&v| v < starts[q + 1]) as u32;
                    a..b
                })
                .collect();
            Part {
                masters,
                csr,
                mirrors,
                mirrors_of,
                mirrored_on: Vec::new(),
            }
        })
        .collect();
    // Each part's masters that another part mirrors, in that part's mirror order.
    let mirrored_on: Vec<Vec<Vec<u32>>> = (0..built.len())
        .map(|p| {
            (0..built.len())
                .map(|q| {
                    let r = built[q].mirrors_of[p].clone();
                    built[q].mirrors[r.start as usize..r.end as usize]
                        .iter()
                        .map(|&v| {
                            debug_assert_eq!(owner(v) as usize, p);
                            v - starts[p]
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    for (part, on) in built.iter_mut().zip(mirrored_on) {
        part.mirrored_on = on;
    }
    Partition {
        starts,
        parts: built,
    }
}

impl Partition {
    /// What the partition costs (see [`PartitionStats`]).
    pub fn stats(&self) -> PartitionStats {
        let parts: Vec<(u32, u64, u32)> = self
            .parts
            .iter()
            .map(|p| {
                (
                    p.masters.end - p.masters.start,
                    p.csr.num_edges(),
                    p.mirrors.len() as u32,
                )
            })
            .collect();
        let masters: u64 = parts.iter().map(|p| u64::from(p.0)).sum();
        let mirrors: u64 = parts.iter().map(|p| u64::from(p.2)).sum();
        let weights: Vec<u64> = parts.iter().map(|p| u64::from(p.0) + p.1).collect();
        let mean = weights.iter().sum::<u64>() as f64 / weights.len().max(1) as f64;
        let heaviest = weights.iter().copied().max().unwrap_or(0) as f64;
        PartitionStats {
            parts,
            mirrors,
            replication: if masters == 0 {
                1.0
            } else {
                (masters + mirrors) as f64 / masters as f64
            },
            imbalance: if mean > 0.0 { heaviest / mean } else { 1.0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    fn graph(n: u32, edges: &[(u32, u32)]) -> Csr {
        Csr::from_edge_list(EdgeList {
            n,
            src: edges.iter().map(|e| e.0).collect(),
            dst: edges.iter().map(|e| e.1).collect(),
            weights: Some((0..edges.len() as u32).map(|w| w + 1).collect()),
        })
    }

    /// Every global edge, with its weight, exactly once over the parts' local graphs.
    fn edges_back(p: &Partition) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        for part in &p.parts {
            let w = part.csr.weights.as_ref().unwrap();
            for v in 0..part.masters.len() as u32 {
                let (lo, hi) = (
                    part.csr.offsets[v as usize],
                    part.csr.offsets[v as usize + 1],
                );
                for e in lo..hi {
                    let d = part.csr.dst[e as usize];
                    out.push((part.global(v), part.global(d), w[e as usize]));
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn check(g: &Csr, parts: u32) -> Partition {
        let p = partition(g, parts);
        assert_eq!(p.starts.len() as u32, parts + 1);
        assert_eq!((p.starts[0], *p.starts.last().unwrap()), (0, g.n));
        let mut want = Vec::new();
        for u in 0..g.n {
            for e in g.offsets[u as usize]..g.offsets[u as usize + 1] {
                want.push((
                    u,
                    g.dst[e as usize],
                    g.weights.as_ref().unwrap()[e as usize],
                ));
            }
        }
        want.sort_unstable();
        assert_eq!(edges_back(&p), want, "every edge once, with its weight");
        for (i, part) in p.parts.iter().enumerate() {
            part.csr.validate().unwrap();
            // Mirrors: exactly the remote ends, sorted, none of them a master.
            let mut remote: Vec<u32> = (part.masters.start..part.masters.end)
                .flat_map(|u| g.neighbours(u).iter().copied())
                .filter(|v| !part.masters.contains(v))
                .collect();
            remote.sort_unstable();
            remote.dedup();
            assert_eq!(part.mirrors, remote);
            assert!(part.mirrors_of[i].is_empty());
            // Each pair's buffers line up: q's mirrors of i are i's masters mirrored on q.
            for (q, other) in p.parts.iter().enumerate() {
                let r = other.mirrors_of[i].clone();
                let globals: Vec<u32> = part.mirrored_on[q]
                    .iter()
                    .map(|&v| part.global(v))
                    .collect();
                assert_eq!(other.mirrors[r.start as usize..r.end as usize], globals[..]);
            }
        }
        // Balance: no part above an even share plus the heaviest node.
        let total = u64::from(g.n) + g.num_edges();
        let heaviest = (0..g.n).map(|u| 1 + g.degree(u)).max().unwrap_or(0);
        for part in &p.parts {
            let w = u64::from(part.masters.end - part.masters.start) + part.csr.num_edges();
            assert!(
                w <= total.div_ceil(u64::from(parts)) + heaviest,
                "part weight {w} of {total} over {parts} parts"
            );
        }
        p
    }

    #[test]
    fn every_edge_lands_once_and_mirrors_line_up() {
        // A path, a hub and a cycle through every part.
        let path: Vec<(u32, u32)> = (0..19).map(|i| (i, i + 1)).collect();
        let g = graph(20, &path);
        for k in [1, 2, 3, 7, 20, 25] {
            check(&g, k);
        }
        let mut star: Vec<(u32, u32)> = (1..40).map(|i| (0, i)).collect();
        star.extend((1..40).map(|i| (i, 0)));
        star.extend((1..39).map(|i| (i, i + 1)));
        let g = graph(40, &star);
        for k in [1, 2, 4, 5] {
            check(&g, k);
        }
    }

    #[test]
    fn one_part_has_no_mirrors_and_a_cut_edge_one_mirror_each_way() {
        let g = graph(4, &[(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2)]);
        let p = check(&g, 1);
        assert!(p.parts[0].mirrors.is_empty());
        assert_eq!(p.stats().replication, 1.0);
        let p = check(&g, 2);
        assert_eq!(p.starts, [0, 2, 4]);
        assert_eq!(p.parts[0].mirrors, [2]);
        assert_eq!(p.parts[1].mirrors, [1]);
        assert_eq!(
            p.parts[0].mirrored_on[1],
            [1],
            "node 1 is mirrored on part 1"
        );
        let s = p.stats();
        assert_eq!(s.mirrors, 2);
        assert_eq!(s.replication, 1.5);
        assert_eq!(s.parts, [(2, 3, 1), (2, 3, 1)]);
    }

    #[test]
    fn the_result_does_not_depend_on_the_threads() {
        let edges: Vec<(u32, u32)> = (0..2000u32).map(|i| (i * 7 % 500, i * 13 % 500)).collect();
        let g = graph(500, &edges);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| partition(&g, 6));
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(|| partition(&g, 6));
        assert_eq!(one, four);
        check(&g, 6);
    }

    #[test]
    fn ranges_match_the_runtimes() {
        // The example of runtime-cuda/tests/test_multi.cu (irgl::balanced_ranges): degrees 3,
        // 0, 0, 1, weights before nodes 0..4 of 0, 4, 5, 6, 8; a generated program splits a
        // graph where `irglc graph partition` says it does.
        let g = graph(4, &[(0, 1), (0, 2), (0, 3), (3, 0)]);
        assert_eq!(balanced_ranges(&g, 2), vec![0, 1, 4]);
        assert_eq!(balanced_ranges(&g, 1), vec![0, 4]);
        let more = balanced_ranges(&g, 8);
        assert_eq!((more.len(), more[8]), (9, 4));
    }
}

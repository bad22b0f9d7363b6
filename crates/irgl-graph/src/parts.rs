//! RMAT graphs generated part by part, for runs over several GPUs on graphs that neither one
//! GPU nor the host (twice) can hold (docs/multi-gpu.md, *A graph larger than one GPU*).
//!
//! Each part is what [`crate::partition::partition_at`] makes of the whole graph that
//! `irglc graph gen rmat` writes with the same options (its masters, their out-edges with
//! local destinations, its mirrors), built straight from the generator's edge stream
//! ([`crate::generate::RmatStream`]: the same chunks, streams and label permutation), never
//! from the whole graph. The node ranges are balanced by nodes plus arcs as generated, that
//! is before parallel edges merge: the merged degrees are known only once a part is built.
//!
//! Cost: one pass over the edge stream counts every node's arcs (a 64-bit offset per node),
//! then one pass per batch of consecutive parts places their masters' arcs (as many parts as
//! fit half the machine's memory together: one pass for all of them when the graph fits, one
//! a part when a part barely does); a part's lists are then sorted, merged, weighted and
//! relabelled in place. Memory: the counters plus a batch as generated (at least the largest
//! part). Every pass is parallel (rayon) and gives the same part on any number of threads and
//! in any batching.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::csr::Csr;
use crate::error::{GraphError, Result};
use crate::generate::{RmatSpec, RmatStream};
use crate::par;
use crate::partition::ranges_by_offsets;
use crate::progress::{Progress, Unit};
use crate::transform::edge_weight;

/// What is done to the generated edges, as `irglc graph gen`'s options do it to a whole graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartOptions {
    /// Both directions of every edge, parallel edges merged.
    pub symmetrize: bool,
    pub drop_self_loops: bool,
    /// Parallel edges merged (implied by `symmetrize`).
    pub dedup: bool,
    /// Weights `edge_weight(seed, u, v)` on every edge.
    pub weights: Option<u64>,
}

/// One generated part: its masters (global ids), its local graph (masters, then mirrors; the
/// masters' out-edges with local destinations, sorted; mirrors have none) and its mirrors'
/// global ids, increasing (mirror `i` is local node `masters.len() + i`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedPart {
    pub masters: Range<u32>,
    pub csr: Csr,
    pub mirrors: Vec<u32>,
}

/// The RMAT graph of `spec` (as [`crate::generate::rmat`] gives it) under `opts`, split over
/// `parts` parts: hands each part to `each` in order and returns the ranges (`parts + 1`
/// starts).
pub fn rmat_parts(
    spec: RmatSpec,
    opts: PartOptions,
    parts: u32,
    progress: &dyn Progress,
    each: impl FnMut(GeneratedPart) -> Result<()>,
) -> Result<Vec<u32>> {
    // Parts placed together while they fit half the machine's memory.
    let budget = crate::memory::physical().map_or(u128::MAX, |b| u128::from(b) / 2);
    rmat_parts_within(spec, opts, parts, budget, progress, each)
}

/// [`rmat_parts`], placing consecutive parts in one pass while they fit `budget` bytes.
fn rmat_parts_within(
    spec: RmatSpec,
    opts: PartOptions,
    parts: u32,
    budget: u128,
    progress: &dyn Progress,
    mut each: impl FnMut(GeneratedPart) -> Result<()>,
) -> Result<Vec<u32>> {
    // A part holds at least an even share of the arcs: refused before the labels'
    // permutation and any pass if that does not fit (a scale out of range is refused by the
    // stream; each part's exact size is checked again once the arcs are counted).
    if (1..=31).contains(&spec.scale) {
        let arcs_per_edge = if opts.symmetrize { 2 } else { 1 };
        let share =
            (u128::from(spec.edge_factor) << spec.scale) * arcs_per_edge / u128::from(parts.max(1));
        crate::memory::fits(
            share * if opts.weights.is_some() { 8 } else { 4 },
            &format!(
                "each of {} parts of an RMAT graph of scale {}",
                parts.max(1),
                spec.scale
            ),
        )?;
    }
    let stream = RmatStream::new(spec)?;
    let n = stream.nodes();
    let arcs = Arcs {
        stream: &stream,
        opts,
    };
    crate::memory::fits(
        (u128::from(n) + 1) * 8,
        &format!("counting the arcs of {n} nodes"),
    )?;
    // Every node's arcs as generated, each thread counting a node range of its own; then
    // the offsets of the whole graph's arcs as generated.
    let mut offsets = vec![0u64; n as usize + 1];
    progress.start(
        "counting each node's arcs",
        Some(stream.chunks() as u64),
        Unit::Items,
    );
    {
        let owners = Owners::new(0..n);
        let ranges = owners.ranges();
        let mut states: Vec<(u32, &mut [u64])> = ranges
            .iter()
            .map(|r| r.start as u32)
            .zip(par::split_nodes(&mut offsets[..n as usize], &ranges))
            .collect();
        arcs.route(&owners, &mut states, progress, |(first, counts), u, _| {
            counts[(u - *first) as usize] += 1;
        });
    }
    progress.finish();
    par::exclusive_prefix_sums(&mut offsets);
    let starts = ranges_by_offsets(&offsets, parts);
    let weight_bytes = if opts.weights.is_some() { 4 } else { 0 };
    for batch in batches(&starts, &offsets, weight_bytes, budget) {
        let (lo, hi) = (batch.start, batch.end);
        let range = starts[lo]..starts[hi];
        progress.start(
            &if hi - lo == 1 {
                format!("placing the arcs of part {lo}")
            } else {
                format!("placing the arcs of parts {lo} to {}", hi - 1)
            },
            Some(stream.chunks() as u64),
            Unit::Items,
        );
        let placed = place(&arcs, &offsets, range.clone(), progress);
        progress.finish();
        let mut placed = placed?;
        // The batch's parts in order: each after the first cut from the end of what is left.
        let mut parts = Vec::with_capacity(hi - lo);
        for p in (lo + 1..hi).rev() {
            let at = (offsets[starts[p] as usize] - offsets[range.start as usize]) as usize;
            parts.push(placed.split_off(at));
            placed.shrink_to_fit();
        }
        parts.push(placed);
        for (p, dst) in (lo..hi).zip(parts.into_iter().rev()) {
            each(finish_part(
                &arcs,
                &offsets,
                dst,
                starts[p]..starts[p + 1],
                n,
            )?)?;
        }
    }
    Ok(starts)
}

/// The arcs of the stream under the options (before parallel edges merge).
struct Arcs<'a> {
    stream: &'a RmatStream,
    opts: PartOptions,
}

impl Arcs<'_> {
    /// Hands every arc whose source is in owner `o`'s nodes to it (`visit(&mut states[o], u,
    /// v)`), each owner on one thread at a time and in stream order, so that owners need no
    /// atomics: chunks are generated in parallel batches, each chunk's arcs sorted by owner on
    /// the thread that made them, then every owner takes its share of the batch. Arcs whose
    /// source no owner has are dropped. The batch's buffers are reused from batch to batch
    /// (allocating them anew costs the kernel's time on many threads).
    fn route<S: Send>(
        &self,
        owners: &Owners,
        states: &mut [S],
        progress: &dyn Progress,
        visit: impl Fn(&mut S, u32, u32) + Sync,
    ) {
        debug_assert_eq!(states.len(), owners.count);
        if owners.count == 0 {
            return;
        }
        let PartOptions {
            symmetrize,
            drop_self_loops,
            ..
        } = self.opts;
        let chunks = self.stream.chunks();
        let batch = rayon::current_num_threads() * BATCH_PER_THREAD;
        let mut slots: Vec<Slot> = (0..batch.min(chunks)).map(|_| Slot::default()).collect();
        for first in (0..chunks).step_by(batch) {
            let used = (chunks - first).min(batch);
            slots[..used]
                .par_iter_mut()
                .enumerate()
                .for_each(|(k, slot)| {
                    let Slot { edges, at, arcs } = slot;
                    self.stream.chunk(first + k, edges);
                    at.clear();
                    at.resize(owners.count + 1, 0);
                    let mut count = |source: u32| {
                        if let Some(o) = owners.of(source) {
                            at[o + 1] += 1;
                        }
                    };
                    for &(u, v) in edges.iter() {
                        if u == v && drop_self_loops {
                            continue;
                        }
                        count(u);
                        if symmetrize {
                            count(v);
                        }
                    }
                    for o in 0..owners.count {
                        at[o + 1] += at[o];
                    }
                    arcs.clear();
                    arcs.resize(at[owners.count], (0, 0));
                    let mut next = at[..owners.count].to_vec();
                    let mut put = |u: u32, v: u32| {
                        if let Some(o) = owners.of(u) {
                            arcs[next[o]] = (u, v);
                            next[o] += 1;
                        }
                    };
                    for &(u, v) in edges.iter() {
                        if u == v && drop_self_loops {
                            continue;
                        }
                        put(u, v);
                        if symmetrize {
                            put(v, u);
                        }
                    }
                });
            states.par_iter_mut().enumerate().for_each(|(o, s)| {
                for slot in &slots[..used] {
                    for &(u, v) in &slot.arcs[slot.at[o]..slot.at[o + 1]] {
                        visit(s, u, v);
                    }
                }
            });
            progress.set((first + used) as u64);
        }
    }

    fn merges(&self) -> bool {
        self.opts.symmetrize || self.opts.dedup
    }
}

/// The nodes `lo..hi` split among owners in ranges of one power-of-two width, about
/// [`OWNERS_PER_THREAD`] a thread: owner `o` has `lo + o * width ..`, so finding a node's owner
/// is a shift.
struct Owners {
    lo: u32,
    hi: u32,
    shift: u32,
    count: usize,
}

impl Owners {
    fn new(nodes: Range<u32>) -> Self {
        let len = (nodes.end - nodes.start) as usize;
        let width = len
            .div_ceil(rayon::current_num_threads() * OWNERS_PER_THREAD)
            .max(1)
            .next_power_of_two();
        Owners {
            lo: nodes.start,
            hi: nodes.end,
            shift: width.trailing_zeros(),
            count: len.div_ceil(width),
        }
    }

    /// The owner of node `u`, if any.
    fn of(&self, u: u32) -> Option<usize> {
        (self.lo..self.hi)
            .contains(&u)
            .then(|| ((u - self.lo) >> self.shift) as usize)
    }

    /// Each owner's nodes, counted from `lo`.
    fn ranges(&self) -> Vec<Range<usize>> {
        let (len, width) = ((self.hi - self.lo) as usize, 1usize << self.shift);
        (0..self.count)
            .map(|o| o * width..((o + 1) * width).min(len))
            .collect()
    }
}

/// Owners per thread in [`Arcs::route`]: a few, so that owners of more arcs than others do
/// not leave threads idle.
const OWNERS_PER_THREAD: usize = 4;

/// One chunk of a batch in [`Arcs::route`]: its edges as generated, then its arcs sorted by
/// owner (`arcs`), owner `o`'s from `at[o]` to `at[o + 1]`.
#[derive(Default)]
struct Slot {
    edges: Vec<(u32, u32)>,
    at: Vec<usize>,
    arcs: Vec<(u32, u32)>,
}

/// Chunks a thread generates per batch of [`Arcs::route`] (a chunk is 2^18 edges; a batch
/// holds its arcs, 8 bytes each, until their owners have taken them).
const BATCH_PER_THREAD: usize = 4;

/// The batches of consecutive parts placed by one pass over the stream each: as many parts as
/// fit `budget` bytes together (a part's arcs as generated, 4 bytes each and `weight_bytes`
/// more, 24 bytes a master; and the largest part once more, cut out of the batch's arcs), at
/// least one. One pass a part when they do not fit together; two passes in all (counting and
/// placing) when the whole graph fits.
fn batches(starts: &[u32], whole: &[u64], weight_bytes: u128, budget: u128) -> Vec<Range<usize>> {
    let bytes = |p: usize| {
        let (a, b) = (starts[p] as usize, starts[p + 1] as usize);
        u128::from(whole[b] - whole[a]) * (4 + weight_bytes) + (b - a) as u128 * 24
    };
    let mut out: Vec<Range<usize>> = Vec::new();
    let (mut used, mut largest) = (0u128, 0u128);
    for p in 0..starts.len() - 1 {
        let b = bytes(p);
        match out.last_mut() {
            Some(last) if used + b + largest.max(b) <= budget => {
                last.end = p + 1;
                used += b;
                largest = largest.max(b);
            }
            _ => {
                out.push(p..p + 1);
                (used, largest) = (b, b);
            }
        }
    }
    out
}

/// The offsets of the nodes `range` (and of its end) in the whole graph's arcs as generated,
/// counted from its first node's.
fn relative_offsets(whole: &[u64], range: &Range<u32>) -> Vec<u64> {
    let base = whole[range.start as usize];
    whole[range.start as usize..=range.end as usize]
        .par_iter()
        .map(|&o| o - base)
        .collect()
}

/// The arcs of the masters `range` as generated, placed by source: node `v`'s from
/// `whole[v] - whole[range.start]` on.
fn place(
    arcs: &Arcs,
    whole: &[u64],
    range: Range<u32>,
    progress: &dyn Progress,
) -> Result<Vec<u32>> {
    let (first, m) = (range.start, range.end - range.start);
    let offsets = relative_offsets(whole, &range);
    let placed = *offsets.last().unwrap();
    // Its arcs as generated (and, later, their weights), and per master offsets, cursors,
    // lengths.
    let weight_bytes = if arcs.opts.weights.is_some() { 4 } else { 0 };
    crate::memory::fits(
        u128::from(placed) * (4 + weight_bytes) + u128::from(m) * 24,
        &format!("a part of {m} nodes and {placed} arcs"),
    )?;
    let mut dst = vec![0u32; placed as usize];
    // Each owner with its masters' cursors and their slice of `dst`.
    let owners = Owners::new(range.clone());
    let ranges = owners.ranges();
    let mut cursors: Vec<u64> = offsets[..m as usize].to_vec();
    let mut states: Vec<(u32, u64, &mut [u64], &mut [u32])> = ranges
        .iter()
        .zip(par::split_nodes(&mut cursors, &ranges))
        .zip(par::split_by_ranges(&mut dst, &offsets, &ranges))
        .map(|((r, c), d)| (first + r.start as u32, offsets[r.start], c, d))
        .collect();
    arcs.route(
        &owners,
        &mut states,
        progress,
        |(from, base, cursor, dst), u, v| {
            let c = &mut cursor[(u - *from) as usize];
            dst[(*c - *base) as usize] = v;
            *c += 1;
        },
    );
    Ok(dst)
}

/// The part owning `masters` from its placed arcs `dst` ([`place`]): each list sorted (and
/// merged), weighted, and relabelled to local ids.
fn finish_part(
    arcs: &Arcs,
    whole: &[u64],
    mut dst: Vec<u32>,
    masters: Range<u32>,
    n: u32,
) -> Result<GeneratedPart> {
    let (first, m) = (masters.start, masters.end - masters.start);
    let offsets = relative_offsets(whole, &masters);
    debug_assert_eq!(dst.len() as u64, *offsets.last().unwrap());
    // Each list sorted and, where parallel edges merge, merged: its kept length.
    let merge = arcs.merges();
    let ranges = par::edge_ranges(&offsets);
    let kept: Vec<u64> = par::split_by_ranges(&mut dst, &offsets, &ranges)
        .into_par_iter()
        .zip(&ranges)
        .flat_map_iter(|(lists, r)| {
            let base = offsets[r.start];
            let mut kept = Vec::with_capacity(r.len());
            for v in r.clone() {
                let list =
                    &mut lists[(offsets[v] - base) as usize..(offsets[v + 1] - base) as usize];
                list.sort_unstable();
                let mut len = list.len();
                if merge && len > 1 {
                    len = 1;
                    for i in 1..list.len() {
                        if list[i] != list[len - 1] {
                            list[len] = list[i];
                            len += 1;
                        }
                    }
                }
                kept.push(len as u64);
            }
            kept
        })
        .collect();
    // The kept lists moved down into place, in node order (each moves down or stays).
    let mut local_offsets = Vec::with_capacity(m as usize + 1);
    local_offsets.push(0u64);
    for (v, &k) in kept.iter().enumerate() {
        let to = *local_offsets.last().unwrap();
        let from = offsets[v];
        if from != to {
            dst.copy_within(from as usize..(from + k) as usize, to as usize);
        }
        local_offsets.push(to + k);
    }
    drop(offsets);
    let edges = *local_offsets.last().unwrap();
    dst.truncate(edges as usize);
    dst.shrink_to_fit();
    let ranges = par::edge_ranges(&local_offsets);
    let weights = arcs.opts.weights.map(|seed| {
        let mut w = vec![0u32; dst.len()];
        par::split_by_ranges(&mut w, &local_offsets, &ranges)
            .into_par_iter()
            .zip(&ranges)
            .for_each(|(w, r)| {
                let base = local_offsets[r.start] as usize;
                for v in r.clone() {
                    let list = local_offsets[v] as usize..local_offsets[v + 1] as usize;
                    for e in list {
                        w[e - base] = edge_weight(seed, first + v as u32, dst[e]);
                    }
                }
            });
        w
    });
    // The mirrors: a bit per node marks the remote heads; a mirror's local id is m plus its
    // rank among the marks.
    let words = (n as usize).div_ceil(64);
    let seen: Vec<AtomicU64> = (0..words)
        .into_par_iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    dst.par_iter().with_min_len(1 << 16).for_each(|&v| {
        if !masters.contains(&v) {
            seen[v as usize / 64].fetch_or(1 << (v % 64), Ordering::Relaxed);
        }
    });
    let seen: Vec<u64> = seen.into_iter().map(AtomicU64::into_inner).collect();
    let mut before = Vec::with_capacity(words);
    let mut mirrors = Vec::new();
    for (w, &bits) in seen.iter().enumerate() {
        before.push(mirrors.len() as u32);
        let mut b = bits;
        while b != 0 {
            mirrors.push((w * 64) as u32 + b.trailing_zeros());
            b &= b - 1;
        }
    }
    if u64::from(m) + mirrors.len() as u64 >= u64::from(u32::MAX) {
        return Err(GraphError::Invalid(format!(
            "a part of {m} masters has {} mirrors: more than 32-bit local ids hold",
            mirrors.len()
        )));
    }
    dst.par_iter_mut().with_min_len(1 << 16).for_each(|v| {
        *v = if masters.contains(v) {
            *v - first
        } else {
            let (w, bit) = (*v as usize / 64, *v % 64);
            m + before[w] + (seen[w] & ((1u64 << bit) - 1)).count_ones()
        };
    });
    local_offsets.resize(m as usize + 1 + mirrors.len(), edges);
    Ok(GeneratedPart {
        masters,
        csr: Csr {
            n: m + mirrors.len() as u32,
            offsets: local_offsets,
            dst,
            weights,
        },
        mirrors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{RmatParams, rmat};
    use crate::partition::partition_at;
    use crate::progress::NoProgress;
    use crate::transform::{TransformOptions, apply};

    /// The whole graph as `irglc graph gen rmat` makes it under the same options.
    fn whole(scale: u32, ef: u32, seed: u64, opts: PartOptions) -> Csr {
        let list = rmat(scale, ef, RmatParams::default(), seed, &NoProgress).unwrap();
        let t = TransformOptions {
            symmetrize: opts.symmetrize,
            drop_self_loops: opts.drop_self_loops,
            dedup: opts.dedup,
            weights_seed: opts.weights,
        };
        apply(Csr::from_edge_list(list), &t).0
    }

    fn generated(
        scale: u32,
        ef: u32,
        seed: u64,
        opts: PartOptions,
        parts: u32,
    ) -> (Vec<u32>, Vec<GeneratedPart>) {
        let mut out = Vec::new();
        let spec = RmatSpec {
            scale,
            edge_factor: ef,
            params: RmatParams::default(),
            seed,
        };
        let starts = rmat_parts(spec, opts, parts, &NoProgress, |p| {
            out.push(p);
            Ok(())
        })
        .unwrap();
        (starts, out)
    }

    #[test]
    fn parts_are_the_whole_graphs_parts_at_the_same_ranges() {
        let sym = PartOptions {
            symmetrize: true,
            drop_self_loops: true,
            dedup: false,
            weights: Some(7),
        };
        let cases = [
            (sym, 1),
            (sym, 2),
            (sym, 3),
            (
                PartOptions {
                    weights: None,
                    ..sym
                },
                4,
            ),
            (
                PartOptions {
                    drop_self_loops: false,
                    ..sym
                },
                2,
            ),
            (
                PartOptions {
                    dedup: true,
                    ..PartOptions::default()
                },
                3,
            ),
            (PartOptions::default(), 2),
        ];
        for (opts, parts) in cases {
            let g = whole(10, 8, 3, opts);
            let (starts, got) = generated(10, 8, 3, opts, parts);
            assert_eq!(starts.len() as u32, parts + 1, "{opts:?}");
            let want = partition_at(&g, starts.clone());
            assert_eq!(got.len(), want.parts.len());
            for (p, (a, b)) in got.iter().zip(&want.parts).enumerate() {
                assert_eq!(a.masters, b.masters, "{opts:?} part {p}");
                assert_eq!(a.mirrors, b.mirrors, "{opts:?} part {p}");
                assert_eq!(a.csr, b.csr, "{opts:?} part {p}");
            }
        }
    }

    #[test]
    fn parts_placed_together_are_the_parts_placed_one_by_one() {
        let opts = PartOptions {
            symmetrize: true,
            drop_self_loops: true,
            dedup: false,
            weights: Some(7),
        };
        let spec = RmatSpec {
            scale: 10,
            edge_factor: 8,
            params: RmatParams::default(),
            seed: 3,
        };
        let run = |budget: u128| {
            let mut out = Vec::new();
            rmat_parts_within(spec, opts, 5, budget, &NoProgress, |p| {
                out.push(p);
                Ok(())
            })
            .unwrap();
            out
        };
        let one_by_one = run(0);
        assert_eq!(one_by_one.len(), 5);
        // Two or three parts a pass, and all five in one.
        for budget in [100_000, 130_000, u128::MAX] {
            assert_eq!(run(budget), one_by_one, "budget {budget}");
        }
    }

    #[test]
    fn batches_hold_what_fits_and_at_least_a_part() {
        // Five parts of 10 arcs and 1 master each: 10 * 4 + 24 = 64 bytes, weights aside.
        let starts = [0u32, 1, 2, 3, 4, 5];
        let whole = [0u64, 10, 20, 30, 40, 50];
        // Each batch: its parts, and its largest part once more.
        assert_eq!(
            batches(&starts, &whole, 0, 0),
            vec![0..1, 1..2, 2..3, 3..4, 4..5]
        );
        assert_eq!(batches(&starts, &whole, 0, 3 * 64), vec![0..2, 2..4, 4..5]);
        assert_eq!(batches(&starts, &whole, 0, 6 * 64), vec![0..5]);
        // With weights: 10 * 8 + 24 = 104 bytes a part.
        assert_eq!(batches(&starts, &whole, 4, 4 * 104), vec![0..3, 3..5]);
    }

    /// The part starts of a graph whose nodes have `counts` arcs.
    fn ranges(counts: &[u64], parts: u32) -> Vec<u32> {
        let mut offsets: Vec<u64> = counts.iter().copied().chain([0]).collect();
        par::exclusive_prefix_sums(&mut offsets);
        ranges_by_offsets(&offsets, parts)
    }

    #[test]
    fn ranges_balance_nodes_plus_arcs_and_cover_every_node() {
        // Weights (count + 1): 1, 4, 1, 1, 9, 1, 1, 2: total 20.
        let counts = [0, 3, 0, 0, 8, 0, 0, 1];
        assert_eq!(ranges(&counts, 1), vec![0, 8]);
        // Halves: 7 before node 4, 16 before node 5: node 5 is the first to reach 10.
        assert_eq!(ranges(&counts, 2), vec![0, 5, 8]);
        // More parts than nodes: the last ones are empty.
        assert_eq!(ranges(&[5], 3), vec![0, 1, 1, 1]);
    }
}

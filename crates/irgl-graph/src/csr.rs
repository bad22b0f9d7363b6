//! The compressed sparse row graph.
//!
//! `offsets[v]..offsets[v + 1]` indexes `dst` (and `weights`) for the out-edges of `v`; an edge's
//! position in `dst` is its edge id ("CSR order"), which is how `edge` outputs of generated
//! programs are indexed. Graphs built from text formats always have each node's neighbours sorted
//! by destination (then weight); `.gr` files are kept in the order they are stored in, so that
//! edge ids match the program that read the same file.

use std::ops::Range;

use rayon::prelude::*;

use crate::par;

/// A directed graph in CSR form, with optional `u32` edge weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    /// Number of nodes.
    pub n: u32,
    /// `n + 1` offsets into `dst`; `offsets[0] == 0`, non-decreasing, `offsets[n] == dst.len()`.
    pub offsets: Vec<u64>,
    /// Destination of each edge.
    pub dst: Vec<u32>,
    /// Weight of each edge, when the graph has edge data.
    pub weights: Option<Vec<u32>>,
}

/// The lists of a graph's reverse ([`Csr::reverse`]): node `v`'s sources are
/// `src[offsets[v]..offsets[v + 1]]`, sorted, with the edges' weights beside them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reverse {
    pub offsets: Vec<u64>,
    pub src: Vec<u32>,
    pub weights: Option<Vec<u32>>,
}

/// An unordered list of directed edges, the intermediate form of every text reader and generator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeList {
    pub n: u32,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub weights: Option<Vec<u32>>,
}

impl EdgeList {
    pub fn new(n: u32, weighted: bool) -> Self {
        EdgeList {
            n,
            src: Vec::new(),
            dst: Vec::new(),
            weights: weighted.then(Vec::new),
        }
    }

    pub fn len(&self) -> usize {
        self.src.len()
    }

    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// Appends an edge; `w` is ignored when the list is unweighted.
    pub fn push(&mut self, u: u32, v: u32, w: u32) {
        self.src.push(u);
        self.dst.push(v);
        if let Some(ws) = &mut self.weights {
            ws.push(w);
        }
    }
}

impl Csr {
    /// A graph with `n` nodes and no edges.
    pub fn empty(n: u32) -> Self {
        Csr {
            n,
            offsets: vec![0; n as usize + 1],
            dst: Vec::new(),
            weights: None,
        }
    }

    /// A graph with `n` nodes and the given unweighted edges (for tests and small examples).
    /// Every id must be `< n`.
    pub fn from_pairs(n: u32, edges: &[(u32, u32)]) -> Self {
        let mut list = EdgeList::new(n, false);
        for &(u, v) in edges {
            list.push(u, v, 0);
        }
        Csr::from_edge_list(list)
    }

    /// Builds a CSR from an edge list by counting sort, then sorts each node's neighbours by
    /// destination (then weight). Every id must be `< list.n` (readers check this).
    pub fn from_edge_list(list: EdgeList) -> Self {
        let EdgeList {
            n,
            src,
            dst,
            weights,
        } = list;
        assert!(src.len() == dst.len(), "edge list arrays differ in length");
        let (offsets, out_dst, out_w) = counting_sort(n as usize, &src, |i| dst[i], &weights);
        drop((src, dst, weights));
        let mut csr = Csr {
            n,
            offsets,
            dst: out_dst,
            weights: out_w,
        };
        csr.sort_neighbours();
        csr
    }

    /// Number of edges (arcs).
    pub fn num_edges(&self) -> u64 {
        self.dst.len() as u64
    }

    /// Edge ids of `v`'s out-edges.
    pub fn edge_range(&self, v: u32) -> Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    /// `v`'s out-neighbours.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        &self.dst[self.edge_range(v)]
    }

    /// Weights of `v`'s out-edges, if the graph has weights.
    pub fn weights_of(&self, v: u32) -> Option<&[u32]> {
        let r = self.edge_range(v);
        self.weights.as_ref().map(|w| &w[r])
    }

    /// Out-degree of `v`.
    pub fn degree(&self, v: u32) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// Source node of every edge, in CSR order.
    pub fn sources(&self) -> Vec<u32> {
        let mut src = vec![0u32; self.dst.len()];
        let ranges = par::edge_ranges(&self.offsets);
        par::split_by_ranges(&mut src, &self.offsets, &ranges)
            .into_par_iter()
            .zip(&ranges)
            .for_each(|(part, r)| {
                let base = self.offsets[r.start];
                for v in r.clone() {
                    let (a, b) = (self.offsets[v] - base, self.offsets[v + 1] - base);
                    part[a as usize..b as usize].fill(v as u32);
                }
            });
        src
    }

    /// Bytes the CSR arrays occupy.
    pub fn memory_bytes(&self) -> u64 {
        (self.offsets.len() * 8
            + self.dst.len() * 4
            + self.weights.as_ref().map_or(0, |w| w.len() * 4)) as u64
    }

    /// Checks the structural invariants; the message says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.offsets.len() != self.n as usize + 1 {
            return Err(format!(
                "{} offsets for {} nodes, expected {}",
                self.offsets.len(),
                self.n,
                self.n as u64 + 1
            ));
        }
        if self.offsets[0] != 0 {
            return Err("first offset is not 0".into());
        }
        if let Some(v) = (0..self.n as usize).find(|&v| self.offsets[v] > self.offsets[v + 1]) {
            return Err(format!("offsets decrease at node {v}"));
        }
        if self.offsets[self.n as usize] != self.num_edges() {
            return Err(format!(
                "last offset {} is not the edge count {}",
                self.offsets[self.n as usize],
                self.num_edges()
            ));
        }
        if let Some(e) = self.dst.iter().position(|&d| d >= self.n) {
            return Err(format!(
                "edge {e} goes to node {}, but there are only {} nodes",
                self.dst[e], self.n
            ));
        }
        if let Some(w) = &self.weights
            && w.len() != self.dst.len()
        {
            return Err(format!("{} weights for {} edges", w.len(), self.dst.len()));
        }
        Ok(())
    }

    /// Whether every node's neighbours are sorted by destination.
    pub fn is_sorted(&self) -> bool {
        (0..self.n)
            .into_par_iter()
            .with_min_len(1 << 12)
            .all(|v| self.neighbours(v).is_sorted())
    }

    /// Sorts each node's neighbours by destination, then weight (node ranges in parallel).
    pub fn sort_neighbours(&mut self) {
        let ranges = par::edge_ranges(&self.offsets);
        let offsets = &self.offsets;
        let lists = |r: &std::ops::Range<usize>| {
            let base = offsets[r.start];
            r.clone()
                .map(move |v| (offsets[v] - base) as usize..(offsets[v + 1] - base) as usize)
        };
        let dst_parts = par::split_by_ranges(&mut self.dst, offsets, &ranges);
        match &mut self.weights {
            None => dst_parts.into_par_iter().zip(&ranges).for_each(|(d, r)| {
                for e in lists(r) {
                    let d = &mut d[e];
                    if !d.is_sorted() {
                        d.sort_unstable();
                    }
                }
            }),
            Some(w) => dst_parts
                .into_par_iter()
                .zip(par::split_by_ranges(w, offsets, &ranges))
                .zip(&ranges)
                .for_each(|((d, w), r)| {
                    let mut scratch: Vec<u64> = Vec::new();
                    for e in lists(r) {
                        scratch.clear();
                        scratch.extend(
                            d[e.clone()]
                                .iter()
                                .zip(&w[e.clone()])
                                .map(|(&d, &x)| (u64::from(d) << 32) | u64::from(x)),
                        );
                        if scratch.is_sorted() {
                            continue;
                        }
                        scratch.sort_unstable();
                        for (i, &k) in scratch.iter().enumerate() {
                            d[e.start + i] = (k >> 32) as u32;
                            w[e.start + i] = k as u32;
                        }
                    }
                }),
        }
    }

    /// Number of edges `v -> v`.
    pub fn self_loops(&self) -> u64 {
        (0..self.n)
            .into_par_iter()
            .with_min_len(1 << 12)
            .map(|v| self.neighbours(v).iter().filter(|&&d| d == v).count() as u64)
            .sum()
    }

    /// Whether `u -> v` exists, in any order of `u`'s neighbours: O(degree of `u`). Where the
    /// neighbours are known to be sorted, [`Csr::has_edge_sorted`] is O(log degree).
    pub fn has_edge(&self, u: u32, v: u32) -> bool {
        self.neighbours(u).contains(&v)
    }

    /// Whether `u -> v` exists, by binary search: `u`'s neighbours must be sorted (as after
    /// [`Csr::sort_neighbours`]; else the answer may be wrong). Checking the order here would
    /// cost O(degree) a call, quadratic in a hub's degree over its neighbours' calls.
    pub fn has_edge_sorted(&self, u: u32, v: u32) -> bool {
        self.neighbours(u).binary_search(&v).is_ok()
    }

    /// Whether for every edge `u -> v` there is an edge `v -> u` (structure only, not weights,
    /// repeats aside). Linear in the edges on sorted neighbours (each node's out-list against
    /// its in-list, [`Csr::is_symmetric_given`]); otherwise on a sorted copy of the structure.
    pub fn is_symmetric(&self) -> bool {
        if !self.is_sorted() {
            let mut copy = Csr {
                n: self.n,
                offsets: self.offsets.clone(),
                dst: self.dst.clone(),
                weights: None,
            };
            copy.sort_neighbours();
            return copy.is_symmetric();
        }
        self.is_symmetric_given(&self.reverse_structure())
    }

    /// [`Csr::is_symmetric`] of a graph with sorted neighbours, given its reverse's structure
    /// ([`Csr::reverse_structure`]): whether each node's out- and in-lists hold the same nodes,
    /// node ranges in parallel. (Binary searches of a hub's list from each of its neighbours
    /// cost a cache miss a step: 10-16 s on RMAT scale 20.)
    pub fn is_symmetric_given(&self, rev: &Reverse) -> bool {
        (0..self.n).into_par_iter().with_min_len(1 << 12).all(|u| {
            let ins =
                &rev.src[rev.offsets[u as usize] as usize..rev.offsets[u as usize + 1] as usize];
            same_nodes(self.neighbours(u), ins)
        })
    }

    /// The reverse graph's lists (an edge `v -> u` for every `u -> v`), by a counting sort:
    /// each node's sources come out in increasing order, and parallel edges in the order they
    /// are stored.
    pub fn reverse(&self) -> Reverse {
        let src = self.sources();
        // Edges in CSR order, sources increasing: the stable sort keeps them so in each list.
        let (offsets, src, weights) =
            counting_sort(self.n as usize, &self.dst, |e| src[e], &self.weights);
        Reverse {
            offsets,
            src,
            weights,
        }
    }

    /// [`Csr::reverse`] without the weights: the structure alone, for a view that needs no
    /// weights (graph statistics), at half the memory of a weighted reverse.
    pub fn reverse_structure(&self) -> Reverse {
        let src = self.sources();
        let (offsets, src, _) = counting_sort(self.n as usize, &self.dst, |e| src[e], &None);
        Reverse {
            offsets,
            src,
            weights: None,
        }
    }

    /// The graph taken as undirected and simple: both directions of every edge, self-loops
    /// dropped, duplicates merged keeping the smallest weight. This is the graph TC, CC, MIS and
    /// MST references work on.
    pub fn undirected_simple(&self) -> Csr {
        self.union_with_reverse(false)
    }

    /// The union of the graph and its reverse: each node's neighbours sorted, parallel edges
    /// merged keeping the smallest weight (so both directions of an edge get the same weight),
    /// and a self-loop kept once or dropped. Linear in the edges where the neighbours are sorted
    /// (else on a sorted copy): a counting sort gives each node's in-list in order, and one
    /// merge per node joins it to the out-list, node ranges in parallel (one pass counts each
    /// node's neighbours, a second writes them).
    pub fn union_with_reverse(&self, keep_self_loops: bool) -> Csr {
        if !self.is_sorted() {
            let mut copy = self.clone();
            copy.sort_neighbours();
            return copy.union_with_reverse(keep_self_loops);
        }
        self.union_with(&self.reverse(), keep_self_loops)
    }

    /// [`Csr::union_with_reverse`] of a sorted graph whose reverse is `rev`; the structure
    /// alone when `rev` has no weights ([`Csr::reverse_structure`]).
    pub(crate) fn union_with(&self, rev: &Reverse, keep_self_loops: bool) -> Csr {
        let n = self.n as usize;
        let weights = rev.weights.as_ref().and(self.weights.as_ref());
        let ranges = par::node_ranges(n, |v| self.offsets[v] + rev.offsets[v]);
        let lists = |u: usize| {
            let (out, inn) = (
                self.offsets[u] as usize..self.offsets[u + 1] as usize,
                rev.offsets[u] as usize..rev.offsets[u + 1] as usize,
            );
            let out_w = weights.map(|w| &w[out.clone()]);
            let inn_w = rev.weights.as_ref().map(|w| &w[inn.clone()]);
            (&self.dst[out], out_w, &rev.src[inn], inn_w)
        };
        let (offsets, dst, weights) = par::build_lists(
            n,
            &ranges,
            weights.is_some(),
            |u| {
                let mut len = 0u64;
                merge_lists(u as u32, lists(u), keep_self_loops, |_, _, new| {
                    len += u64::from(new)
                });
                len
            },
            |u, d, mut w| {
                let mut at = 0usize;
                merge_lists(u as u32, lists(u), keep_self_loops, |v, x, new| {
                    if new {
                        d[at] = v;
                        if let Some(w) = &mut w {
                            w[at] = x;
                        }
                        at += 1;
                    } else if let Some(w) = &mut w {
                        w[at - 1] = w[at - 1].min(x);
                    }
                });
            },
        );
        Csr {
            n: self.n,
            offsets,
            dst,
            weights,
        }
    }
}

/// Node `u`'s sorted out-list and in-list, each with its weights if the graph has them.
type NodeLists<'a> = (&'a [u32], Option<&'a [u32]>, &'a [u32], Option<&'a [u32]>);

/// Walks the merge of node `u`'s sorted out-list and in-list (with their weights, if any),
/// calling `f(v, w, new)` for each neighbour in order, `new` false where `v` repeats the one
/// before; self-loops are skipped unless `keep_self_loops`.
#[inline]
fn merge_lists(
    u: u32,
    (out, out_w, inn, inn_w): NodeLists<'_>,
    keep_self_loops: bool,
    mut f: impl FnMut(u32, u32, bool),
) {
    let (mut i, mut j) = (0, 0);
    let mut last = None;
    loop {
        let (v, w) = if j == inn.len() || (i < out.len() && out[i] <= inn[j]) {
            if i == out.len() {
                break;
            }
            i += 1;
            (out[i - 1], out_w.map_or(0, |w| w[i - 1]))
        } else {
            j += 1;
            (inn[j - 1], inn_w.map_or(0, |w| w[j - 1]))
        };
        if v == u && !keep_self_loops {
            continue;
        }
        f(v, w, last != Some(v));
        last = Some(v);
    }
}

/// A stable counting sort of edges by `keys` (one node id `< n` an edge): the offsets of each
/// key's run, and the value `value(i)` and the weight of each edge `i` placed in its key's run,
/// edges of one key in the order of `i`. The same result on any number of threads: in
/// parallel, contiguous chunks of the edges are first spread over ranges of keys (each chunk
/// writing its edges in order at its own place in each range), then each range is sorted
/// by a counting sort of its own.
fn counting_sort(
    n: usize,
    keys: &[u32],
    value: impl Fn(usize) -> u32 + Sync,
    weights: &Option<Vec<u32>>,
) -> (Vec<u64>, Vec<u32>, Option<Vec<u32>>) {
    let m = keys.len();
    let threads = rayon::current_num_threads();
    if threads == 1 || n == 0 || ((n + m) as u64) < par::SERIAL_BELOW {
        return counting_sort_serial(n, keys, value, weights);
    }
    // Ranges of 2^shift keys, about 64 a thread; chunks of edges, 4 a thread.
    let width = (n / (threads * 64)).max(1).next_power_of_two();
    let shift = width.trailing_zeros();
    let ranges = n.div_ceil(width);
    let chunk = m.div_ceil(threads * 4).max(1);
    let chunks: Vec<Range<usize>> = (0..m)
        .step_by(chunk)
        .map(|a| a..(a + chunk).min(m))
        .collect();
    let histograms: Vec<Vec<u64>> = chunks
        .par_iter()
        .map(|c| {
            let mut h = vec![0u64; ranges];
            for &k in &keys[c.clone()] {
                h[(k >> shift) as usize] += 1;
            }
            h
        })
        .collect();
    // Where each chunk's edges of each range go: ranges in order, chunks in order inside.
    let mut cursors = vec![vec![0u64; ranges]; chunks.len()];
    let mut range_starts = vec![0u64; ranges + 1];
    let mut at = 0u64;
    for r in 0..ranges {
        range_starts[r] = at;
        for (c, h) in histograms.iter().enumerate() {
            cursors[c][r] = at;
            at += h[r];
        }
    }
    range_starts[ranges] = at;
    drop(histograms);
    let mut tmp_key = vec![0u32; m];
    let mut tmp_value = vec![0u32; m];
    let mut tmp_w = weights.as_ref().map(|_| vec![0u32; m]);
    {
        let (tk, tv) = (
            par::Scatter::new(&mut tmp_key),
            par::Scatter::new(&mut tmp_value),
        );
        let tw = tmp_w.as_mut().map(|w| par::Scatter::new(w));
        cursors
            .into_par_iter()
            .zip(&chunks)
            .for_each(|(mut cursor, c)| {
                for i in c.clone() {
                    let k = keys[i];
                    let r = (k >> shift) as usize;
                    let p = cursor[r] as usize;
                    cursor[r] += 1;
                    // SAFETY: the cursors of distinct chunks and ranges cover disjoint
                    // positions, and each position is taken once.
                    unsafe {
                        tk.write(p, k);
                        tv.write(p, value(i));
                        if let (Some(tw), Some(w)) = (&tw, weights) {
                            tw.write(p, w[i]);
                        }
                    }
                }
            });
    }
    // Each range: count its keys, place them, in order.
    let key_ranges: Vec<Range<usize>> = (0..ranges)
        .map(|r| r * width..((r + 1) * width).min(n))
        .collect();
    let mut offsets = vec![0u64; n + 1];
    let mut out = vec![0u32; m];
    let mut out_w = weights.as_ref().map(|_| vec![0u32; m]);
    // `range_starts` as the offsets of one node a range, to split the outputs by range.
    let each: Vec<Range<usize>> = (0..ranges).map(|r| r..r + 1).collect();
    let w_parts = par::split_optional(&mut out_w, &range_starts, &each);
    par::split_nodes(&mut offsets[..n], &key_ranges)
        .into_par_iter()
        .zip(par::split_by_ranges(&mut out, &range_starts, &each))
        .zip(w_parts)
        .enumerate()
        .for_each(|(r, ((offs, out), mut out_w))| {
            let (start, end) = (range_starts[r] as usize, range_starts[r + 1] as usize);
            let base = key_ranges[r].start;
            for &k in &tmp_key[start..end] {
                offs[k as usize - base] += 1;
            }
            let mut sum = 0u64;
            for o in offs.iter_mut() {
                let c = *o;
                *o = sum;
                sum += c;
            }
            let mut next = offs.to_vec();
            for o in offs.iter_mut() {
                *o += start as u64;
            }
            for i in start..end {
                let slot = &mut next[tmp_key[i] as usize - base];
                let p = *slot as usize;
                *slot += 1;
                out[p] = tmp_value[i];
                if let (Some(ow), Some(tw)) = (&mut out_w, &tmp_w) {
                    ow[p] = tw[i];
                }
            }
        });
    offsets[n] = m as u64;
    (offsets, out, out_w)
}

/// [`counting_sort`] on one thread.
fn counting_sort_serial(
    n: usize,
    keys: &[u32],
    value: impl Fn(usize) -> u32,
    weights: &Option<Vec<u32>>,
) -> (Vec<u64>, Vec<u32>, Option<Vec<u32>>) {
    let m = keys.len();
    let mut offsets = vec![0u64; n + 1];
    for &k in keys {
        offsets[k as usize] += 1;
    }
    par::exclusive_prefix_sums(&mut offsets);
    let mut next: Vec<u64> = offsets[..n].to_vec();
    let mut out = vec![0u32; m];
    let mut out_w = weights.as_ref().map(|_| vec![0u32; m]);
    for (i, &k) in keys.iter().enumerate() {
        let p = next[k as usize] as usize;
        next[k as usize] += 1;
        out[p] = value(i);
        if let (Some(ow), Some(w)) = (&mut out_w, weights) {
            ow[p] = w[i];
        }
    }
    (offsets, out, out_w)
}

/// Whether two sorted lists hold the same nodes, repeats aside.
fn same_nodes(a: &[u32], b: &[u32]) -> bool {
    distinct(a).eq(distinct(b))
}

/// The nodes of a sorted list, each once.
fn distinct(list: &[u32]) -> impl Iterator<Item = u32> + '_ {
    let mut last = None;
    list.iter()
        .copied()
        .filter(move |&x| last.replace(x) != Some(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: u32, edges: &[(u32, u32)]) -> EdgeList {
        let mut l = EdgeList::new(n, false);
        for &(u, v) in edges {
            l.push(u, v, 0);
        }
        l
    }

    #[test]
    fn union_with_reverse_agrees_with_a_map_on_random_weighted_graphs() {
        use rand::{Rng, SeedableRng};
        use std::collections::BTreeMap;
        for seed in 0..300u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let n = 1 + (rng.next_u64() % 10) as u32;
            let mut l = EdgeList::new(n, true);
            for _ in 0..rng.next_u64() % 40 {
                let u = (rng.next_u64() % u64::from(n)) as u32;
                let v = (rng.next_u64() % u64::from(n)) as u32;
                l.push(u, v, 1 + (rng.next_u64() % 9) as u32);
            }
            let g = Csr::from_edge_list(l.clone());
            for keep in [true, false] {
                let mut want: BTreeMap<(u32, u32), u32> = BTreeMap::new();
                for i in 0..l.src.len() {
                    let (u, v, w) = (l.src[i], l.dst[i], l.weights.as_ref().unwrap()[i]);
                    if u == v && !keep {
                        continue;
                    }
                    for key in [(u, v), (v, u)] {
                        let x = want.entry(key).or_insert(w);
                        *x = (*x).min(w);
                    }
                }
                let got = g.union_with_reverse(keep);
                let mut edges = BTreeMap::new();
                for u in 0..got.n {
                    assert!(got.neighbours(u).is_sorted(), "seed {seed}");
                    for e in got.edge_range(u) {
                        let w = got.weights.as_ref().unwrap()[e];
                        assert!(edges.insert((u, got.dst[e]), w).is_none(), "seed {seed}");
                    }
                }
                assert_eq!(edges, want, "seed {seed}, self-loops kept: {keep}");
            }
        }
    }

    #[test]
    fn counting_sort_builds_sorted_csr() {
        let g = Csr::from_edge_list(list(4, &[(2, 1), (0, 3), (0, 1), (2, 0), (0, 2)]));
        assert_eq!(g.offsets, vec![0, 3, 3, 5, 5]);
        assert_eq!(g.dst, vec![1, 2, 3, 0, 1]);
        assert!(g.validate().is_ok());
        assert!(g.is_sorted());
    }

    #[test]
    fn symmetry_ignores_repeats_and_needs_every_reverse() {
        let sym = |n, edges: &[(u32, u32)]| Csr::from_edge_list(list(n, edges)).is_symmetric();
        assert!(sym(0, &[]));
        assert!(sym(3, &[(0, 1), (0, 1), (1, 0), (2, 2)]));
        assert!(!sym(3, &[(0, 1), (1, 2), (2, 0)]));
        assert!(sym(2, &[(0, 1), (1, 0), (1, 1), (0, 0), (0, 1), (0, 1)]));
        // A hub: every leaf's edge to it and back, but one reverse missing.
        let mut edges: Vec<(u32, u32)> = (1..1000).flat_map(|v| [(0, v), (v, 0)]).collect();
        assert!(sym(1000, &edges));
        edges.retain(|&e| e != (0, 500));
        assert!(!sym(1000, &edges));
        // Unsorted lists: the answer on a sorted copy.
        let g = Csr {
            n: 2,
            offsets: vec![0, 2, 3],
            dst: vec![1, 0, 0],
            weights: None,
        };
        assert!(!g.is_sorted());
        assert!(g.is_symmetric());
    }

    #[test]
    fn weighted_sort_keeps_pairs_together() {
        let mut l = EdgeList::new(2, true);
        l.push(0, 1, 9);
        l.push(0, 0, 5);
        l.push(0, 1, 2);
        let g = Csr::from_edge_list(l);
        assert_eq!(g.dst, vec![0, 1, 1]);
        assert_eq!(g.weights, Some(vec![5, 2, 9]));
    }

    #[test]
    fn undirected_simple_merges_and_drops_loops() {
        let g = Csr::from_edge_list(list(3, &[(0, 1), (1, 0), (1, 1), (2, 1), (0, 1)]));
        let u = g.undirected_simple();
        assert_eq!(u.offsets, vec![0, 1, 3, 4]);
        assert_eq!(u.dst, vec![1, 0, 2, 1]);
        assert!(u.is_symmetric());
        assert!(!g.is_symmetric());
        assert_eq!(g.self_loops(), 1);
    }

    #[test]
    fn validate_reports_bad_destination() {
        let g = Csr {
            n: 2,
            offsets: vec![0, 1, 1],
            dst: vec![5],
            weights: None,
        };
        assert_eq!(
            g.validate().unwrap_err(),
            "edge 0 goes to node 5, but there are only 2 nodes"
        );
    }
}

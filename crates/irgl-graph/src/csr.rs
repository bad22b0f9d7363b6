//! The compressed sparse row graph.
//!
//! `offsets[v]..offsets[v + 1]` indexes `dst` (and `weights`) for the out-edges of `v`; an edge's
//! position in `dst` is its edge id ("CSR order"), which is how `edge` outputs of generated
//! programs are indexed. Graphs built from text formats always have each node's neighbours sorted
//! by destination (then weight); `.gr` files are kept in the order they are stored in, so that
//! edge ids match the program that read the same file.

use std::ops::Range;

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
        let m = src.len();
        let mut offsets = vec![0u64; n as usize + 1];
        for &u in &src {
            offsets[u as usize + 1] += 1;
        }
        for i in 0..n as usize {
            offsets[i + 1] += offsets[i];
        }
        let mut next: Vec<u64> = offsets[..n as usize].to_vec();
        let mut out_dst = vec![0u32; m];
        let mut out_w = weights.as_ref().map(|_| vec![0u32; m]);
        for i in 0..m {
            let u = src[i] as usize;
            let pos = next[u] as usize;
            next[u] += 1;
            out_dst[pos] = dst[i];
            if let (Some(ow), Some(w)) = (&mut out_w, &weights) {
                ow[pos] = w[i];
            }
        }
        drop((src, dst, weights, next));
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
        let mut src = Vec::with_capacity(self.dst.len());
        for v in 0..self.n {
            let d = self.degree(v) as usize;
            src.extend(std::iter::repeat_n(v, d));
        }
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
        (0..self.n).all(|v| self.neighbours(v).is_sorted())
    }

    /// Sorts each node's neighbours by destination, then weight.
    pub fn sort_neighbours(&mut self) {
        let mut scratch: Vec<u64> = Vec::new();
        for v in 0..self.n {
            let r = self.edge_range(v);
            match &mut self.weights {
                None => {
                    let d = &mut self.dst[r];
                    if !d.is_sorted() {
                        d.sort_unstable();
                    }
                }
                Some(w) => {
                    scratch.clear();
                    scratch.extend(
                        self.dst[r.clone()]
                            .iter()
                            .zip(&w[r.clone()])
                            .map(|(&d, &x)| (u64::from(d) << 32) | u64::from(x)),
                    );
                    if scratch.is_sorted() {
                        continue;
                    }
                    scratch.sort_unstable();
                    for (i, &k) in scratch.iter().enumerate() {
                        self.dst[r.start + i] = (k >> 32) as u32;
                        w[r.start + i] = k as u32;
                    }
                }
            }
        }
    }

    /// Number of edges `v -> v`.
    pub fn self_loops(&self) -> u64 {
        (0..self.n)
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

    /// Whether for every edge `u -> v` there is an edge `v -> u` (structure only, not weights).
    /// O(m log d) on sorted neighbours; otherwise on a sorted copy of the structure.
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
        (0..self.n).all(|u| {
            self.neighbours(u)
                .iter()
                .all(|&v| self.has_edge_sorted(v, u))
        })
    }

    /// The reverse graph's lists (an edge `v -> u` for every `u -> v`), by a counting sort:
    /// each node's sources come out in increasing order, and parallel edges in the order
    /// they are stored.
    pub fn reverse(&self) -> Reverse {
        let n = self.n as usize;
        let m = self.dst.len();
        let mut offsets = vec![0u64; n + 1];
        for &v in &self.dst {
            offsets[v as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut next: Vec<u64> = offsets[..n].to_vec();
        let mut src = vec![0u32; m];
        let mut weights = self.weights.as_ref().map(|_| vec![0u32; m]);
        for u in 0..self.n {
            for e in self.edge_range(u) {
                let v = self.dst[e] as usize;
                let p = next[v] as usize;
                next[v] += 1;
                src[p] = u;
                if let (Some(rw), Some(w)) = (&mut weights, &self.weights) {
                    rw[p] = w[e];
                }
            }
        }
        Reverse {
            offsets,
            src,
            weights,
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
    /// (else on a sorted copy): a counting sort gives each node's in-list already in order, and
    /// one merge per node joins it to the out-list.
    pub fn union_with_reverse(&self, keep_self_loops: bool) -> Csr {
        if !self.is_sorted() {
            let mut copy = self.clone();
            copy.sort_neighbours();
            return copy.union_with_reverse(keep_self_loops);
        }
        let n = self.n as usize;
        let m = self.dst.len();
        let Reverse {
            offsets: in_offsets,
            src: in_src,
            weights: in_w,
        } = self.reverse();
        let weight = |ws: &Option<Vec<u32>>, e: usize| ws.as_ref().map_or(0, |w| w[e]);
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        // As many edges as the graph has, the size of the union of a symmetric graph; more
        // grow the vectors, which are trimmed at the end.
        let mut dst: Vec<u32> = Vec::with_capacity(m);
        let mut weights: Option<Vec<u32>> = self.weights.as_ref().map(|_| Vec::with_capacity(m));
        for u in 0..self.n {
            let (mut i, out_end) = (
                self.offsets[u as usize] as usize,
                self.offsets[u as usize + 1] as usize,
            );
            let (mut j, in_end) = (
                in_offsets[u as usize] as usize,
                in_offsets[u as usize + 1] as usize,
            );
            let first = dst.len();
            match &mut weights {
                // Structure only: the hot loop of `graph info` on large graphs.
                None => {
                    let out = &self.dst[i..out_end];
                    let inn = &in_src[j..in_end];
                    let (mut a, mut b, mut last) = (0, 0, None);
                    while a < out.len() || b < inn.len() {
                        let v = match (out.get(a), inn.get(b)) {
                            (Some(&x), Some(&y)) if y < x => {
                                b += 1;
                                y
                            }
                            (Some(&x), _) => {
                                a += 1;
                                x
                            }
                            (None, Some(&y)) => {
                                b += 1;
                                y
                            }
                            (None, None) => break,
                        };
                        if (v != u || keep_self_loops) && last != Some(v) {
                            dst.push(v);
                        }
                        last = Some(v);
                    }
                }
                Some(ws) => {
                    while i < out_end || j < in_end {
                        let (v, w) = if j == in_end || (i < out_end && self.dst[i] <= in_src[j]) {
                            i += 1;
                            (self.dst[i - 1], weight(&self.weights, i - 1))
                        } else {
                            j += 1;
                            (in_src[j - 1], weight(&in_w, j - 1))
                        };
                        if v == u && !keep_self_loops {
                            continue;
                        }
                        if dst.len() > first && dst.last() == Some(&v) {
                            let kept = ws.last_mut().expect("a weight per edge");
                            *kept = (*kept).min(w);
                        } else {
                            dst.push(v);
                            ws.push(w);
                        }
                    }
                }
            }
            offsets.push(dst.len() as u64);
        }
        dst.shrink_to_fit();
        if let Some(ws) = &mut weights {
            ws.shrink_to_fit();
        }
        Csr {
            n: self.n,
            offsets,
            dst,
            weights,
        }
    }
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

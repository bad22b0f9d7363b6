//! Seeded graph generators. The same parameters and seed always give the same graph, whatever
//! the number of threads.
//!
//! - [`rmat`]: RMAT/Kronecker graphs with Graph500 parameters (A = 0.57, B = C = 0.19,
//!   D = 0.05), `edge_factor * 2^scale` directed edges, node labels scrambled by a seeded
//!   permutation as Graph500 does (the reference generator's per-level noise is not applied).
//!   Duplicates and self-loops are kept, as generated; `convert`-style options remove them.
//! - [`uniform`]: `m` directed edges with endpoints drawn uniformly (with replacement).
//! - [`grid`]: a `rows x cols` 4-neighbour grid, both directions of every edge.
//! - [`star`]: one hub joined to every other node (the hub's degree is the node count less 1).
//! - [`path`]: a path through every node in id order (its diameter is the node count less 1).
//! - [`components`]: many small connected components, their node ids interleaved.
//! - [`mesh`]: uniform random points in the unit square and their Delaunay triangulation.

use std::io::{self, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::csr::{Csr, EdgeList};
use crate::error::{GraphError, Result};
use crate::progress::{Progress, Unit};

/// RMAT quadrant probabilities.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmatParams {
    pub a: f64,
    pub b: f64,
    pub c: f64,
}

impl Default for RmatParams {
    /// The Graph500 parameters.
    fn default() -> Self {
        RmatParams {
            a: 0.57,
            b: 0.19,
            c: 0.19,
        }
    }
}

/// An RMAT graph: `2^scale` nodes, `edge_factor * 2^scale` directed edges, its quadrant
/// probabilities and its seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmatSpec {
    pub scale: u32,
    pub edge_factor: u32,
    pub params: RmatParams,
    pub seed: u64,
}

/// A chunk of RMAT edges to generate: its index (the ChaCha stream) and its sources and targets.
type Chunk<'a> = (usize, (&'a mut [u32], &'a mut [u32]));

/// Edges per independently seeded chunk of RMAT generation.
const CHUNK: usize = 1 << 18;

/// Mixed into an RMAT graph's seed for the permutation of its labels.
const LABEL_SALT: u64 = 0x5EED_5CA1_AB1E;

/// An RMAT graph with `2^scale` nodes and `edge_factor * 2^scale` directed edges.
pub fn rmat(
    scale: u32,
    edge_factor: u32,
    params: RmatParams,
    seed: u64,
    progress: &dyn Progress,
) -> Result<EdgeList> {
    let thresholds = rmat_thresholds(scale, params)?;
    let n = 1u64 << scale;
    // At most 2^31 nodes times a u32 edge factor: no overflow.
    let m = n * u64::from(edge_factor);
    crate::memory::fits(
        crate::memory::graph_bytes(n, m),
        &format!("an RMAT graph of scale {scale} with {m} edges"),
    )?;
    let m = m as usize;
    let mut src = vec![0u32; m];
    let mut dst = vec![0u32; m];
    progress.start("generating RMAT edges", Some(m as u64), Unit::Items);
    let threads = std::thread::available_parallelism()
        .map_or(1, |p| p.get())
        .min(16);
    let chunks: Vec<Chunk> = src
        .chunks_mut(CHUNK)
        .zip(dst.chunks_mut(CHUNK))
        .enumerate()
        .collect();
    let done = std::sync::atomic::AtomicU64::new(0);
    let mut per_thread: Vec<Vec<Chunk>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, chunk) in chunks.into_iter().enumerate() {
        per_thread[i % threads].push(chunk);
    }
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        for work in per_thread {
            let done = &done;
            handles.push(s.spawn(move || {
                for (index, (us, vs)) in work {
                    let mut rng = ChaCha8Rng::seed_from_u64(seed);
                    rng.set_stream(index as u64);
                    for (u, v) in us.iter_mut().zip(vs.iter_mut()) {
                        (*u, *v) = rmat_edge(&mut rng, scale, &thresholds);
                    }
                    done.fetch_add(us.len() as u64, std::sync::atomic::Ordering::Relaxed);
                }
            }));
        }
        // Report from this thread while the workers run.
        while handles.iter().any(|h| !h.is_finished()) {
            progress.set(done.load(std::sync::atomic::Ordering::Relaxed));
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
    progress.finish();
    // Scramble labels with a seeded permutation.
    let perm = permutation(n as u32, seed ^ LABEL_SALT);
    src.par_iter_mut()
        .chain(dst.par_iter_mut())
        .with_min_len(1 << 14)
        .for_each(|x| *x = perm[*x as usize]);
    Ok(EdgeList {
        n: n as u32,
        src,
        dst,
        weights: None,
    })
}

/// Checks an RMAT graph's scale and quadrant probabilities, and gives the thresholds on 16-bit
/// random numbers of quadrants 0 (a), 1 (b) and 2 (c); above the last is quadrant 3 (d).
fn rmat_thresholds(scale: u32, params: RmatParams) -> Result<[u32; 3]> {
    if !(1..=31).contains(&scale) {
        return Err(GraphError::Invalid(format!(
            "RMAT scale {scale} is out of range: expected 1..=31 (2^scale nodes, u32 ids)"
        )));
    }
    let RmatParams { a, b, c } = params;
    if [a, b, c].iter().any(|&p| !(0.0..=1.0).contains(&p)) || a + b + c > 1.0 {
        return Err(GraphError::Invalid(format!(
            "RMAT probabilities a = {a}, b = {b}, c = {c} must be in [0, 1] with a + b + c <= 1"
        )));
    }
    let t = |p: f64| (p * 65536.0).round() as u32;
    Ok([t(a), t(a + b), t(a + b + c)])
}

/// The edges of [`rmat`] chunk by chunk, labels permuted, without holding them: chunk `i`
/// is edges `i * CHUNK ..` of the list [`rmat`] returns, whatever order chunks are asked in
/// (each is its own ChaCha stream). For graphs generated part by part (`crate::parts`).
pub(crate) struct RmatStream {
    scale: u32,
    thresholds: [u32; 3],
    seed: u64,
    edges: u64,
    perm: Vec<u32>,
}

impl RmatStream {
    pub(crate) fn new(spec: RmatSpec) -> Result<Self> {
        let RmatSpec {
            scale,
            edge_factor,
            params,
            seed,
        } = spec;
        let thresholds = rmat_thresholds(scale, params)?;
        // A scale of at most 31 (checked): 2^scale fits a u32.
        let n = 1u32 << scale;
        Ok(RmatStream {
            scale,
            thresholds,
            seed,
            edges: u64::from(n) * u64::from(edge_factor),
            perm: permutation(n, seed ^ LABEL_SALT),
        })
    }

    /// The graph's node count.
    pub(crate) fn nodes(&self) -> u32 {
        self.perm.len() as u32
    }

    /// The number of chunks.
    pub(crate) fn chunks(&self) -> usize {
        self.edges.div_ceil(CHUNK as u64) as usize
    }

    /// The edges of chunk `index` into `edges` (cleared first; its room is reused), in the
    /// order [`rmat`] lists them.
    pub(crate) fn chunk(&self, index: usize, edges: &mut Vec<(u32, u32)>) {
        let first = index as u64 * CHUNK as u64;
        let len = (self.edges - first).min(CHUNK as u64);
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(index as u64);
        edges.clear();
        edges.extend((0..len).map(|_| rmat_edge(&mut rng, self.scale, &self.thresholds)));
        // The labels in a loop of their own: its loads, of a table as large as the graph's
        // nodes, overlap (between long generation steps they would wait one by one).
        for e in edges.iter_mut() {
            *e = (self.perm[e.0 as usize], self.perm[e.1 as usize]);
        }
    }
}

fn rmat_edge(rng: &mut ChaCha8Rng, scale: u32, thresholds: &[u32; 3]) -> (u32, u32) {
    let (mut u, mut v) = (0u32, 0u32);
    let mut bits = 0u64;
    let mut left = 0;
    for level in 0..scale {
        if left == 0 {
            bits = rng.next_u64();
            left = 4;
        }
        let r = (bits & 0xFFFF) as u32;
        bits >>= 16;
        left -= 1;
        let q = thresholds.iter().filter(|&&t| r >= t).count() as u32;
        let bit = 1 << (scale - 1 - level);
        if q & 2 != 0 {
            u |= bit;
        }
        if q & 1 != 0 {
            v |= bit;
        }
    }
    (u, v)
}

/// A uniform integer in `0..bound` (multiply-high; the bias is below 2^-32 for `u32` bounds).
fn below(rng: &mut ChaCha8Rng, bound: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(bound)) >> 64) as u64
}

/// `m` directed edges between `n` nodes, endpoints uniform with replacement.
pub fn uniform(n: u32, m: u64, seed: u64) -> Result<EdgeList> {
    if n == 0 && m > 0 {
        return Err(GraphError::Invalid(
            "cannot place edges in a graph without nodes".into(),
        ));
    }
    if n == u32::MAX {
        return Err(GraphError::Invalid("too many nodes".into()));
    }
    crate::memory::fits(
        crate::memory::graph_bytes(u64::from(n), m),
        &format!("a random graph with {m} edges"),
    )?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut list = EdgeList::new(n, false);
    list.src.reserve(m as usize);
    list.dst.reserve(m as usize);
    for _ in 0..m {
        let u = below(&mut rng, u64::from(n)) as u32;
        let v = below(&mut rng, u64::from(n)) as u32;
        list.push(u, v, 0);
    }
    Ok(list)
}

/// A `rows x cols` grid; node `r * cols + c`; edges to the 4 neighbours, both directions.
pub fn grid(rows: u32, cols: u32) -> Result<EdgeList> {
    let n = u64::from(rows) * u64::from(cols);
    if n >= u64::from(u32::MAX) {
        return Err(GraphError::Invalid(format!(
            "a {rows} x {cols} grid has {n} nodes, more than u32 ids allow"
        )));
    }
    crate::memory::fits(
        crate::memory::graph_bytes(n, 4 * n),
        &format!("a {rows} x {cols} grid"),
    )?;
    let mut list = EdgeList::new(n as u32, false);
    for r in 0..rows {
        for c in 0..cols {
            let v = r * cols + c;
            if c + 1 < cols {
                list.push(v, v + 1, 0);
                list.push(v + 1, v, 0);
            }
            if r + 1 < rows {
                list.push(v, v + cols, 0);
                list.push(v + cols, v, 0);
            }
        }
    }
    Ok(list)
}

/// The ids of `n` nodes in a seeded random order.
fn permutation(n: u32, seed: u64) -> Vec<u32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut perm: Vec<u32> = (0..n).collect();
    for i in (1..perm.len()).rev() {
        let j = below(&mut rng, i as u64 + 1) as usize;
        perm.swap(i, j);
    }
    perm
}

/// Refuses `n` nodes and `m` directed edges past the ids or the memory.
fn sized(n: u64, m: u64, what: &str) -> Result<u32> {
    if n >= u64::from(u32::MAX) || n == 0 {
        return Err(GraphError::Invalid(format!(
            "{what} has {n} nodes: from 1 to {} (u32 ids)",
            u32::MAX - 1
        )));
    }
    crate::memory::fits(crate::memory::graph_bytes(n, m), what)?;
    Ok(n as u32)
}

/// A star: node 0 joined to nodes `1..=leaves`, both directions of every edge.
pub fn star(leaves: u32) -> Result<EdgeList> {
    let n = sized(
        u64::from(leaves) + 1,
        2 * u64::from(leaves),
        &format!("a star of {leaves} leaves"),
    )?;
    let mut list = EdgeList::new(n, false);
    for v in 1..n {
        list.push(0, v, 0);
        list.push(v, 0, 0);
    }
    Ok(list)
}

/// A path `0 - 1 - ... - (nodes - 1)`, both directions of every edge.
pub fn path(nodes: u32) -> Result<EdgeList> {
    let n = sized(
        u64::from(nodes),
        2 * u64::from(nodes),
        &format!("a path of {nodes} nodes"),
    )?;
    let mut list = EdgeList::new(n, false);
    for v in 1..n {
        list.push(v - 1, v, 0);
        list.push(v, v - 1, 0);
    }
    Ok(list)
}

/// `count` connected components of `size` nodes each: a random tree (each node joined to a
/// random earlier node of its component) and `size` more random edges inside the component,
/// both directions of every edge; node ids are permuted at random, so that the components
/// interleave.
pub fn components(count: u32, size: u32, seed: u64) -> Result<EdgeList> {
    let total = u64::from(count) * u64::from(size);
    let what = format!("{count} components of {size} nodes");
    if size == 0 {
        return Err(GraphError::Invalid(format!(
            "{what}: a component has at least one node"
        )));
    }
    let n = sized(total, 4 * total, &what)?;
    let perm = permutation(n, seed ^ 0xC04D_04E1_7000);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut list = EdgeList::new(n, false);
    let both = |list: &mut EdgeList, u: u32, v: u32| {
        list.push(perm[u as usize], perm[v as usize], 0);
        list.push(perm[v as usize], perm[u as usize], 0);
    };
    for c in 0..count {
        let first = c * size;
        for i in 1..size {
            let j = below(&mut rng, u64::from(i)) as u32;
            both(&mut list, first + i, first + j);
        }
        if size > 1 {
            for _ in 0..size {
                let u = below(&mut rng, u64::from(size)) as u32;
                let v = below(&mut rng, u64::from(size)) as u32;
                if u != v {
                    both(&mut list, first + u, first + v);
                }
            }
        }
    }
    Ok(list)
}

/// Points in the plane and their triangulation (counter-clockwise triangles of point indices).
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    pub points: Vec<[f64; 2]>,
    pub triangles: Vec<[u32; 3]>,
}

/// `n` uniform random points in the unit square and their Delaunay triangulation (by the
/// `delaunator` crate).
pub fn mesh(n: u32, seed: u64) -> Result<Mesh> {
    if n < 3 {
        return Err(GraphError::Invalid(format!(
            "a mesh needs at least 3 points, got {n}"
        )));
    }
    // The points, the triangulation's half-edges and hull, and the edge graph.
    crate::memory::fits(200 * u128::from(n), &format!("a mesh of {n} points"))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let unit = |rng: &mut ChaCha8Rng| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let points: Vec<[f64; 2]> = (0..n).map(|_| [unit(&mut rng), unit(&mut rng)]).collect();
    let pts: Vec<delaunator::Point> = points
        .iter()
        .map(|p| delaunator::Point { x: p[0], y: p[1] })
        .collect();
    let t = delaunator::triangulate(&pts);
    let triangles = t
        .triangles
        .chunks_exact(3)
        .map(|c| [c[0] as u32, c[1] as u32, c[2] as u32])
        .collect();
    Ok(Mesh { points, triangles })
}

impl Mesh {
    /// The mesh's edges as a symmetric graph on its points.
    pub fn edge_graph(&self) -> Csr {
        let mut list = EdgeList::new(self.points.len() as u32, false);
        for t in &self.triangles {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                list.push(a, b, 0);
                list.push(b, a, 0);
            }
        }
        let mut g = Csr::from_edge_list(list);
        crate::transform::dedup_sorted(&mut g);
        g
    }

    /// Writes the points in Triangle's `.node` format (1-based).
    pub fn write_node<W: Write>(&self, mut out: W) -> io::Result<()> {
        writeln!(out, "{} 2 0 0", self.points.len())?;
        for (i, p) in self.points.iter().enumerate() {
            writeln!(out, "{} {:.17} {:.17}", i + 1, p[0], p[1])?;
        }
        out.flush()
    }

    /// Writes the triangles in Triangle's `.ele` format (1-based).
    pub fn write_ele<W: Write>(&self, mut out: W) -> io::Result<()> {
        writeln!(out, "{} 3 0", self.triangles.len())?;
        for (i, t) in self.triangles.iter().enumerate() {
            writeln!(out, "{} {} {} {}", i + 1, t[0] + 1, t[1] + 1, t[2] + 1)?;
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoProgress;

    #[test]
    fn rmat_is_deterministic_and_skewed() {
        let a = rmat(10, 8, RmatParams::default(), 1, &NoProgress).unwrap();
        let b = rmat(10, 8, RmatParams::default(), 1, &NoProgress).unwrap();
        let c = rmat(10, 8, RmatParams::default(), 2, &NoProgress).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.len(), 8 << 10);
        let g = Csr::from_edge_list(a);
        let max = (0..g.n).map(|v| g.degree(v)).max().unwrap();
        assert!(max > 8 * 8, "RMAT should be skewed, max degree {max}");
    }

    /// RMAT graphs stay the graphs every benchmark and peer comparison was measured on: a
    /// digest of one (edges in order, labels permuted) pinned.
    #[test]
    fn rmat_edges_are_pinned() {
        let g = rmat(12, 16, RmatParams::default(), 7, &NoProgress).unwrap();
        let digest = g
            .src
            .iter()
            .zip(&g.dst)
            .fold(0xcbf2_9ce4_8422_2325u64, |h, (&u, &v)| {
                (h ^ (u64::from(u) << 32 | u64::from(v))).wrapping_mul(0x0100_0000_01b3)
            });
        assert_eq!(digest, 9_701_730_316_168_817_341);
    }

    #[test]
    fn grid_has_expected_edges() {
        let g = Csr::from_edge_list(grid(3, 4).unwrap());
        assert_eq!(g.n, 12);
        assert_eq!(g.num_edges(), 2 * (3 * 3 + 2 * 4));
        assert!(g.is_symmetric());
        assert_eq!(g.neighbours(5), &[1, 4, 6, 9]);
    }

    #[test]
    fn star_and_path_have_their_shapes() {
        let s = Csr::from_edge_list(star(5).unwrap());
        assert_eq!((s.n, s.num_edges(), s.degree(0)), (6, 10, 5));
        assert!(s.is_symmetric());
        let p = Csr::from_edge_list(path(4).unwrap());
        assert_eq!((p.n, p.num_edges()), (4, 6));
        assert_eq!(p.neighbours(1), &[0, 2]);
        assert!(star(u32::MAX).is_err());
        assert!(path(0).is_err());
    }

    #[test]
    fn components_are_that_many_and_connected() {
        let list = components(50, 7, 3).unwrap();
        assert_eq!(list, components(50, 7, 3).unwrap());
        let g = Csr::from_edge_list(list);
        assert_eq!(g.n, 350);
        assert!(g.is_symmetric());
        // Union-find over the edges: 50 components of 7 nodes each.
        let mut parent: Vec<u32> = (0..g.n).collect();
        fn root(parent: &mut [u32], mut v: u32) -> u32 {
            while parent[v as usize] != v {
                v = parent[v as usize];
            }
            v
        }
        for u in 0..g.n {
            for &v in g.neighbours(u) {
                let (a, b) = (root(&mut parent, u), root(&mut parent, v));
                parent[a as usize] = b;
            }
        }
        let mut sizes = std::collections::HashMap::new();
        for v in 0..g.n {
            *sizes.entry(root(&mut parent, v)).or_insert(0) += 1;
        }
        assert_eq!(sizes.len(), 50);
        assert!(sizes.values().all(|&s| s == 7));
        assert!(components(3, 0, 1).is_err());
    }

    #[test]
    fn uniform_is_deterministic() {
        assert_eq!(
            uniform(100, 1000, 3).unwrap(),
            uniform(100, 1000, 3).unwrap()
        );
    }

    #[test]
    fn mesh_satisfies_euler() {
        let m = mesh(200, 5).unwrap();
        let g = m.edge_graph();
        // Planar triangulation: E = 3V - 3 - h, T = 2V - 2 - h for h hull points.
        let e = g.num_edges() / 2;
        let t = m.triangles.len() as u64;
        let v = u64::from(g.n);
        assert_eq!(v + t + 1, e + 2, "Euler: V - E + F = 2 with F = T + 1");
        assert!(g.is_symmetric());
        assert_eq!(m, mesh(200, 5).unwrap());
    }
}

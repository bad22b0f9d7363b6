//! Triangle meshes on an integer grid, the input and output of Delaunay mesh refinement (DMR).
//!
//! A [`Mesh`] holds vertices as integer [`Point`]s on a grid, every coordinate in
//! `[0, GRID]` with `GRID = 2^28`, so that the predicates that decide the refinement
//! ([`orient`], [`incircle`], in [`predicates`]) are exact in `i64`/`i128`. World coordinates
//! are `origin + grid * scale`, kept with the mesh. Triangles are three vertex ids,
//! counterclockwise (exact orientation `> 0`), and three neighbours: neighbour `i` is the
//! triangle across the edge `(v[i], v[(i + 1) % 3])`, [`NONE`] on the boundary.
//!
//! - [`binary`]: the `.mesh` file the CUDA runtime reads and writes;
//! - [`triangle`]: Jonathan Shewchuk's Triangle formats (`.node`, `.ele`, `.poly`), read and
//!   written, with snapping to the grid;
//! - [`generate`](mod@generate): random points in the square, exactly Delaunay;
//! - [`refine`](mod@refine): the sequential CPU reference refinement;
//! - [`verify`](mod@verify): the checks of a refined mesh behind `irglc verify --program dmr`.
//!
//! # Invariants of a valid mesh ([`Mesh::validate`])
//!
//! - fewer than `2^32 - 1` vertices and triangles; `scale` finite and positive, origin finite;
//! - every coordinate in `[0, GRID]`; no two vertices at the same point; every vertex a corner
//!   of some triangle;
//! - every triangle has three distinct vertex ids in range and is counterclockwise;
//! - every directed edge belongs to at most one triangle;
//! - neighbours are reciprocal: the neighbour `n` across `(a, b)` of `t` holds `(b, a)` with
//!   neighbour `t`, and an edge is on the boundary (`NONE`) exactly when no triangle holds its
//!   reverse.

pub mod binary;
pub mod generate;
pub mod predicates;
pub mod refine;
pub mod triangle;
pub mod verify;

use std::fmt;

pub use generate::generate;
pub use predicates::{angle_below_30, circumcenter, incircle, min_angle_deg, orient};
pub use refine::{RefineStats, refine};
pub use verify::{MeshVerdict, verify_refinement};

/// The grid: every domain coordinate is in `[0, GRID]`.
pub const GRID: i64 = 1 << 28;

/// The neighbour of a boundary edge.
pub const NONE: u32 = u32::MAX;

/// The most vertices or triangles a mesh may have (`2^32 - 2`: ids are `u32` and `NONE` is
/// reserved).
pub const MAX_COUNT: u64 = u32::MAX as u64 - 1;

/// How many problems a [`Problems`] value lists.
pub const SHOWN_PROBLEMS: usize = 10;

/// A vertex on the grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    pub fn new(x: i32, y: i32) -> Point {
        Point { x, y }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// A triangle mesh on the grid (see the module documentation for what makes one valid).
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    pub points: Vec<Point>,
    /// Three vertex ids per triangle, counterclockwise.
    pub tri_v: Vec<[u32; 3]>,
    /// Neighbour `i` of a triangle is across `(v[i], v[(i + 1) % 3])`; [`NONE`] on the boundary.
    pub tri_n: Vec<[u32; 3]>,
    pub origin_x: f64,
    pub origin_y: f64,
    /// World units per grid unit.
    pub scale: f64,
}

/// Where a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// The mesh as a whole (its header values, its counts).
    Mesh,
    Vertex(u32),
    Triangle(u32),
}

/// One thing wrong with a mesh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub site: Site,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.site {
            Site::Mesh => write!(f, "{}", self.message),
            Site::Vertex(v) => write!(f, "vertex {v}: {}", self.message),
            Site::Triangle(t) => write!(f, "triangle {t}: {}", self.message),
        }
    }
}

/// The problems found by a check: how many, and the first [`SHOWN_PROBLEMS`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problems {
    pub count: u64,
    pub first: Vec<Problem>,
}

impl Problems {
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub(crate) fn push(&mut self, site: Site, message: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.len() < SHOWN_PROBLEMS {
            self.first.push(Problem {
                site,
                message: message(),
            });
        }
    }

    fn into_result(self) -> Result<(), Problems> {
        if self.is_empty() { Ok(()) } else { Err(self) }
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.first.first() {
            None => write!(f, "no problems"),
            Some(p) if self.count == 1 => write!(f, "{p}"),
            Some(p) => write!(f, "{p} (and {} more problems)", self.count - 1),
        }
    }
}

/// The half-edges of a mesh grouped by the vertex they leave: for each vertex, the triangles
/// that have it as a corner. Triangles whose ids are out of range or repeated are left out.
pub(crate) struct EdgeIndex {
    offsets: Vec<u64>,
    tris: Vec<u32>,
}

impl EdgeIndex {
    pub(crate) fn new(nv: usize, tri_v: &[[u32; 3]]) -> EdgeIndex {
        let usable = |v: &[u32; 3]| {
            v.iter().all(|&x| (x as usize) < nv) && v[0] != v[1] && v[1] != v[2] && v[2] != v[0]
        };
        let mut offsets = vec![0u64; nv + 1];
        for v in tri_v.iter().filter(|v| usable(v)) {
            for &x in v {
                offsets[x as usize + 1] += 1;
            }
        }
        for i in 0..nv {
            offsets[i + 1] += offsets[i];
        }
        let mut fill: Vec<u64> = offsets[..nv].to_vec();
        let mut tris = vec![0u32; offsets[nv] as usize];
        for (t, v) in tri_v.iter().enumerate() {
            if usable(v) {
                for &x in v {
                    tris[fill[x as usize] as usize] = t as u32;
                    fill[x as usize] += 1;
                }
            }
        }
        EdgeIndex { offsets, tris }
    }

    /// The triangles with a corner at `a`.
    pub(crate) fn around(&self, a: u32) -> &[u32] {
        let a = a as usize;
        if a + 1 >= self.offsets.len() {
            return &[];
        }
        &self.tris[self.offsets[a] as usize..self.offsets[a + 1] as usize]
    }

    /// The half-edges `a -> b`: triangle and edge index.
    pub(crate) fn half_edges<'a>(
        &'a self,
        tri_v: &'a [[u32; 3]],
        a: u32,
        b: u32,
    ) -> impl Iterator<Item = (u32, usize)> + 'a {
        self.around(a).iter().filter_map(move |&t| {
            let v = tri_v[t as usize];
            let i = v.iter().position(|&x| x == a)?;
            (v[(i + 1) % 3] == b).then_some((t, i))
        })
    }
}

/// The index of edge `(a, b)` in triangle `v`, if it has that directed edge.
pub(crate) fn edge_in(v: [u32; 3], a: u32, b: u32) -> Option<usize> {
    (0..3).find(|&i| v[i] == a && v[(i + 1) % 3] == b)
}

/// Counts and quality of a mesh, as `irglc mesh describe` prints them.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub vertices: u64,
    pub triangles: u64,
    pub boundary_edges: u64,
    /// Triangles whose smallest angle is below 30 degrees in `f64` (as refinement decides).
    pub bad: u64,
    /// Triangles with an angle below 30 degrees exactly ([`angle_below_30`]).
    pub bad_exact: u64,
    /// The smallest angle of any triangle, in degrees (`f64`); 0 without triangles.
    pub min_angle_deg: f64,
    /// Interior edges that are not locally Delaunay (0: the mesh is exactly Delaunay).
    pub delaunay_violations: u64,
    /// The domain's area in world units.
    pub area: f64,
}

impl Mesh {
    /// A mesh from points and counterclockwise triangles: computes the neighbours and
    /// validates.
    pub fn new(
        points: Vec<Point>,
        tri_v: Vec<[u32; 3]>,
        origin_x: f64,
        origin_y: f64,
        scale: f64,
    ) -> Result<Mesh, Problems> {
        let mut m = Mesh {
            points,
            tri_n: vec![[NONE; 3]; tri_v.len()],
            tri_v,
            origin_x,
            origin_y,
            scale,
        };
        m.compute_neighbours()?;
        m.validate()?;
        Ok(m)
    }

    pub fn num_vertices(&self) -> u64 {
        self.points.len() as u64
    }

    pub fn num_triangles(&self) -> u64 {
        self.tri_v.len() as u64
    }

    /// The corners of triangle `t`. Ids must be in range.
    pub fn corners(&self, t: u32) -> [Point; 3] {
        self.tri_v[t as usize].map(|v| self.points[v as usize])
    }

    /// The world coordinates of a grid point.
    pub fn world(&self, p: Point) -> (f64, f64) {
        (
            self.origin_x + f64::from(p.x) * self.scale,
            self.origin_y + f64::from(p.y) * self.scale,
        )
    }

    /// Fills `tri_n` from the triangles' edges: the neighbour across `(a, b)` is the triangle
    /// holding `(b, a)`, [`NONE`] if there is none. An edge used twice in the same direction
    /// (so also an edge shared by more than two triangles), an id out of range or a triangle
    /// with a repeated vertex is an error naming the triangle.
    pub fn compute_neighbours(&mut self) -> Result<(), Problems> {
        let nv = self.points.len();
        let mut problems = Problems::default();
        for (t, v) in self.tri_v.iter().enumerate() {
            if let Some(&x) = v.iter().find(|&&x| x as usize >= nv) {
                problems.push(Site::Triangle(t as u32), || {
                    format!("vertex id {x} is out of range: the mesh has {nv} vertices")
                });
            } else if v[0] == v[1] || v[1] == v[2] || v[2] == v[0] {
                problems.push(Site::Triangle(t as u32), || {
                    format!("repeats a vertex: {} {} {}", v[0], v[1], v[2])
                });
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let index = EdgeIndex::new(nv, &self.tri_v);
        self.tri_n = vec![[NONE; 3]; self.tri_v.len()];
        for (t, v) in self.tri_v.iter().enumerate() {
            for i in 0..3 {
                let (a, b) = (v[i], v[(i + 1) % 3]);
                let mut same = index.half_edges(&self.tri_v, a, b).map(|(u, _)| u);
                if let Some(u) = same.find(|&u| u as usize != t) {
                    if (u as usize) > t {
                        let shared = index.half_edges(&self.tri_v, b, a).count();
                        problems.push(Site::Triangle(t as u32), || {
                            format!(
                                "edge ({a}, {b}) is used in the same direction by triangle {u} too{}",
                                if shared > 0 {
                                    format!(
                                        ", and in the other direction by {shared} more: more than two triangles share it"
                                    )
                                } else {
                                    String::new()
                                }
                            )
                        });
                    }
                    continue;
                }
                let mut rev = index.half_edges(&self.tri_v, b, a);
                if let Some((u, _)) = rev.next() {
                    self.tri_n[t][i] = u;
                }
            }
        }
        problems.into_result()
    }

    /// Checks every invariant of the module documentation; the problems name the triangle or
    /// vertex.
    pub fn validate(&self) -> Result<(), Problems> {
        let mut problems = Problems::default();
        let nv = self.points.len();
        let nt = self.tri_v.len();
        if !(self.scale.is_finite() && self.scale > 0.0) {
            problems.push(Site::Mesh, || {
                format!("scale {} is not a finite positive number", self.scale)
            });
        }
        if !(self.origin_x.is_finite() && self.origin_y.is_finite()) {
            problems.push(Site::Mesh, || {
                format!(
                    "origin ({}, {}) is not finite",
                    self.origin_x, self.origin_y
                )
            });
        }
        if nv as u64 > MAX_COUNT || nt as u64 > MAX_COUNT {
            problems.push(Site::Mesh, || {
                format!("{nv} vertices and {nt} triangles: at most {MAX_COUNT} of each")
            });
            return problems.into_result();
        }
        if self.tri_n.len() != nt {
            problems.push(Site::Mesh, || {
                format!("{nt} triangles but {} neighbour triples", self.tri_n.len())
            });
            return problems.into_result();
        }
        for (v, p) in self.points.iter().enumerate() {
            for (name, c) in [("x", p.x), ("y", p.y)] {
                if !(0..=GRID).contains(&i64::from(c)) {
                    problems.push(Site::Vertex(v as u32), || {
                        format!("{name} = {c} is outside the grid [0, {GRID}]")
                    });
                }
            }
        }
        // Triangles: ids and orientation.
        let mut usable = vec![false; nt];
        for (t, v) in self.tri_v.iter().enumerate() {
            let site = Site::Triangle(t as u32);
            if let Some(&x) = v.iter().find(|&&x| x as usize >= nv) {
                problems.push(site, || {
                    format!("vertex id {x} is out of range: the mesh has {nv} vertices")
                });
                continue;
            }
            if v[0] == v[1] || v[1] == v[2] || v[2] == v[0] {
                problems.push(site, || {
                    format!("repeats a vertex: {} {} {}", v[0], v[1], v[2])
                });
                continue;
            }
            usable[t] = true;
            let [a, b, c] = v.map(|x| self.points[x as usize]);
            match orient(a, b, c) {
                1 => {}
                o => problems.push(site, || {
                    format!(
                        "vertices {} {} {} at {a} {b} {c} are {}",
                        v[0],
                        v[1],
                        v[2],
                        if o == 0 {
                            "collinear (a degenerate triangle)"
                        } else {
                            "clockwise, expected counterclockwise"
                        }
                    )
                }),
            }
        }
        let index = EdgeIndex::new(nv, &self.tri_v);
        for (t, v) in self.tri_v.iter().enumerate() {
            if !usable[t] {
                continue;
            }
            let site = Site::Triangle(t as u32);
            for i in 0..3 {
                let (a, b) = (v[i], v[(i + 1) % 3]);
                if let Some((u, _)) = index
                    .half_edges(&self.tri_v, a, b)
                    .find(|&(u, _)| u as usize != t)
                {
                    if (u as usize) > t {
                        problems.push(site, || {
                            format!(
                                "edge ({a}, {b}) is used in the same direction by triangle {u} too"
                            )
                        });
                    }
                    continue;
                }
                let n = self.tri_n[t][i];
                if n == NONE {
                    if let Some((u, _)) = index.half_edges(&self.tri_v, b, a).next() {
                        problems.push(site, || {
                            format!(
                                "edge ({a}, {b}) has no neighbour, but triangle {u} holds ({b}, {a})"
                            )
                        });
                    }
                    continue;
                }
                if n as usize >= nt {
                    problems.push(site, || {
                        format!(
                            "neighbour {n} across ({a}, {b}) is out of range: the mesh has {nt} triangles"
                        )
                    });
                    continue;
                }
                if !usable[n as usize] {
                    continue; // reported at n
                }
                match edge_in(self.tri_v[n as usize], b, a) {
                    None => problems.push(site, || {
                        let w = self.tri_v[n as usize];
                        format!(
                            "neighbour {n} across ({a}, {b}) does not hold the edge ({b}, {a}): its vertices are {} {} {}",
                            w[0], w[1], w[2]
                        )
                    }),
                    Some(j) => {
                        let back = self.tri_n[n as usize][j];
                        if back as usize != t {
                            problems.push(site, || {
                                format!(
                                    "neighbour {n} across ({a}, {b}) has {} across ({b}, {a}), not {t}",
                                    if back == NONE {
                                        "no neighbour".to_string()
                                    } else {
                                        format!("triangle {back}")
                                    }
                                )
                            });
                        }
                    }
                }
            }
        }
        // Every vertex a corner; no two at one point.
        for v in 0..nv {
            if index.around(v as u32).is_empty() {
                problems.push(Site::Vertex(v as u32), || {
                    format!("at {} is a corner of no triangle", self.points[v])
                });
            }
        }
        let mut order: Vec<u32> = (0..nv as u32).collect();
        order.sort_unstable_by_key(|&v| (self.points[v as usize], v));
        for w in order.windows(2) {
            if self.points[w[0] as usize] == self.points[w[1] as usize] {
                problems.push(Site::Vertex(w[1]), || {
                    format!(
                        "is at {}, as vertex {} is: no two vertices may share a point",
                        self.points[w[1] as usize], w[0]
                    )
                });
            }
        }
        problems.into_result()
    }

    /// The sum of the triangles' doubled signed areas, exactly.
    pub fn area2(&self) -> i128 {
        self.tri_v
            .iter()
            .map(|v| {
                let [a, b, c] = v.map(|x| self.points[x as usize]);
                i128::from(predicates::orient_value(a, b, c))
            })
            .sum()
    }

    /// The boundary edges `(triangle, edge index)`, in triangle order: the domain is on the
    /// left of each edge `(v[i], v[i + 1])`.
    pub fn boundary_edges(&self) -> Vec<(u32, u8)> {
        let mut out = Vec::new();
        for (t, n) in self.tri_n.iter().enumerate() {
            for (i, &x) in n.iter().enumerate() {
                if x == NONE {
                    out.push((t as u32, i as u8));
                }
            }
        }
        out
    }

    /// Whether the edge `i` of `t` is locally Delaunay: the vertex of the neighbour opposite it
    /// is not strictly inside `t`'s circumcircle. Boundary edges are. Neighbours must be
    /// consistent.
    pub fn locally_delaunay(&self, t: u32, i: usize) -> bool {
        let n = self.tri_n[t as usize][i];
        if n == NONE {
            return true;
        }
        let v = self.tri_v[t as usize];
        let (a, b) = (v[i], v[(i + 1) % 3]);
        let w = self.tri_v[n as usize];
        let Some(j) = edge_in(w, b, a) else {
            return false;
        };
        let d = w[(j + 2) % 3];
        let [pa, pb, pc] = self.corners(t);
        incircle(pa, pb, pc, self.points[d as usize]) <= 0
    }

    /// The interior edges that are not locally Delaunay (each reported once, at the triangle
    /// with the smaller id). Neighbours must be consistent.
    pub fn delaunay_violations(&self) -> Problems {
        let mut problems = Problems::default();
        for t in 0..self.tri_v.len() as u32 {
            for i in 0..3 {
                let n = self.tri_n[t as usize][i];
                if n != NONE && n > t && !self.locally_delaunay(t, i) {
                    let v = self.tri_v[t as usize];
                    problems.push(Site::Triangle(t), || {
                        format!(
                            "edge ({}, {}) is not locally Delaunay: the far vertex of neighbour {n} is inside the circumcircle",
                            v[i],
                            v[(i + 1) % 3]
                        )
                    });
                }
            }
        }
        problems
    }

    /// Flips interior edges that are not locally Delaunay until none is left (Lawson's
    /// algorithm, exact incircle); returns the number of flips. Boundary edges stay. The mesh
    /// must be valid; it stays valid.
    pub fn make_delaunay(&mut self) -> u64 {
        let mut stack: Vec<(u32, u8)> = Vec::new();
        for (t, n) in self.tri_n.iter().enumerate() {
            for (i, &x) in n.iter().enumerate() {
                if x != NONE && x as usize > t {
                    stack.push((t as u32, i as u8));
                }
            }
        }
        let mut flips = 0;
        while let Some((t, i)) = stack.pop() {
            let i = i as usize;
            if self.locally_delaunay(t, i) {
                continue;
            }
            let u = self.tri_n[t as usize][i];
            let tv = self.tri_v[t as usize];
            let tn = self.tri_n[t as usize];
            let (a, b, c) = (tv[i], tv[(i + 1) % 3], tv[(i + 2) % 3]);
            let (t_bc, t_ca) = (tn[(i + 1) % 3], tn[(i + 2) % 3]);
            let uv = self.tri_v[u as usize];
            let un = self.tri_n[u as usize];
            let Some(j) = edge_in(uv, b, a) else {
                continue; // inconsistent neighbours: not a valid mesh
            };
            let d = uv[(j + 2) % 3];
            let (u_ad, u_db) = (un[(j + 1) % 3], un[(j + 2) % 3]);
            self.tri_v[t as usize] = [c, a, d];
            self.tri_n[t as usize] = [t_ca, u_ad, u];
            self.tri_v[u as usize] = [d, b, c];
            self.tri_n[u as usize] = [u_db, t_bc, t];
            self.relink(u_ad, a, d, t);
            self.relink(t_bc, b, c, u);
            flips += 1;
            stack.extend([(t, 0), (t, 1), (u, 0), (u, 1)]);
        }
        flips
    }

    /// Points the neighbour `x` across its edge `(b, a)` (the reverse of `(a, b)`) at `to`.
    pub(crate) fn relink(&mut self, x: u32, a: u32, b: u32, to: u32) {
        if x == NONE {
            return;
        }
        if let Some(k) = edge_in(self.tri_v[x as usize], b, a) {
            self.tri_n[x as usize][k] = to;
        }
    }

    /// Counts, quality and whether the mesh is exactly Delaunay. Neighbours must be consistent
    /// (a valid mesh).
    pub fn summary(&self) -> Summary {
        let mut bad = 0;
        let mut bad_exact = 0;
        let mut min_angle = f64::INFINITY;
        for t in 0..self.tri_v.len() as u32 {
            let [a, b, c] = self.corners(t);
            let m = min_angle_deg(a, b, c);
            min_angle = min_angle.min(m);
            if m < 30.0 {
                bad += 1;
            }
            if angle_below_30(a, b, c) {
                bad_exact += 1;
            }
        }
        Summary {
            vertices: self.num_vertices(),
            triangles: self.num_triangles(),
            boundary_edges: self.boundary_edges().len() as u64,
            bad,
            bad_exact,
            min_angle_deg: if min_angle.is_finite() {
                min_angle
            } else {
                0.0
            },
            delaunay_violations: self.delaunay_violations().count,
            area: self.area2() as f64 / 2.0 * self.scale * self.scale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: i32, y: i32) -> Point {
        Point { x, y }
    }

    /// The unit square of side 4 split along a diagonal, with a centre vertex: 4 triangles.
    pub(crate) fn square_with_centre() -> Mesh {
        let points = vec![p(0, 0), p(4, 0), p(4, 4), p(0, 4), p(2, 2)];
        let tri_v = vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]];
        Mesh::new(points, tri_v, 0.0, 0.0, 1.0).unwrap()
    }

    #[test]
    fn neighbours_are_computed_and_reciprocal() {
        let m = square_with_centre();
        assert_eq!(m.tri_n[0], [NONE, 1, 3]);
        assert_eq!(m.tri_n[1], [NONE, 2, 0]);
        assert_eq!(m.boundary_edges().len(), 4);
        assert_eq!(m.area2(), 32);
        assert!(m.delaunay_violations().is_empty());
        let s = m.summary();
        assert_eq!((s.vertices, s.triangles, s.bad, s.bad_exact), (5, 4, 0, 0));
        assert!((s.min_angle_deg - 45.0).abs() < 1e-9);
    }

    #[test]
    fn an_edge_used_twice_in_one_direction_is_an_error() {
        let points = vec![p(0, 0), p(4, 0), p(0, 4), p(1, 4)];
        let mut m = Mesh {
            points,
            tri_v: vec![[0, 1, 2], [0, 1, 3]],
            tri_n: vec![],
            origin_x: 0.0,
            origin_y: 0.0,
            scale: 1.0,
        };
        let e = m.compute_neighbours().unwrap_err();
        assert_eq!(
            e.to_string(),
            "triangle 0: edge (0, 1) is used in the same direction by triangle 1 too"
        );
        let mut m2 = m.clone();
        m2.tri_v = vec![[0, 1, 2], [0, 1, 3], [1, 0, 3]];
        m2.points.push(p(2, -3));
        m2.tri_v[2] = [1, 0, 4];
        let e = m2.compute_neighbours().unwrap_err();
        assert!(
            e.to_string().contains("more than two triangles share it"),
            "{e}"
        );
        m.tri_v = vec![[0, 1, 7]];
        assert_eq!(
            m.compute_neighbours().unwrap_err().to_string(),
            "triangle 0: vertex id 7 is out of range: the mesh has 4 vertices"
        );
    }

    #[test]
    fn validate_names_the_triangle_and_the_problem() {
        let good = square_with_centre();
        let mut m = good.clone();
        m.tri_v[2] = [2, 4, 3]; // clockwise
        let e = m.validate().unwrap_err();
        assert_eq!(
            e.first[0].to_string(),
            "triangle 2: vertices 2 4 3 at (4, 4) (2, 2) (0, 4) are clockwise, expected counterclockwise"
        );
        let mut m = good.clone();
        m.tri_n[0][1] = 2;
        let e = m.validate().unwrap_err();
        assert_eq!(
            e.first[0].to_string(),
            "triangle 0: neighbour 2 across (1, 4) does not hold the edge (4, 1): its vertices are 2 3 4"
        );
        let mut m = good.clone();
        m.tri_n[1][2] = NONE;
        let e = m.validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "triangle 0: neighbour 1 across (1, 4) has no neighbour across (4, 1), not 0 (and 1 more problems)"
        );
        let mut m = good.clone();
        m.points[4] = p(0, 0);
        let e = m.validate().unwrap_err();
        assert!(
            e.first.iter().any(|p| p.to_string()
                == "vertex 4: is at (0, 0), as vertex 0 is: no two vertices may share a point"),
            "{e:?}"
        );
        let mut m = good.clone();
        m.points[2] = p(4, (1 << 28) + 1);
        assert!(
            m.validate()
                .unwrap_err()
                .first
                .iter()
                .any(|p| p.to_string()
                    == "vertex 2: y = 268435457 is outside the grid [0, 268435456]")
        );
        let mut m = good.clone();
        m.points.push(p(1, 3));
        assert_eq!(
            m.validate().unwrap_err().to_string(),
            "vertex 5: at (1, 3) is a corner of no triangle"
        );
        let mut m = good;
        m.scale = 0.0;
        assert_eq!(
            m.validate().unwrap_err().to_string(),
            "scale 0 is not a finite positive number"
        );
    }

    #[test]
    fn lawson_flips_make_a_mesh_delaunay() {
        // A quad split along its long diagonal: not Delaunay; one flip fixes it.
        let points = vec![p(0, 1), p(10, 2), p(20, 1), p(10, 0)];
        let mut m = Mesh::new(points, vec![[0, 3, 2], [0, 2, 1]], 0.0, 0.0, 1.0).unwrap();
        assert_eq!(m.delaunay_violations().count, 1);
        assert_eq!(m.make_delaunay(), 1);
        assert!(m.delaunay_violations().is_empty());
        m.validate().unwrap();
        assert_eq!(m.area2(), 40);
    }
}

//! The sequential CPU reference of Delaunay mesh refinement (DMR), for tests and for sizing the
//! GPU program's capacities.
//!
//! A triangle is bad when its smallest angle is below 30 degrees in `f64`
//! ([`min_angle_deg`]). Bad triangles go on a first-in first-out worklist; for each one popped
//! that is still live and still bad ([`plan`] decides steps 1 to 3):
//!
//! 1. `p` = its [`circumcenter`] (f64 from the integer coordinates, rounded to the nearest grid
//!    point, clamped to `[-2^28, 2^29]`);
//! 2. walk from the triangle toward `p`: at each triangle cross the first edge `i` (in order
//!    0, 1, 2) with `orient(v[i], v[i+1], p) < 0`; where there is none, `p` is in that
//!    triangle;
//! 3. a boundary edge is split instead of inserting `p` when the walk must cross it, or when
//!    `p` encroaches upon it: `p` is strictly inside the circle whose diameter is a boundary
//!    edge of one of the triangles of `p`'s cavity (the angle `a p b` is obtuse: Ruppert's
//!    rule; without it, circumcenters just inside the boundary cascade into ever smaller
//!    triangles down to the grid's resolution). The edge is split at the grid point in its
//!    middle ([`split_point`]: `floor((a + b) / 2)` for the axis-parallel edges of a square);
//!    an edge with no grid point strictly inside it (fewer than 2 grid units long, for an
//!    axis-parallel edge) cannot be split and the triangle is left bad, as it is when `p` is
//!    already a vertex (a triangle below the grid's resolution);
//! 4. Bowyer-Watson ([`Cavity`]): the cavity is found by a breadth-first search from the
//!    triangle holding `p` (the one holding the split edge) over neighbours whose circumcircle
//!    strictly contains `p` (exact [`incircle`] `> 0`); its triangles die, and each edge
//!    `(a, b)` of its border (except the split edge) gets a new triangle `(p, a, b)`, linked to
//!    the triangle outside and to its new neighbours;
//! 5. the new bad triangles are pushed, and the popped triangle again if it is still live (a
//!    split need not remove it).
//!
//! Dead triangles keep their slots (as on the GPU, slots are not reused); the result is
//! compacted at the end. The counts ([`RefineStats`]) size the GPU program's arrays: slots
//! allocated per input triangle, the largest cavity.

use std::collections::VecDeque;

use super::{MAX_COUNT, Mesh, NONE, Point, circumcenter, incircle, min_angle_deg, orient};
use crate::error::{GraphError, Result};

/// The smallest angle a triangle must have, in degrees.
pub const MIN_ANGLE: f64 = 30.0;

/// Whether refinement treats triangle `t` as bad (`f64`, as the GPU program decides).
pub fn is_bad(mesh: &Mesh, t: u32) -> bool {
    let [a, b, c] = mesh.corners(t);
    min_angle_deg(a, b, c) < MIN_ANGLE
}

/// What refinement does with a bad triangle, decided by [`plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Insert `p`, which is in the closed triangle `tri` and not one of its corners, and
    /// encroaches upon no boundary edge of its cavity.
    Insert { tri: u32, p: Point },
    /// Split the boundary edge `edge` of `tri` at `p`, a grid point strictly inside it.
    Split { tri: u32, edge: u8, p: Point },
    /// The boundary edge `edge` of `tri` should be split but has no grid point strictly inside
    /// it: the bad triangle stays.
    Unsplittable { tri: u32, edge: u8 },
    /// The rounded circumcenter is already the vertex `vertex` (a corner of `tri`): the bad
    /// triangle stays.
    AtVertex { tri: u32, vertex: u32 },
}

/// The grid point in the middle of the segment `(a, b)`, if it has one strictly inside: with
/// `lo` the lexicographically smaller end, `g = gcd(|dx|, |dy|)` and step `s = (b - a) / g`,
/// `lo + floor(g / 2) s`. It is exactly on the segment; for an axis-parallel or diagonal
/// edge it equals `floor((a + b) / 2)` per coordinate. `None` when `g < 2` (the segment has no
/// grid point inside).
pub fn split_point(a: Point, b: Point) -> Option<Point> {
    let (lo, hi) = if (a.x, a.y) <= (b.x, b.y) {
        (a, b)
    } else {
        (b, a)
    };
    let dx = i64::from(hi.x) - i64::from(lo.x);
    let dy = i64::from(hi.y) - i64::from(lo.y);
    let g = gcd(dx.unsigned_abs(), dy.unsigned_abs()) as i64;
    if g < 2 {
        return None;
    }
    let k = g / 2;
    Some(Point {
        x: (i64::from(lo.x) + k * (dx / g)) as i32,
        y: (i64::from(lo.y) + k * (dy / g)) as i32,
    })
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Whether `p` is strictly inside the circle with diameter `(a, b)`: the angle `a p b` is
/// obtuse (or `p` is strictly between `a` and `b`). Exact.
pub fn encroaches(p: Point, a: Point, b: Point) -> bool {
    let (ax, ay) = (
        i128::from(a.x) - i128::from(p.x),
        i128::from(a.y) - i128::from(p.y),
    );
    let (bx, by) = (
        i128::from(b.x) - i128::from(p.x),
        i128::from(b.y) - i128::from(p.y),
    );
    ax * bx + ay * by < 0
}

/// A Bowyer-Watson cavity: the triangles whose circumcircle strictly contains a point,
/// connected through interior edges to the triangle holding it. Reused between insertions (its
/// marks are stamped, never cleared).
#[derive(Clone, Debug, Default)]
pub struct Cavity {
    /// `2 g` marks a triangle in the cavity of generation `g`, `2 g + 1` one tested outside.
    mark: Vec<u64>,
    generation: u64,
    /// The cavity's triangles, in breadth-first order from the start.
    pub triangles: Vec<u32>,
}

impl Cavity {
    pub fn new() -> Cavity {
        Cavity::default()
    }

    /// Finds the cavity of `p` from `start` (always included).
    pub fn find(&mut self, mesh: &Mesh, start: u32, p: Point) {
        if self.mark.len() < mesh.tri_v.len() {
            self.mark.resize(mesh.tri_v.len(), 0);
        }
        self.generation += 1;
        let inside = 2 * self.generation;
        self.triangles.clear();
        self.triangles.push(start);
        self.mark[start as usize] = inside;
        let mut k = 0;
        while k < self.triangles.len() {
            let c = self.triangles[k];
            k += 1;
            for n in mesh.tri_n[c as usize] {
                if n == NONE || self.mark[n as usize] >= inside {
                    continue;
                }
                let [a, b, c] = mesh.corners(n);
                if incircle(a, b, c, p) > 0 {
                    self.mark[n as usize] = inside;
                    self.triangles.push(n);
                } else {
                    self.mark[n as usize] = inside + 1;
                }
            }
        }
    }

    /// Whether `t` is in the cavity last found.
    pub fn contains(&self, t: u32) -> bool {
        t != NONE && self.mark.get(t as usize) == Some(&(2 * self.generation))
    }
}

/// Walks from triangle `t` toward `p`: at each triangle, crosses the first edge `i` (in order
/// 0, 1, 2) with `orient(v[i], v[i+1], p) < 0`. Returns the triangle holding `p`, or the
/// boundary edge the walk must cross (`Split` or `Unsplittable`), or `AtVertex`. `None` if the
/// walk takes more steps than the mesh has triangles.
fn walk(mesh: &Mesh, t: u32, p: Point) -> Option<Target> {
    let mut cur = t;
    for _ in 0..=mesh.tri_v.len() {
        let v = mesh.tri_v[cur as usize];
        let corner = |i: usize| mesh.points[v[i] as usize];
        let crossed = (0..3).find(|&i| orient(corner(i), corner((i + 1) % 3), p) < 0);
        let Some(i) = crossed else {
            return Some(match (0..3).find(|&i| corner(i) == p) {
                Some(i) => Target::AtVertex {
                    tri: cur,
                    vertex: v[i],
                },
                None => Target::Insert { tri: cur, p },
            });
        };
        let n = mesh.tri_n[cur as usize][i];
        if n == NONE {
            return Some(split(mesh, cur, i as u8));
        }
        cur = n;
    }
    None
}

/// Splitting the boundary edge `edge` of `tri`, if the grid allows.
fn split(mesh: &Mesh, tri: u32, edge: u8) -> Target {
    let v = mesh.tri_v[tri as usize];
    let a = mesh.points[v[edge as usize] as usize];
    let b = mesh.points[v[(edge as usize + 1) % 3] as usize];
    match split_point(a, b) {
        Some(p) => Target::Split { tri, edge, p },
        None => Target::Unsplittable { tri, edge },
    }
}

/// What refinement does with the bad triangle `t` (steps 1 to 3 of the module documentation):
/// its circumcenter, the walk toward it, and the encroachment test on the boundary edges of the
/// circumcenter's cavity. For `Insert`, `cavity` holds the cavity of the point afterwards.
/// `None` if `t` is degenerate or the walk does not end (the mesh is not Delaunay). Neighbours
/// must be consistent; dead triangles must not be reachable from live ones.
pub fn plan(mesh: &Mesh, t: u32, cavity: &mut Cavity) -> Option<Target> {
    let [a, b, c] = mesh.corners(t);
    let p = circumcenter(a, b, c)?;
    let target = walk(mesh, t, p)?;
    let Target::Insert { tri, p } = target else {
        return Some(target);
    };
    cavity.find(mesh, tri, p);
    for &c in &cavity.triangles {
        let v = mesh.tri_v[c as usize];
        for i in 0..3 {
            if mesh.tri_n[c as usize][i] == NONE
                && encroaches(
                    p,
                    mesh.points[v[i] as usize],
                    mesh.points[v[(i + 1) % 3] as usize],
                )
            {
                return Some(split(mesh, c, i as u8));
            }
        }
    }
    Some(target)
}

/// The refined mesh and what it took.
#[derive(Clone, Debug)]
pub struct RefineStats {
    /// The refined mesh, compacted: input vertices keep their ids, new ones follow.
    pub mesh: Mesh,
    /// Circumcenters inserted.
    pub insertions: u64,
    /// Boundary edges split at their middle.
    pub splits: u64,
    /// Times a bad triangle was left as it is (a boundary edge to split with no grid point
    /// inside, or its circumcenter already a vertex).
    pub left_bad: u64,
    /// The largest cavity, in triangles.
    pub max_cavity: u64,
    /// Triangle slots allocated: input triangles plus every triangle ever created.
    pub slots: u64,
    /// Live triangles at the end (the refined mesh's triangles).
    pub live: u64,
    /// Bad triangles in the input.
    pub bad_in: u64,
    /// Bad triangles in the output.
    pub bad_out: u64,
}

struct Refiner {
    mesh: Mesh,
    alive: Vec<bool>,
    cavity: Cavity,
    border: Vec<(u32, u8)>,
    created: Vec<u32>,
    starts: Vec<(u32, u32)>,
    max_cavity: u64,
}

impl Refiner {
    /// Replaces the cavity last found (of `p`) by the fan of `p` over its border, leaving out
    /// the border edge `skip` (the split edge). The new triangles are in `self.created`.
    fn insert(&mut self, p: Point, skip: Option<(u32, u8)>) -> Result<()> {
        let m = &mut self.mesh;
        if m.points.len() as u64 >= MAX_COUNT {
            return Err(GraphError::Invalid(format!(
                "refinement needs more than {MAX_COUNT} vertices"
            )));
        }
        let start = self.cavity.triangles[0];
        let [a, b, c] = m.corners(start);
        if incircle(a, b, c, p) <= 0 {
            return Err(GraphError::Internal(format!(
                "the triangle {start} holding the new point {p} does not have it inside its circumcircle"
            )));
        }
        self.max_cavity = self.max_cavity.max(self.cavity.triangles.len() as u64);
        self.border.clear();
        for &c in &self.cavity.triangles {
            for i in 0..3u8 {
                let n = m.tri_n[c as usize][i as usize];
                if !self.cavity.contains(n) && skip != Some((c, i)) {
                    self.border.push((c, i));
                }
            }
        }
        let pid = m.points.len() as u32;
        m.points.push(p);
        // New triangles (p, a, b), one per border edge (a, b).
        self.created.clear();
        self.starts.clear();
        for &(c, i) in &self.border {
            let v = m.tri_v[c as usize];
            let (a, b) = (v[i as usize], v[(i as usize + 1) % 3]);
            let out = m.tri_n[c as usize][i as usize];
            if orient(p, m.points[a as usize], m.points[b as usize]) <= 0 {
                return Err(GraphError::Invalid(format!(
                    "the cavity of the new point {p} is not star-shaped at edge ({a}, {b}) of triangle {c} (is the mesh Delaunay?)"
                )));
            }
            if m.tri_v.len() as u64 >= MAX_COUNT {
                return Err(GraphError::Invalid(format!(
                    "refinement needs more than {MAX_COUNT} triangle slots"
                )));
            }
            let id = m.tri_v.len() as u32;
            m.tri_v.push([pid, a, b]);
            m.tri_n.push([NONE, out, NONE]);
            self.alive.push(true);
            m.relink(out, a, b, id);
            self.created.push(id);
            self.starts.push((a, id));
        }
        // Neighbours among the new triangles: (p, a) of one is (a, p) of the one ending at a.
        self.starts.sort_unstable();
        for &x in &self.created {
            let b = m.tri_v[x as usize][2];
            if let Ok(k) = self.starts.binary_search_by_key(&b, |s| s.0) {
                let y = self.starts[k].1;
                m.tri_n[x as usize][2] = y;
                m.tri_n[y as usize][0] = x;
            }
        }
        for &c in &self.cavity.triangles {
            self.alive[c as usize] = false;
        }
        Ok(())
    }
}

/// Refines a copy of `mesh` until no triangle has an angle below 30 degrees, except those that
/// cannot be refined on the grid (see the module documentation). The input must be a valid,
/// exactly Delaunay mesh.
pub fn refine(mesh: &Mesh) -> Result<RefineStats> {
    mesh.validate()
        .map_err(|p| GraphError::Invalid(format!("the input mesh is not valid: {p}")))?;
    let violations = mesh.delaunay_violations();
    if !violations.is_empty() {
        return Err(GraphError::Invalid(format!(
            "the input mesh is not exactly Delaunay: {violations} (refinement needs a Delaunay input)"
        )));
    }
    let nt = mesh.tri_v.len();
    let mut r = Refiner {
        mesh: mesh.clone(),
        alive: vec![true; nt],
        cavity: Cavity::new(),
        border: Vec::new(),
        created: Vec::new(),
        starts: Vec::new(),
        max_cavity: 0,
    };
    let mut work: VecDeque<u32> = (0..nt as u32).filter(|&t| is_bad(mesh, t)).collect();
    let bad_in = work.len() as u64;
    let (mut insertions, mut splits, mut left_bad) = (0u64, 0u64, 0u64);
    while let Some(t) = work.pop_front() {
        if !r.alive[t as usize] || !is_bad(&r.mesh, t) {
            continue;
        }
        let target = plan(&r.mesh, t, &mut r.cavity).ok_or_else(|| {
            GraphError::Internal(format!(
                "the walk from triangle {t} toward its circumcenter does not end"
            ))
        })?;
        match target {
            Target::Insert { p, .. } => {
                r.insert(p, None)?;
                insertions += 1;
            }
            Target::Split { tri, edge, p } => {
                r.cavity.find(&r.mesh, tri, p);
                r.insert(p, Some((tri, edge)))?;
                splits += 1;
            }
            Target::Unsplittable { .. } | Target::AtVertex { .. } => {
                left_bad += 1;
                continue;
            }
        }
        for &x in &r.created {
            if is_bad(&r.mesh, x) {
                work.push_back(x);
            }
        }
        if r.alive[t as usize] {
            work.push_back(t);
        }
    }
    let slots = r.mesh.tri_v.len() as u64;
    // Compact: live triangles keep their order.
    let mut new_id = vec![NONE; r.mesh.tri_v.len()];
    let mut next = 0u32;
    for (t, &a) in r.alive.iter().enumerate() {
        if a {
            new_id[t] = next;
            next += 1;
        }
    }
    let Mesh {
        points,
        tri_v,
        tri_n,
        origin_x,
        origin_y,
        scale,
    } = r.mesh;
    let keep = |t: &usize| r.alive[*t];
    let out = Mesh {
        points,
        tri_v: (0..tri_v.len()).filter(keep).map(|t| tri_v[t]).collect(),
        tri_n: (0..tri_n.len())
            .filter(keep)
            .map(|t| tri_n[t].map(|n| if n == NONE { NONE } else { new_id[n as usize] }))
            .collect(),
        origin_x,
        origin_y,
        scale,
    };
    out.validate()
        .map_err(|p| GraphError::Internal(format!("the refined mesh is not valid: {p}")))?;
    let bad_out = (0..out.tri_v.len() as u32)
        .filter(|&t| is_bad(&out, t))
        .count() as u64;
    Ok(RefineStats {
        live: out.tri_v.len() as u64,
        mesh: out,
        insertions,
        splits,
        left_bad,
        max_cavity: r.max_cavity,
        slots,
        bad_in,
        bad_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate::generate;
    use crate::mesh::verify::verify_refinement;

    #[test]
    fn split_points_are_on_the_edge() {
        let p = Point::new;
        assert_eq!(split_point(p(0, 0), p(5, 0)), Some(p(2, 0)));
        assert_eq!(split_point(p(5, 0), p(0, 0)), Some(p(2, 0)));
        assert_eq!(split_point(p(0, 7), p(0, 2)), Some(p(0, 4)));
        assert_eq!(split_point(p(0, 0), p(1, 0)), None);
        assert_eq!(split_point(p(0, 0), p(2, 0)), Some(p(1, 0)));
        assert_eq!(split_point(p(3, 3), p(0, 0)), Some(p(1, 1)));
        // Slanted: gcd 1 has no interior grid point; gcd 3 has two, the first is taken.
        assert_eq!(split_point(p(0, 0), p(2, 3)), None);
        assert_eq!(split_point(p(0, 0), p(6, 9)), Some(p(2, 3)));
        assert_eq!(split_point(p(6, 0), p(0, 9)), Some(p(2, 6)));
        for (a, b) in [(p(0, 0), p(6, 9)), (p(6, 0), p(0, 9)), (p(1, 5), p(9, 1))] {
            let m = split_point(a, b).unwrap();
            assert_eq!(orient(a, b, m), 0);
            assert!(m != a && m != b);
        }
    }

    /// Refines a generated mesh and checks the result with the verifier; returns the input's
    /// triangle count and the statistics.
    fn refine_and_verify(triangles: u64, seed: u64) -> (u64, RefineStats) {
        let input = generate(triangles, seed).unwrap();
        let stats = refine(&input).unwrap();
        let verdict = verify_refinement(&input, &stats.mesh).unwrap();
        assert!(verdict.ok, "{verdict}");
        assert_eq!(stats.bad_out, 0, "{verdict}");
        (input.num_triangles(), stats)
    }

    #[test]
    fn refines_generated_meshes_and_verify_agrees() {
        for (t, seed) in [(2, 1), (10, 2), (1000, 1)] {
            let (n, s) = refine_and_verify(t, seed);
            assert!(s.live >= n);
            // Euler: T = 2V - 2 - h for a triangulated polygon with h boundary vertices.
            let h = s.mesh.boundary_edges().len() as u64;
            assert_eq!(s.mesh.num_triangles(), 2 * s.mesh.num_vertices() - 2 - h);
        }
    }

    /// Sizing for the GPU program: slots per input triangle, the largest cavity.
    #[test]
    fn sizing_of_the_gpu_capacities() {
        for (t, seed) in [(1000, 1), (20000, 2)] {
            let (n, s) = refine_and_verify(t, seed);
            println!(
                "refine {n} triangles (seed {seed}): {} bad in, {} live out ({:.3} x input), {} slots ({:.3} x input), max cavity {}, {} insertions, {} splits, {} left bad",
                s.bad_in,
                s.live,
                s.live as f64 / n as f64,
                s.slots,
                s.slots as f64 / n as f64,
                s.max_cavity,
                s.insertions,
                s.splits,
                s.left_bad
            );
            assert!(s.max_cavity >= 2);
        }
    }
}

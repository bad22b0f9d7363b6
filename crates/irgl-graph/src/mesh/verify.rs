//! Checking a refined mesh: the CPU side of `irglc verify --program dmr`.
//!
//! The input must be a valid, exactly Delaunay mesh (an error otherwise: refinement needs a
//! Delaunay input). The output is accepted when, all exactly except the angle tolerance:
//!
//! - (a) it is a valid mesh ([`Mesh::validate`]: ids and coordinates in range, every triangle
//!   counterclockwise, directed edges unique, neighbours reciprocal, no duplicate points);
//! - (b) its first `V_in` vertices are the input's, at the same points, with the same origin
//!   and scale (refinement keeps vertex ids and appends new ones);
//! - (c) its domain is the input's: the same total doubled area (`i128`), every input boundary
//!   edge covered by a chain of collinear output boundary edges within it, and every output
//!   boundary edge on such a chain;
//! - (d) it is Delaunay: every interior edge is locally Delaunay (exact [`incircle`] `<= 0`);
//! - (e) no triangle has a smallest angle below 30 degrees, with a tolerance of
//!   [`ANGLE_TOLERANCE_DEG`] (the program decides in `f64`). The exception: a bad triangle that
//!   refinement leaves as it is, because the boundary edge it should split (the walk toward its
//!   circumcenter crosses it, or the circumcenter encroaches upon it) has no grid point strictly
//!   inside it (an axis-parallel edge shorter than 2 grid units), or because its rounded
//!   circumcenter is already a vertex ([`plan`](super::refine::plan) says which); such
//!   triangles are counted and reported, not mismatches.

use std::collections::HashMap;
use std::fmt;

use super::refine::{Cavity, Target, plan};
use super::{Mesh, Point, min_angle_deg, orient};
use crate::error::{GraphError, Result};
use crate::verify::SHOWN_MISMATCHES;

/// How far below 30 degrees an angle computed in `f64` may be and still pass.
pub const ANGLE_TOLERANCE_DEG: f64 = 1e-6;

/// The outcome of [`verify_refinement`], printed like the graph programs' verdicts.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshVerdict {
    /// Whether the output is accepted.
    pub ok: bool,
    /// Counts and what was checked.
    pub summary: Vec<String>,
    /// The first [`SHOWN_MISMATCHES`] problems.
    pub mismatches: Vec<String>,
    /// How many problems there are.
    pub mismatch_count: u64,
    /// Bad triangles the exception allows (see the module documentation).
    pub kept_bad: u64,
    /// The smallest angle of the output, in degrees.
    pub min_angle_deg: f64,
}

impl MeshVerdict {
    fn mismatch(&mut self, line: impl FnOnce() -> String) {
        self.ok = false;
        if self.mismatches.len() < SHOWN_MISMATCHES {
            self.mismatches.push(line());
        }
        self.mismatch_count += 1;
    }
}

impl fmt::Display for MeshVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::verify::write_verdict(
            f,
            "dmr",
            self.ok,
            &self.summary,
            &self.mismatches,
            self.mismatch_count,
        )
    }
}

fn bad_count(m: &Mesh) -> u64 {
    (0..m.tri_v.len() as u32)
        .filter(|&t| {
            let [a, b, c] = m.corners(t);
            min_angle_deg(a, b, c) < 30.0
        })
        .count() as u64
}

/// Checks that `output` is a refinement of `input` (see the module documentation). An input
/// that is not a valid, exactly Delaunay mesh is an error; everything wrong with the output is
/// a mismatch in the verdict.
pub fn verify_refinement(input: &Mesh, output: &Mesh) -> Result<MeshVerdict> {
    input
        .validate()
        .map_err(|p| GraphError::Invalid(format!("the input mesh is not valid: {p}")))?;
    let violations = input.delaunay_violations();
    if !violations.is_empty() {
        return Err(GraphError::Invalid(format!(
            "the input mesh is not exactly Delaunay: {violations} (the algorithm needs a Delaunay input)"
        )));
    }
    let mut v = MeshVerdict {
        ok: true,
        summary: Vec::new(),
        mismatches: Vec::new(),
        mismatch_count: 0,
        kept_bad: 0,
        min_angle_deg: 0.0,
    };
    let (vin, tin) = (input.num_vertices(), input.num_triangles());
    let (vout, tout) = (output.num_vertices(), output.num_triangles());
    v.summary.push(format!(
        "input: {vin} vertices, {tin} triangles, {} bad (smallest angle below 30 degrees), exactly Delaunay",
        bad_count(input)
    ));
    v.summary.push(format!(
        "output: {vout} vertices ({} new), {tout} triangles ({:.3} x the input)",
        vout as i64 - vin as i64,
        tout as f64 / (tin.max(1)) as f64
    ));
    // (a) a valid mesh.
    let valid = match output.validate() {
        Ok(()) => true,
        Err(problems) => {
            for p in &problems.first {
                v.mismatch(|| format!("not a valid mesh: {p}"));
            }
            // Count the ones not listed too.
            let rest = problems.count - problems.first.len() as u64;
            v.mismatch_count += rest;
            false
        }
    };
    // (b) the input's vertices kept.
    if output.origin_x != input.origin_x
        || output.origin_y != input.origin_y
        || output.scale != input.scale
    {
        v.mismatch(|| {
            format!(
                "origin ({}, {}) and scale {} differ from the input's ({}, {}) and {}",
                output.origin_x,
                output.origin_y,
                output.scale,
                input.origin_x,
                input.origin_y,
                input.scale
            )
        });
    }
    if vout < vin {
        v.mismatch(|| format!("the output has {vout} vertices, fewer than the input's {vin}"));
    }
    let mut moved = 0u64;
    for (i, (a, b)) in input.points.iter().zip(&output.points).enumerate() {
        if a != b {
            moved += 1;
            v.mismatch(|| format!("vertex {i}: expected {a} (as in the input), got {b}"));
        }
    }
    if !valid || vout < vin || moved > 0 {
        v.summary.push(
            "the domain, Delaunay and angle checks were skipped: the output is not a valid refinement of the input's vertices"
                .into(),
        );
        return Ok(v);
    }
    // (c) the same domain.
    let (ain, aout) = (input.area2(), output.area2());
    if ain != aout {
        v.mismatch(|| {
            format!(
                "the domain's doubled area is {aout} grid units^2, expected {ain} (the input's)"
            )
        });
    }
    check_boundary(input, output, &mut v);
    // (d) Delaunay.
    let nd = output.delaunay_violations();
    for p in &nd.first {
        v.mismatch(|| format!("not Delaunay: {p}"));
    }
    v.mismatch_count += nd.count - nd.first.len() as u64;
    // (e) quality.
    let mut min_angle = f64::INFINITY;
    let mut kept = 0u64;
    let mut kept_example = None;
    let mut cavity = Cavity::new();
    for t in 0..tout as u32 {
        let [a, b, c] = output.corners(t);
        let m = min_angle_deg(a, b, c);
        min_angle = min_angle.min(m);
        if m >= 30.0 - ANGLE_TOLERANCE_DEG {
            continue;
        }
        let shape = || format!("triangle {t} at {a} {b} {c}: smallest angle {m:.6} degrees");
        match plan(output, t, &mut cavity) {
            Some(Target::Unsplittable { tri, edge }) => {
                kept += 1;
                let w = output.tri_v[tri as usize];
                let (e0, e1) = (w[edge as usize], w[(edge as usize + 1) % 3]);
                kept_example.get_or_insert_with(|| {
                    format!(
                        "{}, to be refined by splitting boundary edge ({e0}, {e1}) of triangle {tri}, which has no grid point inside",
                        shape()
                    )
                });
            }
            Some(Target::AtVertex { vertex, .. }) => {
                kept += 1;
                kept_example.get_or_insert_with(|| {
                    format!("{}, its circumcenter already vertex {vertex}", shape())
                });
            }
            Some(Target::Insert { tri, p }) => v.mismatch(|| {
                format!(
                    "{} < 30: its circumcenter {p} could be inserted (it is in triangle {tri})",
                    shape()
                )
            }),
            Some(Target::Split { tri, edge, p }) => v.mismatch(|| {
                let w = output.tri_v[tri as usize];
                format!(
                    "{} < 30: boundary edge ({}, {}) of triangle {tri} (crossed or encroached by its circumcenter) could be split at {p}",
                    shape(),
                    w[edge as usize],
                    w[(edge as usize + 1) % 3]
                )
            }),
            None => v.mismatch(|| {
                format!(
                    "{} < 30, and the walk toward its circumcenter does not end",
                    shape()
                )
            }),
        }
    }
    v.kept_bad = kept;
    v.min_angle_deg = if min_angle.is_finite() {
        min_angle
    } else {
        0.0
    };
    v.summary.push(format!(
        "output minimum angle: {:.6} degrees (tolerance {ANGLE_TOLERANCE_DEG} degrees below 30)",
        v.min_angle_deg
    ));
    if kept > 0 {
        v.summary.push(format!(
            "kept bad: {kept} triangles that cannot be refined on the grid (allowed), e.g. {}",
            kept_example.unwrap_or_default()
        ));
    }
    v.summary.push(
        "checked: a valid mesh, the input's vertices kept, the same domain (area and boundary), every interior edge locally Delaunay, every angle at least 30 degrees"
            .into(),
    );
    Ok(v)
}

/// Directed boundary edges `(a, b)` of a mesh (the domain on the left).
fn boundary(m: &Mesh) -> Vec<(u32, u32)> {
    m.boundary_edges()
        .into_iter()
        .map(|(t, i)| {
            let w = m.tri_v[t as usize];
            (w[i as usize], w[(i as usize + 1) % 3])
        })
        .collect()
}

fn dot(u: (i128, i128), w: (i128, i128)) -> i128 {
    u.0 * w.0 + u.1 * w.1
}

fn sub(a: Point, b: Point) -> (i128, i128) {
    (
        i128::from(a.x) - i128::from(b.x),
        i128::from(a.y) - i128::from(b.y),
    )
}

/// Every input boundary edge `(c, d)` is a chain of output boundary edges from `c` to `d`, each
/// collinear with it, advancing toward `d` and within it; every output boundary edge belongs to
/// one chain.
fn check_boundary(input: &Mesh, output: &Mesh, v: &mut MeshVerdict) {
    let out = boundary(output);
    let mut by_start: HashMap<u32, Vec<usize>> = HashMap::new();
    for (k, &(a, _)) in out.iter().enumerate() {
        by_start.entry(a).or_default().push(k);
    }
    let mut used = vec![false; out.len()];
    let pt = |x: u32| output.points[x as usize];
    for (c, d) in boundary(input) {
        let (pc, pd) = (pt(c), pt(d));
        let along = sub(pd, pc);
        let len2 = dot(along, along);
        let mut cur = c;
        while cur != d {
            let next = by_start.get(&cur).and_then(|ks| {
                ks.iter().copied().find(|&k| {
                    let py = pt(out[k].1);
                    !used[k]
                        && orient(pc, pd, py) == 0
                        && dot(sub(py, pt(cur)), along) > 0
                        && dot(sub(py, pc), along) <= len2
                })
            });
            match next {
                Some(k) => {
                    used[k] = true;
                    cur = out[k].1;
                }
                None => {
                    v.mismatch(|| {
                        format!(
                            "input boundary edge ({c}, {d}) from {pc} to {pd} is not covered by output boundary edges (the chain from {c} stops at vertex {cur} at {})",
                            pt(cur)
                        )
                    });
                    break;
                }
            }
        }
    }
    for (k, &(a, b)) in out.iter().enumerate() {
        if !used[k] {
            v.mismatch(|| {
                format!(
                    "output boundary edge ({a}, {b}) from {} to {} lies on no input boundary edge",
                    pt(a),
                    pt(b)
                )
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::Point;
    use crate::mesh::generate::generate;
    use crate::mesh::refine::refine;

    fn p(x: i32, y: i32) -> Point {
        Point { x, y }
    }

    #[test]
    fn a_refined_mesh_matches_and_its_display_says_so() {
        let input = generate(200, 5).unwrap();
        let out = refine(&input).unwrap().mesh;
        let v = verify_refinement(&input, &out).unwrap();
        assert!(v.ok, "{v}");
        let text = v.to_string();
        assert!(text.starts_with("dmr: match\n  input: "), "{text}");
        assert!(v.min_angle_deg >= 30.0);
    }

    #[test]
    fn the_unrefined_input_is_a_mismatch() {
        let input = generate(200, 5).unwrap();
        let v = verify_refinement(&input, &input).unwrap();
        assert!(!v.ok);
        assert!(v.to_string().starts_with("dmr: MISMATCH\n"));
        assert!(
            v.mismatches[0].contains("could be inserted")
                || v.mismatches[0].contains("could be split"),
            "{v}"
        );
    }

    #[test]
    fn moved_vertices_and_broken_meshes_are_mismatches() {
        let input = generate(200, 5).unwrap();
        let out = refine(&input).unwrap().mesh;
        // An input vertex moved (by one unit, inward: still a valid mesh, maybe).
        let mut m = out.clone();
        m.points[10].x += 1;
        let v = verify_refinement(&input, &m).unwrap();
        assert!(!v.ok);
        assert!(
            v.mismatches
                .iter()
                .any(|s| s.starts_with("vertex 10: expected")),
            "{v}"
        );
        // A clockwise triangle.
        let mut m = out.clone();
        m.tri_v[3].swap(0, 1);
        let v = verify_refinement(&input, &m).unwrap();
        assert!(!v.ok);
        assert!(
            v.mismatches[0].starts_with("not a valid mesh: triangle 3:"),
            "{v}"
        );
        // A different scale.
        let mut m = out;
        m.scale *= 2.0;
        assert!(!verify_refinement(&input, &m).unwrap().ok);
    }

    #[test]
    fn a_non_delaunay_output_is_a_mismatch() {
        // The square of side 8 with a centre point, refined or not: flip an edge into a
        // non-Delaunay one.
        let input = Mesh::new(
            vec![p(0, 0), p(8, 0), p(8, 8), p(0, 8), p(4, 3)],
            vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]],
            0.0,
            0.0,
            1.0,
        )
        .unwrap();
        assert!(input.delaunay_violations().is_empty());
        // Output: the same points with the edge (2, 4) of the fan flipped to (1, 3) (the quad
        // 1-2-3-4 is convex): a valid mesh, but not Delaunay.
        let mut out = input.clone();
        out.tri_v[1] = [4, 1, 3];
        out.tri_v[2] = [3, 1, 2];
        out.compute_neighbours().unwrap();
        out.validate().unwrap();
        assert!(!out.delaunay_violations().is_empty());
        let v = verify_refinement(&input, &out).unwrap();
        assert!(!v.ok);
        assert!(
            v.mismatches
                .iter()
                .any(|s| s
                    .starts_with("not Delaunay: triangle 1: edge (1, 3) is not locally Delaunay")),
            "{v}"
        );
    }

    #[test]
    fn a_changed_domain_is_a_mismatch() {
        let input = Mesh::new(
            vec![p(0, 0), p(8, 0), p(8, 8), p(0, 8)],
            vec![[0, 1, 2], [0, 2, 3]],
            0.0,
            0.0,
            1.0,
        )
        .unwrap();
        // A point added off the bottom edge, inside: the domain loses a notch.
        let out = Mesh::new(
            vec![p(0, 0), p(8, 0), p(8, 8), p(0, 8), p(4, 1)],
            vec![[0, 4, 2], [4, 1, 2], [0, 2, 3]],
            0.0,
            0.0,
            1.0,
        )
        .unwrap();
        let v = verify_refinement(&input, &out).unwrap();
        assert!(!v.ok);
        let text = v.to_string();
        assert!(
            text.contains("the domain's doubled area is 120 grid units^2, expected 128"),
            "{text}"
        );
        assert!(
            text.contains("input boundary edge (0, 1) from (0, 0) to (8, 0) is not covered"),
            "{text}"
        );
        assert!(
            text.contains(
                "output boundary edge (0, 4) from (0, 0) to (4, 1) lies on no input boundary edge"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_input_that_is_not_delaunay_is_an_error() {
        let points = vec![p(0, 1), p(10, 2), p(20, 1), p(10, 0)];
        let m = Mesh::new(points, vec![[0, 3, 2], [0, 2, 1]], 0.0, 0.0, 1.0).unwrap();
        let e = verify_refinement(&m, &m).unwrap_err().to_string();
        assert!(
            e.starts_with("the input mesh is not exactly Delaunay: triangle 0: edge (2, 0)"),
            "{e}"
        );
        assert!(e.ends_with("(the algorithm needs a Delaunay input)"), "{e}");
    }

    #[test]
    fn unsplittable_boundaries_are_the_allowed_exception() {
        // A thin triangle whose circumcenter is beyond its long boundary edge of gcd 1:
        // nothing can be inserted, and the verdict allows it.
        let input = Mesh::new(
            vec![p(0, 0), p(7, 3), p(3, 2)],
            vec![[0, 1, 2]],
            0.0,
            0.0,
            1.0,
        )
        .unwrap();
        let r = refine(&input).unwrap();
        let v = verify_refinement(&input, &r.mesh).unwrap();
        assert!(v.ok, "{v}");
        assert!(v.kept_bad >= 1, "{v}");
        assert!(v.to_string().contains("kept bad: "), "{v}");
    }
}

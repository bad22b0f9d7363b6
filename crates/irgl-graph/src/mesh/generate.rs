//! Random exactly-Delaunay meshes of the square, the inputs of DMR benchmarks.
//!
//! [`generate`] draws distinct grid points uniformly in the open square `[1, GRID - 1]^2`
//! (ChaCha8 seeded with the seed) and adds the four corners, so the domain is the square
//! `[0, GRID]^2` and its hull is exactly the four corners. A Delaunay triangulation of `n`
//! points with `h` on the hull has `2n - 2 - h` triangles, so `ceil((T - 2) / 2)` random points
//! give `T` or `T + 1` triangles. The `delaunator` crate triangulates (its orientation test is
//! exact, its incircle test is not; the coordinates, integers below `2^28`, are exact as `f64`),
//! then Lawson flips under the exact [`incircle`](super::incircle) make every interior edge
//! locally Delaunay. Corners are vertices 0 to 3 (counterclockwise from the origin). World
//! coordinates are the unit square: origin 0, scale `2^-28`.

use std::collections::HashSet;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{GRID, MAX_COUNT, Mesh, NONE, Point, orient};
use crate::error::{GraphError, Result};

/// A random exactly-Delaunay mesh of the square with about `triangles` triangles (`triangles`
/// or one more), deterministic for a seed.
pub fn generate(triangles: u64, seed: u64) -> Result<Mesh> {
    if triangles < 2 {
        return Err(GraphError::Invalid(format!(
            "a mesh of the square needs at least 2 triangles, got {triangles}"
        )));
    }
    if triangles > MAX_COUNT - 1 {
        return Err(GraphError::Invalid(format!(
            "{triangles} triangles is too many: at most {} (ids are u32)",
            MAX_COUNT - 1
        )));
    }
    // The points, the set that keeps them distinct, the triangles and their neighbours.
    crate::memory::fits(
        128 * u128::from(triangles),
        &format!("a mesh of {triangles} triangles"),
    )?;
    let random = (triangles - 2).div_ceil(2);
    let g = GRID as i32;
    let mut points: Vec<Point> = vec![
        Point::new(0, 0),
        Point::new(g, 0),
        Point::new(g, g),
        Point::new(0, g),
    ];
    points.reserve(random as usize);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen: HashSet<u64> = HashSet::with_capacity(random as usize);
    let inner = (GRID - 1) as u64; // coordinates 1..=GRID-1
    while (points.len() as u64) < random + 4 {
        let r = rng.next_u64();
        // Two independent uniform draws from one 64-bit word (multiply-high on each half).
        let x = 1 + ((u64::from(r as u32) * inner) >> 32) as i32;
        let y = 1 + (((r >> 32) * inner) >> 32) as i32;
        if seen.insert((x as u64) << 32 | y as u64) {
            points.push(Point::new(x, y));
        }
    }
    drop(seen);
    let coords: Vec<delaunator::Point> = points
        .iter()
        .map(|p| delaunator::Point {
            x: f64::from(p.x),
            y: f64::from(p.y),
        })
        .collect();
    let d = delaunator::triangulate(&coords);
    drop(coords);
    let nt = d.triangles.len() / 3;
    let half = |e: usize| match d.halfedges[e] {
        delaunator::EMPTY => NONE,
        h => (h / 3) as u32,
    };
    let mut tri_v = Vec::with_capacity(nt);
    let mut tri_n = Vec::with_capacity(nt);
    for t in 0..nt {
        let v = [
            d.triangles[3 * t] as u32,
            d.triangles[3 * t + 1] as u32,
            d.triangles[3 * t + 2] as u32,
        ];
        let [a, b, c] = v.map(|x| points[x as usize]);
        match orient(a, b, c) {
            1 => {
                tri_v.push(v);
                tri_n.push([half(3 * t), half(3 * t + 1), half(3 * t + 2)]);
            }
            -1 => {
                // Reversed: the edges become (v0, v2), (v2, v1), (v1, v0).
                tri_v.push([v[0], v[2], v[1]]);
                tri_n.push([half(3 * t + 2), half(3 * t + 1), half(3 * t)]);
            }
            _ => {
                return Err(GraphError::Internal(format!(
                    "delaunator returned a degenerate triangle {t} ({a} {b} {c})"
                )));
            }
        }
    }
    drop(d);
    let mut mesh = Mesh {
        points,
        tri_v,
        tri_n,
        origin_x: 0.0,
        origin_y: 0.0,
        scale: 1.0 / GRID as f64,
    };
    mesh.validate()
        .map_err(|p| GraphError::Internal(format!("the generated mesh is not valid: {p}")))?;
    mesh.make_delaunay();
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_meshes_are_valid_and_exactly_delaunay() {
        for (t, seed) in [(2, 1), (3, 1), (10, 2), (1000, 3), (20001, 4)] {
            let m = generate(t, seed).unwrap();
            m.validate().unwrap();
            assert!(m.delaunay_violations().is_empty(), "{t} {seed}");
            assert!(m.num_triangles() == t || m.num_triangles() == t + 1, "{t}");
            assert_eq!(m.num_triangles(), 2 * m.num_vertices() - 6);
            assert_eq!(m.area2(), 2 * i128::from(GRID) * i128::from(GRID));
            assert_eq!(m.boundary_edges().len(), 4);
        }
    }

    #[test]
    fn deterministic_per_seed() {
        assert_eq!(generate(3000, 7).unwrap(), generate(3000, 7).unwrap());
        assert_ne!(
            generate(3000, 7).unwrap().points,
            generate(3000, 8).unwrap().points
        );
    }

    #[test]
    fn bad_sizes_are_errors() {
        assert_eq!(
            generate(1, 1).unwrap_err().to_string(),
            "a mesh of the square needs at least 2 triangles, got 1"
        );
    }
}

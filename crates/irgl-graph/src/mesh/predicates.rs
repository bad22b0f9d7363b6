//! Exact geometric predicates on grid points, and the angle measures of mesh quality.
//!
//! Every coordinate a predicate sees lies in `[-2^28, 2^29]` (domain points in `[0, 2^28]`, and
//! candidate points clamped to that range), so differences are below `2^30` in magnitude:
//!
//! - [`orient`]: a 2x2 determinant of differences, below `2^61`: exact in `i64`;
//! - [`incircle`]: with the points translated by `d`, lifted terms below `2^61` times 2x2
//!   determinants below `2^61`, three of them: below `2^124`, exact in `i128`;
//! - [`angle_below_30`]: `4 dot^2` and `3 |u|^2 |w|^2` below `2^124`: exact in `i128`.
//!
//! No floating point decides an orientation, an incircle test or the exact 30-degree test.
//! [`min_angle_deg`] is the floating-point measure (law of cosines) that refinement uses to pick
//! bad triangles, as the GPU program does.

use super::Point;

/// The sign of the doubled signed area of `(a, b, c)`: `+1` counterclockwise, `0` collinear,
/// `-1` clockwise.
pub fn orient(a: Point, b: Point, c: Point) -> i32 {
    orient_value(a, b, c).signum() as i32
}

/// The doubled signed area of `(a, b, c)`, `(b - a) x (c - a)`, exactly.
pub fn orient_value(a: Point, b: Point, c: Point) -> i64 {
    let (abx, aby) = (
        i64::from(b.x) - i64::from(a.x),
        i64::from(b.y) - i64::from(a.y),
    );
    let (acx, acy) = (
        i64::from(c.x) - i64::from(a.x),
        i64::from(c.y) - i64::from(a.y),
    );
    abx * acy - aby * acx
}

/// Whether `d` is inside the circle through `a`, `b`, `c`: `+1` strictly inside, `0` on it,
/// `-1` strictly outside when `(a, b, c)` is counterclockwise; the signs swap when it is
/// clockwise (Shewchuk's convention). Exact.
pub fn incircle(a: Point, b: Point, c: Point, d: Point) -> i32 {
    let rel = |p: Point| {
        (
            i64::from(p.x) - i64::from(d.x),
            i64::from(p.y) - i64::from(d.y),
        )
    };
    let (adx, ady) = rel(a);
    let (bdx, bdy) = rel(b);
    let (cdx, cdy) = rel(c);
    let lift = |x: i64, y: i64| i128::from(x * x + y * y);
    let cross = |x1: i64, y1: i64, x2: i64, y2: i64| i128::from(x1 * y2 - y1 * x2);
    let det = lift(adx, ady) * cross(bdx, bdy, cdx, cdy)
        + lift(bdx, bdy) * cross(cdx, cdy, adx, ady)
        + lift(cdx, cdy) * cross(adx, ady, bdx, bdy);
    det.signum() as i32
}

/// The smallest angle of the triangle `(a, b, c)` in degrees, in `f64` by the law of cosines
/// (the cosine clamped to `[-1, 1]`). A triangle with two equal corners has angle 0.
pub fn min_angle_deg(a: Point, b: Point, c: Point) -> f64 {
    let d2 = |p: Point, q: Point| {
        let dx = f64::from(p.x) - f64::from(q.x);
        let dy = f64::from(p.y) - f64::from(q.y);
        dx * dx + dy * dy
    };
    // Squared side lengths opposite a, b, c.
    let (la, lb, lc) = (d2(b, c), d2(c, a), d2(a, b));
    if la == 0.0 || lb == 0.0 || lc == 0.0 {
        return 0.0;
    }
    // The smallest angle is opposite the shortest side.
    let (opp, s1, s2) = if la <= lb && la <= lc {
        (la, lb, lc)
    } else if lb <= lc {
        (lb, lc, la)
    } else {
        (lc, la, lb)
    };
    let cos = ((s1 + s2 - opp) / (2.0 * (s1 * s2).sqrt())).clamp(-1.0, 1.0);
    cos.acos().to_degrees()
}

/// Whether some angle of the triangle `(a, b, c)` is below 30 degrees, exactly: at a corner with
/// edge vectors `u` and `w`, `dot(u, w) > 0 && 4 dot^2 > 3 |u|^2 |w|^2` (the cosine exceeds
/// `sqrt(3) / 2`). A triangle with two equal corners counts as below 30 degrees.
pub fn angle_below_30(a: Point, b: Point, c: Point) -> bool {
    if a == b || b == c || c == a {
        return true;
    }
    [(a, b, c), (b, c, a), (c, a, b)]
        .into_iter()
        .any(|(p, q, r)| corner_below_30(p, q, r))
}

fn corner_below_30(p: Point, q: Point, r: Point) -> bool {
    let (ux, uy) = (
        i64::from(q.x) - i64::from(p.x),
        i64::from(q.y) - i64::from(p.y),
    );
    let (wx, wy) = (
        i64::from(r.x) - i64::from(p.x),
        i64::from(r.y) - i64::from(p.y),
    );
    let dot = ux * wx + uy * wy;
    if dot <= 0 {
        return false;
    }
    let dot = i128::from(dot);
    let uu = i128::from(ux * ux + uy * uy);
    let ww = i128::from(wx * wx + wy * wy);
    4 * dot * dot > 3 * uu * ww
}

/// The circumcenter of the counterclockwise triangle `(a, b, c)`, computed in `f64` from the
/// integer coordinates, rounded to the nearest grid point (halves away from zero) and clamped to
/// `[-2^28, 2^29]` per coordinate: with `b - a = (bx, by)`, `c - a = (cx, cy)`,
/// `d = 2 (bx cy - by cx)`, the center is `a + ((cy |b-a|^2 - by |c-a|^2) / d,
/// (bx |c-a|^2 - cx |b-a|^2) / d)`. `None` for a degenerate triangle.
pub fn circumcenter(a: Point, b: Point, c: Point) -> Option<Point> {
    let area2 = orient_value(a, b, c);
    if area2 == 0 {
        return None;
    }
    let bx = f64::from(b.x) - f64::from(a.x);
    let by = f64::from(b.y) - f64::from(a.y);
    let cx = f64::from(c.x) - f64::from(a.x);
    let cy = f64::from(c.y) - f64::from(a.y);
    let b2 = bx * bx + by * by;
    let c2 = cx * cx + cy * cy;
    let d = 2.0 * area2 as f64;
    let ux = (cy * b2 - by * c2) / d;
    let uy = (bx * c2 - cx * b2) / d;
    let lo = -(super::GRID as f64);
    let hi = 2.0 * super::GRID as f64;
    let round = |base: i32, off: f64| (f64::from(base) + off).round().clamp(lo, hi) as i32;
    Some(Point {
        x: round(a.x, ux),
        y: round(a.y, uy),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: i32, y: i32) -> Point {
        Point { x, y }
    }

    const G: i32 = 1 << 28;

    #[test]
    fn orient_signs() {
        assert_eq!(orient(p(0, 0), p(1, 0), p(0, 1)), 1);
        assert_eq!(orient(p(0, 0), p(0, 1), p(1, 0)), -1);
        assert_eq!(orient(p(0, 0), p(1, 1), p(2, 2)), 0);
        // The extremes of the range: no overflow.
        let lo = -G;
        let hi = 2 * G;
        assert_eq!(orient(p(lo, lo), p(hi, lo), p(lo, hi)), 1);
        assert_eq!(orient(p(lo, lo), p(hi, hi), p(lo + 3, lo + 3)), 0);
    }

    #[test]
    fn orient_is_exact_where_f64_is_not() {
        // Three collinear points far from the origin: c - a = 98532 (b - a).
        let a = p(239807787, 143485685);
        let b = p(239808279, 143485934);
        let c = p(288260931, 168007703);
        assert_eq!(orient_value(a, b, c), 0);
        assert_eq!(orient(a, b, c), 0);
        assert_eq!(orient(a, b, p(c.x - 1, c.y)), 1);
        assert_eq!(orient(a, b, p(c.x + 1, c.y)), -1);
        // The textbook expansion in f64, without translating to `a` first: products near
        // 2^56 cancel and the rounding error decides the sign.
        let naive = |a: Point, b: Point, c: Point| {
            let (ax, ay) = (f64::from(a.x), f64::from(a.y));
            let (bx, by) = (f64::from(b.x), f64::from(b.y));
            let (cx, cy) = (f64::from(c.x), f64::from(c.y));
            (bx * cy - by * cx) - (ax * cy - ay * cx) + (ax * by - ay * bx)
        };
        assert_eq!(naive(a, b, c), -4.0);
    }

    #[test]
    fn incircle_signs_and_orientation() {
        let (a, b, c) = (p(0, 0), p(4, 0), p(0, 4));
        assert_eq!(incircle(a, b, c, p(1, 1)), 1);
        assert_eq!(incircle(a, b, c, p(4, 4)), 0); // cocircular: the square's fourth corner
        assert_eq!(incircle(a, b, c, p(5, 5)), -1);
        // Clockwise: signs swap.
        assert_eq!(incircle(a, c, b, p(1, 1)), -1);
        assert_eq!(incircle(a, c, b, p(5, 5)), 1);
    }

    #[test]
    fn incircle_is_exact_where_f64_is_not() {
        // Four points on the circle of radius 5^11 around (2^27, 2^27): exactly cocircular.
        let a = p(169085525, 168399924);
        let b = p(93045853, 160467728);
        let c = p(169085525, 100035532);
        let d = p(175389603, 160467728);
        assert_eq!(orient(a, b, c), 1);
        assert_eq!(incircle(a, b, c, d), 0);
        assert_eq!(incircle(a, b, c, p(d.x - 1, d.y)), 1);
        assert_eq!(incircle(a, b, c, p(d.x + 1, d.y)), -1);
        // The same determinant in f64 (translated to d, as here) says "outside".
        let f = |q: Point| (f64::from(q.x - d.x), f64::from(q.y - d.y));
        let ((ax, ay), (bx, by), (cx, cy)) = (f(a), f(b), f(c));
        let naive = (ax * ax + ay * ay) * (bx * cy - by * cx)
            + (bx * bx + by * by) * (cx * ay - cy * ax)
            + (cx * cx + cy * cy) * (ax * by - ay * bx);
        assert_eq!(naive, -281474976710656.0);
    }

    #[test]
    fn angles() {
        // Equilateral-ish: 60 degrees.
        let m = min_angle_deg(p(0, 0), p(1000, 0), p(500, 866));
        assert!((m - 60.0).abs() < 0.01, "{m}");
        assert!(!angle_below_30(p(0, 0), p(1000, 0), p(500, 866)));
        // Right isoceles: 45.
        assert!((min_angle_deg(p(0, 0), p(10, 0), p(0, 10)) - 45.0).abs() < 1e-9);
        // A sliver.
        assert!(min_angle_deg(p(0, 0), p(100, 0), p(50, 1)) < 2.0);
        assert!(angle_below_30(p(0, 0), p(100, 0), p(50, 1)));
        // Degenerate.
        assert_eq!(min_angle_deg(p(0, 0), p(0, 0), p(1, 1)), 0.0);
        assert!(angle_below_30(p(0, 0), p(0, 0), p(1, 1)));
    }

    #[test]
    fn angle_below_30_is_exact_near_30_degrees() {
        // tan(30) = 0.57735026918962576...; (1_000_000_000 isn't in range) use x = 2^28 - 1:
        // y = floor(x tan 30) gives an angle just below 30, y + 1 just above.
        let x: i64 = (1 << 28) - 1;
        let y = ((x as f64) * (30f64).to_radians().tan()).floor() as i64;
        // Check which side each is on exactly: y/x < 1/sqrt(3)  <=>  3 y^2 < x^2.
        let below = 3 * y * y < x * x;
        let above = 3 * (y + 1) * (y + 1) > x * x;
        assert!(below && above);
        // Right triangle with the small angle at the origin: (0,0), (x,0), (x,y).
        let t_below = (p(0, 0), p(x as i32, 0), p(x as i32, y as i32));
        let t_above = (p(0, 0), p(x as i32, 0), p(x as i32, (y + 1) as i32));
        assert!(angle_below_30(t_below.0, t_below.1, t_below.2));
        assert!(!angle_below_30(t_above.0, t_above.1, t_above.2));
        // Both are within a few 1e-7 degrees of 30 in f64.
        let mb = min_angle_deg(t_below.0, t_below.1, t_below.2);
        let ma = min_angle_deg(t_above.0, t_above.1, t_above.2);
        assert!(
            (mb - 30.0).abs() < 1e-6 && (ma - 30.0).abs() < 1e-6,
            "{mb} {ma}"
        );
    }

    #[test]
    fn circumcenter_rounds_and_clamps() {
        assert_eq!(circumcenter(p(0, 0), p(10, 0), p(0, 10)), Some(p(5, 5)));
        assert_eq!(circumcenter(p(0, 0), p(1, 1), p(2, 2)), None);
        // A sliver far from its circumcenter: clamped.
        let c = circumcenter(p(0, 0), p(G, 0), p(G / 2, 1)).unwrap();
        assert_eq!(c.x, G / 2);
        assert_eq!(c.y, -G);
    }
}

//! Triangle counting on the graph taken as undirected and simple.
//!
//! [`triangles`] orients each edge from the endpoint of lower (degree, id) to the higher one and
//! intersects sorted forward lists, `O(E^1.5)`. [`triangles_by_edges`] is a plainer second
//! reference for tests: for every edge `u < v`, count common neighbours `w > v`.

use crate::csr::Csr;

/// Number of triangles of the undirected simple view of `g`.
pub fn triangles(g: &Csr) -> u64 {
    triangles_of_simple(&g.undirected_simple())
}

/// Triangles of a graph that is already symmetric, simple and sorted.
pub fn triangles_of_simple(u: &Csr) -> u64 {
    let key = |v: u32| (u.degree(v), v);
    let mut offsets = Vec::with_capacity(u.n as usize + 1);
    let mut fwd: Vec<u32> = Vec::with_capacity(u.dst.len() / 2);
    offsets.push(0usize);
    for v in 0..u.n {
        fwd.extend(u.neighbours(v).iter().copied().filter(|&w| key(w) > key(v)));
        offsets.push(fwd.len());
    }
    let list = |v: u32| &fwd[offsets[v as usize]..offsets[v as usize + 1]];
    let mut count = 0u64;
    for v in 0..u.n {
        for &w in list(v) {
            count += intersect(list(v), list(w));
        }
    }
    count
}

/// Triangles counted edge by edge, for tests.
pub fn triangles_by_edges(g: &Csr) -> u64 {
    let u = g.undirected_simple();
    let mut count = 0;
    for a in 0..u.n {
        for &b in u.neighbours(a).iter().filter(|&&b| b > a) {
            let above = |x: &[u32]| x.iter().copied().filter(|&w| w > b).collect::<Vec<_>>();
            count += intersect(&above(u.neighbours(a)), &above(u.neighbours(b)));
        }
    }
    count
}

/// Size of the intersection of two sorted lists.
fn intersect(a: &[u32], b: &[u32]) -> u64 {
    let (mut i, mut j, mut c) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                c += 1;
                i += 1;
                j += 1;
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: u32, edges: &[(u32, u32)]) -> Csr {
        Csr::from_pairs(n, edges)
    }

    #[test]
    fn k4_has_four_triangles() {
        let g = graph(4, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        assert_eq!(triangles(&g), 4);
        assert_eq!(triangles_by_edges(&g), 4);
    }

    #[test]
    fn direction_duplicates_and_loops_do_not_count() {
        // One triangle 0-1-2 given with mixed directions, a duplicate and a self-loop; a tail 2-3.
        let g = graph(4, &[(0, 1), (1, 0), (2, 1), (0, 2), (0, 2), (2, 2), (2, 3)]);
        assert_eq!(triangles(&g), 1);
        assert_eq!(triangles_by_edges(&g), 1);
    }
}

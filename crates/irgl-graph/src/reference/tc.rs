//! Triangle counting on the graph taken as undirected and simple.
//!
//! [`triangles`] ranks the nodes by (degree, id), orients each edge from the endpoint of lower
//! rank to the higher one and counts, for each node and each node of its forward list, the nodes of the latter's forward
//! list that are in the former's, `O(E^1.5)`, nodes in parallel. [`triangles_by_edges`] is a plainer second
//! reference for tests: for every edge `u < v`, count common neighbours `w > v`.

use rayon::prelude::*;

use crate::csr::Csr;
use crate::par;

/// Number of triangles of the undirected simple view of `g`.
pub fn triangles(g: &Csr) -> u64 {
    triangles_of_simple(&g.undirected_simple())
}

/// Triangles of a graph that is already symmetric, simple and sorted.
pub fn triangles_of_simple(u: &Csr) -> u64 {
    let n = u.n as usize;
    // Nodes are renumbered by rank in (degree, id) order, so that the forward lists point up
    // the ranks and the hubs, which most lookups below visit, sit together at the top.
    let mut order: Vec<u32> = (0..u.n).collect();
    order.par_sort_unstable_by_key(|&v| (u.degree(v), v));
    let mut rank = vec![0u32; n];
    let ranks = par::Scatter::new(&mut rank);
    order.par_iter().enumerate().for_each(|(r, &v)| {
        // SAFETY: `order` is a permutation, so each node's rank is written once.
        unsafe { ranks.write(v as usize, r as u32) }
    });
    let mut degrees: Vec<u64> = order.par_iter().map(|&v| u.degree(v)).collect();
    degrees.push(0);
    par::exclusive_prefix_sums(&mut degrees);
    // The forward lists of the ranked nodes: each one's neighbours of higher rank, two passes
    // over rank ranges (count, then copy) in parallel.
    let forward = |r: usize| {
        let above = r as u32;
        u.neighbours(order[r])
            .iter()
            .map(|&w| rank[w as usize])
            .filter(move |&x| x > above)
    };
    let (offsets, fwd, _) = par::build_lists(
        n,
        &par::edge_ranges(&degrees),
        false,
        |r| forward(r).count() as u64,
        |r, list, _| {
            for (x, w) in list.iter_mut().zip(forward(r)) {
                *x = w;
            }
        },
    );
    drop((order, rank, degrees));
    let list = |v: u32| &fwd[offsets[v as usize] as usize..offsets[v as usize + 1] as usize];
    // Each triangle v < w < x (in rank) is found once, from v: v's forward list is marked in
    // a bitmap, and each x of the forward list of each w in it is looked up there. That costs
    // the forward lists of v's neighbours, where merging two sorted lists would cost v's list
    // again for each w (the square of the forward degrees).
    // A node costs the forward lists of its forward neighbours: the ranges balance that, not
    // the node's own edges (a hub's short list can cost the most).
    let mut cost: Vec<u64> = (0..n)
        .into_par_iter()
        .map(|v| list(v as u32).iter().map(|&w| list(w).len() as u64).sum())
        .collect();
    cost.push(0);
    par::exclusive_prefix_sums(&mut cost);
    let words = n.div_ceil(64);
    par::node_ranges(n, |v| cost[v])
        .into_par_iter()
        .map_init(
            || vec![0u64; words],
            |marks, r| {
                let mut count = 0u64;
                for v in r {
                    let mine = list(v as u32);
                    for &w in mine {
                        marks[w as usize / 64] |= 1 << (w % 64);
                    }
                    for &w in mine {
                        count += list(w)
                            .iter()
                            .filter(|&&x| marks[x as usize / 64] & (1 << (x % 64)) != 0)
                            .count() as u64;
                    }
                    for &w in mine {
                        marks[w as usize / 64] = 0;
                    }
                }
                count
            },
        )
        .sum()
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

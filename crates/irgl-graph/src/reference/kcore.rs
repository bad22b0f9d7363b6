//! Core numbers, by the bucket algorithm of Batagelj and Zaversnik ("An O(m) algorithm for
//! cores decomposition of networks", 2003): take the nodes in order of their current degree,
//! each time lowering the degree of the neighbours of the node taken.
//!
//! Degrees are the lengths of the adjacency lists, so a symmetric graph gives the cores of the
//! undirected graph (as `kcore` programs require: `graph g : symmetric, simple`).

use crate::csr::Csr;

/// The core number of every node.
pub fn core_numbers(g: &Csr) -> Vec<u32> {
    let n = g.n as usize;
    let mut deg: Vec<usize> = (0..g.n).map(|v| g.neighbours(v).len()).collect();
    let max = deg.iter().copied().max().unwrap_or(0);
    // bin[d]: where the nodes of degree d start in `vert`, which lists the nodes by degree.
    let mut bin = vec![0usize; max + 2];
    for &d in &deg {
        bin[d] += 1;
    }
    let mut start = 0;
    for b in bin.iter_mut() {
        let count = *b;
        *b = start;
        start += count;
    }
    let mut pos = vec![0usize; n];
    let mut vert = vec![0u32; n];
    for v in 0..n {
        pos[v] = bin[deg[v]];
        vert[pos[v]] = v as u32;
        bin[deg[v]] += 1;
    }
    for d in (1..bin.len()).rev() {
        bin[d] = bin[d - 1];
    }
    bin[0] = 0;
    for i in 0..n {
        let v = vert[i] as usize;
        for &u in g.neighbours(v as u32) {
            let u = u as usize;
            if deg[u] > deg[v] {
                // Move u to the front of its bin, then shrink the bin past it.
                let du = deg[u];
                let (pu, pw) = (pos[u], bin[du]);
                let w = vert[pw] as usize;
                if u != w {
                    pos[u] = pw;
                    vert[pu] = w as u32;
                    pos[w] = pu;
                    vert[pw] = u as u32;
                }
                bin[du] += 1;
                deg[u] -= 1;
            }
        }
    }
    deg.into_iter().map(|d| d as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symmetric(n: u32, edges: &[(u32, u32)]) -> Csr {
        let mut all = Vec::new();
        for &(a, b) in edges {
            all.push((a, b));
            all.push((b, a));
        }
        Csr::from_pairs(n, &all)
    }

    #[test]
    fn a_triangle_with_a_tail() {
        // 0-1-2 a triangle (core 2), 3 hangs off 2 (core 1), 4 alone (core 0).
        let g = symmetric(5, &[(0, 1), (1, 2), (2, 0), (2, 3)]);
        assert_eq!(core_numbers(&g), vec![2, 2, 2, 1, 0]);
    }

    #[test]
    fn a_clique_and_a_path() {
        // K4 on 0..4 (core 3), path 4-5-6 attached to 0 (core 1).
        let g = symmetric(
            7,
            &[
                (0, 1),
                (0, 2),
                (0, 3),
                (1, 2),
                (1, 3),
                (2, 3),
                (0, 4),
                (4, 5),
                (5, 6),
            ],
        );
        assert_eq!(core_numbers(&g), vec![3, 3, 3, 3, 1, 1, 1]);
    }

    /// Against the definition: peel, one node of least degree at a time.
    #[test]
    fn matches_naive_peeling() {
        let mut edges = Vec::new();
        let mut x: u64 = 12345;
        for _ in 0..300 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = ((x >> 33) % 60) as u32;
            let b = ((x >> 13) % 60) as u32;
            if a != b && !edges.contains(&(a, b)) && !edges.contains(&(b, a)) {
                edges.push((a, b));
            }
        }
        let g = symmetric(60, &edges);
        let mut deg: Vec<usize> = (0..60).map(|v| g.neighbours(v).len()).collect();
        let mut left = [true; 60];
        let mut core = vec![0u32; 60];
        let mut k = 0;
        for _ in 0..60 {
            let v = (0..60)
                .filter(|&v| left[v])
                .min_by_key(|&v| deg[v])
                .unwrap();
            k = k.max(deg[v]);
            core[v] = k as u32;
            left[v] = false;
            for &u in g.neighbours(v as u32) {
                if left[u as usize] {
                    deg[u as usize] -= 1;
                }
            }
        }
        assert_eq!(core_numbers(&g), core);
    }
}

//! Betweenness centrality from one source (Brandes 2001): the dependency `delta(v)` of the
//! source on every node, along out-edges, unweighted. A BFS counts the shortest paths to each
//! node (`sigma`), then the nodes are taken in the reverse of the order found:
//! `delta(v) = sum over successors w (dist(w) = dist(v) + 1) of sigma(v) / sigma(w) (1 +
//! delta(w))`. The source and the nodes it does not reach get 0.

use std::collections::VecDeque;

use crate::INF_U32;
use crate::csr::Csr;

/// `delta(v)` for every node, from `src`.
pub fn dependencies(g: &Csr, src: u32) -> Vec<f64> {
    let n = g.n as usize;
    let mut dist = vec![INF_U32; n];
    let mut sigma = vec![0f64; n];
    let mut delta = vec![0f64; n];
    let mut order = Vec::with_capacity(n);
    if src >= g.n {
        return delta;
    }
    dist[src as usize] = 0;
    sigma[src as usize] = 1.0;
    let mut queue = VecDeque::from([src]);
    while let Some(v) = queue.pop_front() {
        order.push(v);
        for &w in g.neighbours(v) {
            if dist[w as usize] == INF_U32 {
                dist[w as usize] = dist[v as usize] + 1;
                queue.push_back(w);
            }
            if dist[w as usize] == dist[v as usize] + 1 {
                sigma[w as usize] += sigma[v as usize];
            }
        }
    }
    for &v in order.iter().rev() {
        let mut total = 0.0;
        for &w in g.neighbours(v) {
            if dist[w as usize] == dist[v as usize] + 1 {
                total += sigma[v as usize] / sigma[w as usize] * (1.0 + delta[w as usize]);
            }
        }
        delta[v as usize] = total;
    }
    delta[src as usize] = 0.0;
    delta
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diamond_splits_the_paths() {
        // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 4: two shortest paths to 3 and 4.
        let g = Csr::from_pairs(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]);
        let d = dependencies(&g, 0);
        // 3 is on every path to 4: delta(3) = 1. 1 and 2 carry half of the paths to 3 and 4.
        assert_eq!(d, vec![0.0, 1.0, 1.0, 1.0, 0.0]);
    }

    /// Against the definition: count the shortest paths through each node by brute force.
    #[test]
    fn matches_path_counting() {
        let mut edges = Vec::new();
        let mut x: u64 = 99;
        for _ in 0..90 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            edges.push((((x >> 33) % 25) as u32, ((x >> 17) % 25) as u32));
        }
        let g = Csr::from_pairs(25, &edges);
        // dist and path counts between all pairs by BFS from every node.
        let n = 25usize;
        let mut dist = vec![vec![INF_U32; n]; n];
        let mut count = vec![vec![0f64; n]; n];
        for s in 0..n {
            dist[s][s] = 0;
            count[s][s] = 1.0;
            let mut q = VecDeque::from([s as u32]);
            while let Some(v) = q.pop_front() {
                for &w in g.neighbours(v) {
                    let (v, w) = (v as usize, w as usize);
                    if dist[s][w] == INF_U32 {
                        dist[s][w] = dist[s][v] + 1;
                        q.push_back(w as u32);
                    }
                    if dist[s][w] == dist[s][v] + 1 {
                        count[s][w] += count[s][v];
                    }
                }
            }
        }
        let d = dependencies(&g, 0);
        for v in 1..n {
            let mut expected = 0.0;
            for t in 0..n {
                if t == v || t == 0 || dist[0][t] == INF_U32 || dist[0][v] == INF_U32 {
                    continue;
                }
                if dist[v][t] != INF_U32 && dist[0][v] + dist[v][t] == dist[0][t] {
                    expected += count[0][v] * count[v][t] / count[0][t];
                }
            }
            assert!(
                (d[v] - expected).abs() < 1e-9,
                "node {v}: {} vs {expected}",
                d[v]
            );
        }
    }
}

//! PageRank, with the convention the generated programs follow (docs/graphs.md):
//!
//! - `r(v) = (1 - alpha) / N + alpha * sum over edges u -> v of r(u) / outdeg(u)`;
//! - initial `r(v) = 1 / N`;
//! - dangling nodes (out-degree 0) lose their mass: it is not redistributed, so ranks sum to
//!   less than 1 on graphs with dangling nodes;
//! - parallel edges count with their multiplicity, self-loops like any edge;
//! - Jacobi iteration until `max_v |r_new(v) - r_old(v)| < tol`, or `max_iter` iterations.

use rayon::prelude::*;

use crate::csr::Csr;

/// PageRank parameters, as the program's `param` lines give them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageRankParams {
    pub alpha: f64,
    pub tol: f64,
    pub max_iter: u64,
}

/// Ranks and the number of iterations run.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRank {
    pub rank: Vec<f64>,
    pub iterations: u64,
    /// `max_v |r_new(v) - r_old(v)|` of the last iteration.
    pub last_change: f64,
}

/// Computes PageRank under the convention above.
pub fn pagerank(g: &Csr, p: PageRankParams) -> PageRank {
    let n = g.n as usize;
    if n == 0 {
        return PageRank {
            rank: Vec::new(),
            iterations: 0,
            last_change: 0.0,
        };
    }
    let base = (1.0 - p.alpha) / n as f64;
    // Pulled over the reverse lists, whose sources are in increasing order: each node adds
    // its in-neighbours' shares in the order a push over the nodes would, so the sums (and
    // the ranks) are the same bits whatever the threads.
    let rev = g.reverse();
    let degree: Vec<f64> = (0..g.n)
        .into_par_iter()
        .map(|u| g.degree(u) as f64)
        .collect();
    let mut rank = vec![1.0 / n as f64; n];
    let mut next = vec![0.0f64; n];
    let mut iterations = 0;
    let mut last_change = f64::INFINITY;
    let mut share = vec![0.0f64; n];
    while iterations < p.max_iter {
        share
            .par_iter_mut()
            .enumerate()
            .with_min_len(1 << 12)
            .for_each(|(u, s)| *s = p.alpha * rank[u] / degree[u]);
        next.par_iter_mut()
            .enumerate()
            .with_min_len(1 << 12)
            .for_each(|(v, x)| {
                let sources = &rev.src[rev.offsets[v] as usize..rev.offsets[v + 1] as usize];
                *x = sources.iter().fold(base, |acc, &u| acc + share[u as usize]);
            });
        last_change = rank
            .par_iter()
            .zip(&next)
            .map(|(a, b)| (a - b).abs())
            .reduce(|| 0.0, f64::max);
        std::mem::swap(&mut rank, &mut next);
        iterations += 1;
        if last_change < p.tol {
            break;
        }
    }
    PageRank {
        rank,
        iterations,
        last_change,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: u32, edges: &[(u32, u32)]) -> Csr {
        Csr::from_pairs(n, edges)
    }

    const P: PageRankParams = PageRankParams {
        alpha: 0.85,
        tol: 1e-12,
        max_iter: 1000,
    };

    #[test]
    fn a_cycle_is_uniform() {
        let r = pagerank(&graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]), P);
        assert!(r.rank.iter().all(|&x| (x - 0.25).abs() < 1e-12));
        assert!(r.iterations <= 2);
    }

    #[test]
    fn hand_computed_star_with_dangling_centre() {
        // 1 -> 0, 2 -> 0; node 0 is dangling. r1 = r2 = 0.15/3 = 0.05,
        // r0 = 0.05 + 0.85 * (0.05 + 0.05) = 0.135.
        let r = pagerank(&graph(3, &[(1, 0), (2, 0)]), P);
        assert!((r.rank[1] - 0.05).abs() < 1e-12);
        assert!((r.rank[0] - 0.135).abs() < 1e-12);
        let sum: f64 = r.rank.iter().sum();
        assert!(sum < 1.0, "dangling mass is dropped");
    }

    #[test]
    fn two_node_closed_form() {
        // 0 -> 1, 1 -> 0, 1 -> 1: r0 = 0.075 + 0.85 r1 / 2, r1 = 0.075 + 0.85 (r0 + r1 / 2).
        // Solving: r1 = 0.075 + 0.85 r0 + 0.425 r1, r0 = 0.075 + 0.425 r1
        // => r1 (0.575 - 0.36125) = 0.075 + 0.06375 => r1 = 0.13875 / 0.21375.
        let r = pagerank(&graph(2, &[(0, 1), (1, 0), (1, 1)]), P);
        let r1 = 0.13875 / 0.21375;
        assert!((r.rank[1] - r1).abs() < 1e-10);
        assert!((r.rank[0] - (0.075 + 0.425 * r1)).abs() < 1e-10);
    }

    #[test]
    fn max_iter_stops_early() {
        let r = pagerank(
            &graph(3, &[(1, 0), (2, 0)]),
            PageRankParams { max_iter: 1, ..P },
        );
        assert_eq!(r.iterations, 1);
    }
}

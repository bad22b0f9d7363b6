//! Breadth-first search: hop counts along out-edges from a source.
//!
//! Level by level: a level whose frontier is small is expanded by one thread (a path or a road
//! network has thousands of such levels, where a parallel step would cost more than its work);
//! a large one by all cores, each node claimed by the first thread whose compare-and-swap sets
//! its level. The levels are the same whatever the threads (a node's level is its distance).

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::INF_U32;
use crate::csr::Csr;

/// Frontiers of fewer nodes than this are expanded by one thread.
const PARALLEL_FRONTIER: usize = 1024;

/// Level of every node from `src` (`src` is 0), [`INF_U32`] where unreachable.
pub fn bfs_levels(g: &Csr, src: u32) -> Vec<u32> {
    let level: Vec<AtomicU32> = (0..g.n)
        .into_par_iter()
        .map(|_| AtomicU32::new(INF_U32))
        .collect();
    if src < g.n {
        level[src as usize].store(0, Ordering::Relaxed);
        let mut frontier = vec![src];
        let mut depth = 0u32;
        while !frontier.is_empty() {
            depth += 1;
            let claim = |v: u32| {
                let l = &level[v as usize];
                l.load(Ordering::Relaxed) == INF_U32
                    && l.compare_exchange(INF_U32, depth, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
            };
            frontier = if frontier.len() < PARALLEL_FRONTIER {
                let mut next = Vec::new();
                for &u in &frontier {
                    next.extend(g.neighbours(u).iter().copied().filter(|&v| claim(v)));
                }
                next
            } else {
                frontier
                    .par_iter()
                    .with_min_len(64)
                    .flat_map_iter(|&u| g.neighbours(u).iter().copied().filter(|&v| claim(v)))
                    .collect()
            };
        }
    }
    level.into_par_iter().map(AtomicU32::into_inner).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    #[test]
    fn levels_on_a_small_digraph() {
        // 0 -> 1 -> 2 -> 3, 0 -> 2, 4 isolated, 3 -> 0.
        let mut l = EdgeList::new(5, false);
        for (u, v) in [(0, 1), (1, 2), (2, 3), (0, 2), (3, 0)] {
            l.push(u, v, 0);
        }
        let g = Csr::from_edge_list(l);
        assert_eq!(bfs_levels(&g, 0), vec![0, 1, 1, 2, INF_U32]);
        assert_eq!(bfs_levels(&g, 3), vec![1, 2, 2, 0, INF_U32]);
    }
}

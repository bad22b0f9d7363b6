//! Breadth-first search: hop counts along out-edges from a source.

use std::collections::VecDeque;

use crate::INF_U32;
use crate::csr::Csr;

/// Level of every node from `src` (`src` is 0), [`INF_U32`] where unreachable.
pub fn bfs_levels(g: &Csr, src: u32) -> Vec<u32> {
    let mut level = vec![INF_U32; g.n as usize];
    if src >= g.n {
        return level;
    }
    let mut queue = VecDeque::new();
    level[src as usize] = 0;
    queue.push_back(src);
    while let Some(u) = queue.pop_front() {
        let next = level[u as usize] + 1;
        for &v in g.neighbours(u) {
            if level[v as usize] == INF_U32 {
                level[v as usize] = next;
                queue.push_back(v);
            }
        }
    }
    level
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

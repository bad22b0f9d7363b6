//! Maximal independent sets. Many sets are right, so a GPU answer is checked, not compared:
//! [`check`] verifies independence (no edge joins two members) and maximality (every non-member
//! has a member neighbour) on the graph taken as undirected, ignoring self-loops.
//! [`greedy`] gives one valid answer, for tests.

use crate::csr::Csr;

/// A reason a set is not a maximal independent set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MisProblem {
    /// Both ends of the edge `u -> v` are in the set.
    Dependent { u: u32, v: u32 },
    /// `v` is not in the set and none of its neighbours is: it could be added.
    NotMaximal { v: u32 },
}

impl std::fmt::Display for MisProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MisProblem::Dependent { u, v } => {
                write!(
                    f,
                    "nodes {u} and {v} are both in the set but joined by an edge"
                )
            }
            MisProblem::NotMaximal { v } => write!(
                f,
                "node {v} is not in the set and has no neighbour in it (the set is not maximal)"
            ),
        }
    }
}

/// All problems of `in_set` as a maximal independent set of `g` (empty when it is one).
/// Each dependent edge is reported once, from its smaller end.
pub fn check(g: &Csr, in_set: &[bool]) -> Vec<MisProblem> {
    let mut problems = Vec::new();
    // Covered: in the set, or has a neighbour in it, in either direction.
    let mut covered: Vec<bool> = in_set.to_vec();
    for u in 0..g.n {
        for &v in g.neighbours(u) {
            if u == v {
                continue;
            }
            let (a, b) = (in_set[u as usize], in_set[v as usize]);
            if a && b {
                let (x, y) = (u.min(v), u.max(v));
                if !(u > v && g.has_edge(v, u)) {
                    problems.push(MisProblem::Dependent { u: x, v: y });
                }
            }
            if a {
                covered[v as usize] = true;
            }
            if b {
                covered[u as usize] = true;
            }
        }
    }
    problems.sort_by_key(|p| match p {
        MisProblem::Dependent { u, v } => (*u, *v),
        MisProblem::NotMaximal { v } => (*v, 0),
    });
    problems.dedup();
    for v in 0..g.n {
        if !covered[v as usize] {
            problems.push(MisProblem::NotMaximal { v });
        }
    }
    problems
}

/// The greedy maximal independent set in increasing node order.
pub fn greedy(g: &Csr) -> Vec<bool> {
    let u = g.undirected_simple();
    let mut in_set = vec![false; u.n as usize];
    let mut blocked = vec![false; u.n as usize];
    for v in 0..u.n {
        if !blocked[v as usize] {
            in_set[v as usize] = true;
            for &w in u.neighbours(v) {
                blocked[w as usize] = true;
            }
        }
    }
    in_set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    fn path4() -> Csr {
        let mut l = EdgeList::new(4, false);
        for (u, v) in [(0, 1), (1, 2), (2, 3), (1, 1)] {
            l.push(u, v, 0);
        }
        Csr::from_edge_list(l)
    }

    #[test]
    fn greedy_answer_passes_and_other_valid_answers_too() {
        let g = path4();
        assert_eq!(greedy(&g), vec![true, false, true, false]);
        assert!(check(&g, &greedy(&g)).is_empty());
        assert!(check(&g, &[false, true, false, true]).is_empty());
        assert!(check(&g, &[true, false, false, true]).is_empty());
    }

    #[test]
    fn reports_dependence_and_non_maximality() {
        let g = path4();
        assert_eq!(
            check(&g, &[true, true, false, false]),
            vec![
                MisProblem::Dependent { u: 0, v: 1 },
                MisProblem::NotMaximal { v: 3 }
            ]
        );
    }
}

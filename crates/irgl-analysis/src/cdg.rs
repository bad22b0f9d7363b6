//! Control dependence (Ferrante, Ottenstein and Warren) over a [`Cfg`], as a petgraph graph.
//!
//! Node `n` is control-dependent on branch `b` when one successor of `b` leads to `n` on every
//! path (`n` post-dominates that successor) but `b` itself is not post-dominated by `n`: `b`
//! decides whether `n` runs. For each edge `b -> s` of a branch, every node on the
//! post-dominator tree path from `s` up to (not including) `b`'s immediate post-dominator is
//! control-dependent on `b`. A loop's test depends on itself. Nodes from which `Exit` cannot
//! be reached have no post-dominator; the walk then stops at the tree's end.

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::cfg::Cfg;
use crate::dom::DomTree;

/// The control-dependence graph: node `i` stands for node `i` of the [`Cfg`], an edge `b -> n`
/// says that `n` is control-dependent on `b`.
#[derive(Clone, Debug)]
pub struct ControlDeps {
    pub graph: DiGraph<(), ()>,
}

impl ControlDeps {
    /// The control dependences of `cfg`, given its post-dominator tree.
    pub fn build(cfg: &Cfg, pdom: &DomTree) -> ControlDeps {
        let mut graph = DiGraph::with_capacity(cfg.graph.node_count(), 0);
        for _ in cfg.graph.node_indices() {
            graph.add_node(());
        }
        for b in cfg.graph.node_indices() {
            if cfg.graph.neighbors(b).count() < 2 {
                continue;
            }
            let stop = pdom.idom(b);
            let mut seen = Vec::new();
            for s in cfg.graph.neighbors(b) {
                let mut x = Some(s);
                while let Some(n) = x {
                    if Some(n) == stop {
                        break;
                    }
                    if !seen.contains(&n) {
                        seen.push(n);
                        graph.add_edge(b, n, ());
                    }
                    x = pdom.idom(n);
                }
            }
        }
        ControlDeps { graph }
    }

    /// The branches `n` is directly control-dependent on.
    pub fn deps(&self, n: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        self.graph.neighbors_directed(n, Direction::Incoming)
    }

    /// Whether `n` is directly control-dependent on `b`.
    pub fn depends_on(&self, n: NodeIndex, b: NodeIndex) -> bool {
        self.graph.contains_edge(b, n)
    }

    /// Every branch `n` depends on, directly or through other branches, `n` itself excluded.
    pub fn iterated_deps(&self, n: NodeIndex) -> Vec<NodeIndex> {
        let mut out: Vec<NodeIndex> = Vec::new();
        let mut stack: Vec<NodeIndex> = self.deps(n).collect();
        while let Some(b) = stack.pop() {
            if b == n || out.contains(&b) {
                continue;
            }
            out.push(b);
            stack.extend(self.deps(b));
        }
        out
    }
}

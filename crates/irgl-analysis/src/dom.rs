//! Dominators and post-dominators of a [`Cfg`] (petgraph's Cooper-Harvey-Kennedy
//! algorithm; post-dominators are the dominators of the reversed graph from `Exit`).
//!
//! `a` dominates `b` when every path from `Entry` to `b` passes through `a`; `a`
//! post-dominates `b` when every path from `b` to `Exit` passes through `a`. Nodes that
//! cannot reach the root (unreachable code; loops that never exit, for post-dominators) have
//! no immediate dominator.

use std::collections::HashMap;

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::NodeIndex;
use petgraph::visit::Reversed;

use crate::cfg::Cfg;

/// A dominator tree: the immediate dominator of each node reachable from the root.
#[derive(Clone, Debug)]
pub struct DomTree {
    pub root: NodeIndex,
    idom: HashMap<NodeIndex, NodeIndex>,
}

impl DomTree {
    /// The dominator tree of `cfg`, rooted at `Entry`.
    pub fn dominators(cfg: &Cfg) -> DomTree {
        let d = simple_fast(&cfg.graph, cfg.entry);
        DomTree::from_fn(cfg, cfg.entry, |n| d.immediate_dominator(n))
    }

    /// The post-dominator tree of `cfg`, rooted at `Exit`.
    pub fn post_dominators(cfg: &Cfg) -> DomTree {
        let d = simple_fast(Reversed(&cfg.graph), cfg.exit);
        DomTree::from_fn(cfg, cfg.exit, |n| d.immediate_dominator(n))
    }

    fn from_fn(cfg: &Cfg, root: NodeIndex, f: impl Fn(NodeIndex) -> Option<NodeIndex>) -> DomTree {
        let idom = cfg
            .graph
            .node_indices()
            .filter_map(|n| f(n).map(|d| (n, d)))
            .collect();
        DomTree { root, idom }
    }

    /// The immediate dominator of `n` (none for the root and for unreachable nodes).
    pub fn idom(&self, n: NodeIndex) -> Option<NodeIndex> {
        self.idom.get(&n).copied()
    }

    /// Whether `a` dominates `b` (every node dominates itself).
    pub fn dominates(&self, a: NodeIndex, b: NodeIndex) -> bool {
        let mut x = Some(b);
        while let Some(n) = x {
            if n == a {
                return true;
            }
            x = self.idom(n);
        }
        false
    }
}

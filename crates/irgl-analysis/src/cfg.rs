//! The control-flow graph of a body, over the IR as it will be emitted.
//!
//! Nodes are statements (a simple statement, or the test of a branch or loop), the join
//! after an `if`, and, for a block-scheduled `ForAll`, one scheduler loop and one executor
//! test per policy (the thread's share of the iterations), each followed by its own
//! *instance* of the loop's body: the emitted code has one copy of the body per scheduler,
//! and an analysis (such as where a block-wide barrier may go) must see each copy. `Entry`
//! and `Exit` bound the body. Edges follow C semantics: `Break` to the statement after its
//! loop, `Continue` to the loop's step (or to the end of the enclosing phase, which ends the
//! item), an `Inspect` to the end of its phase.

use std::collections::HashMap;

use irgl_ir::*;
use petgraph::graph::{DiGraph, NodeIndex};

/// What a node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    Entry,
    Exit,
    /// The statement itself: its effect, or the test of a branch or loop.
    Stmt,
    /// Where the branches of an `if` meet.
    Join,
    /// The loop of scheduler `stage` of a block-scheduled `ForAll` (uniform across the
    /// block by construction).
    Scheduler(u8),
    /// Whether this thread has an iteration in this round of scheduler `stage`.
    Executor(u8),
}

/// A node: what it stands for, the statement (none for `Entry`/`Exit`), and the instance
/// (which scheduler's copy of a block-scheduled loop's body it is in; 0 elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CfgNode {
    pub kind: NodeKind,
    pub stmt: Option<StmtId>,
    pub instance: u8,
}

/// A control-flow graph (petgraph) with its entry and exit, and the node of each statement.
#[derive(Clone, Debug)]
pub struct Cfg {
    pub graph: DiGraph<CfgNode, ()>,
    pub entry: NodeIndex,
    pub exit: NodeIndex,
    index: HashMap<CfgNode, NodeIndex>,
}

impl Cfg {
    /// The node of `stmt` (its test, for branches and loops) in `instance`.
    pub fn stmt_node(&self, stmt: StmtId, instance: u8) -> Option<NodeIndex> {
        self.node(NodeKind::Stmt, stmt, instance)
    }

    /// The node of a given kind for `stmt`.
    pub fn node(&self, kind: NodeKind, stmt: StmtId, instance: u8) -> Option<NodeIndex> {
        self.index
            .get(&CfgNode {
                kind,
                stmt: Some(stmt),
                instance,
            })
            .copied()
    }

    /// Builds the graph of a body.
    pub fn build(body: &Body) -> Cfg {
        let mut b = Builder {
            body,
            graph: DiGraph::new(),
            index: HashMap::new(),
            jumps: Vec::new(),
        };
        let entry = b.add(NodeKind::Entry, None, 0);
        let exit = b.add(NodeKind::Exit, None, 0);
        let first = b.block(&body.block, exit, 0);
        b.graph.add_edge(entry, first, ());
        Cfg {
            graph: b.graph,
            entry,
            exit,
            index: b.index,
        }
    }

    /// A short name for a node: `entry`, `exit`, `s12`, `s12.join`, `s12.sched1`,
    /// `s12.exec1`, with `/2` for instance 2.
    pub fn describe(&self, n: NodeIndex) -> String {
        let node = self.graph[n];
        let base = match (node.kind, node.stmt) {
            (NodeKind::Entry, _) => return "entry".into(),
            (NodeKind::Exit, _) => return "exit".into(),
            (NodeKind::Stmt, Some(s)) => s.to_string(),
            (NodeKind::Join, Some(s)) => format!("{s}.join"),
            (NodeKind::Scheduler(i), Some(s)) => format!("{s}.sched{i}"),
            (NodeKind::Executor(i), Some(s)) => format!("{s}.exec{i}"),
            (_, None) => "?".into(),
        };
        if node.instance == 0 {
            base
        } else {
            format!("{base}/{}", node.instance)
        }
    }
}

/// Where `Break` and `Continue` go from the current position.
#[derive(Clone, Copy)]
struct Jumps {
    brk: Option<NodeIndex>,
    cont: NodeIndex,
}

struct Builder<'a> {
    body: &'a Body,
    graph: DiGraph<CfgNode, ()>,
    index: HashMap<CfgNode, NodeIndex>,
    jumps: Vec<Jumps>,
}

impl Builder<'_> {
    fn add(&mut self, kind: NodeKind, stmt: Option<StmtId>, instance: u8) -> NodeIndex {
        let node = CfgNode {
            kind,
            stmt,
            instance,
        };
        let n = self.graph.add_node(node);
        self.index.insert(node, n);
        n
    }

    fn edge(&mut self, a: NodeIndex, b: NodeIndex) {
        self.graph.add_edge(a, b, ());
    }

    /// The graph of `block` followed by `next`; returns its first node (`next` if empty).
    fn block(&mut self, block: &Block, next: NodeIndex, instance: u8) -> NodeIndex {
        let mut next = next;
        for &s in block.iter().rev() {
            next = self.stmt(s, next, instance);
        }
        next
    }

    /// The graph of one statement followed by `next`; returns its first node.
    fn stmt(&mut self, s: StmtId, next: NodeIndex, inst: u8) -> NodeIndex {
        let body = self.body;
        match &body.stmts[s].kind {
            StmtKind::Block(b) => self.block(b, next, inst),
            StmtKind::Region(r) => self.block(&r.body, next, inst),
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                let test = self.add(NodeKind::Stmt, Some(s), inst);
                let join = self.add(NodeKind::Join, Some(s), inst);
                self.edge(join, next);
                let t = self.block(then_block, join, inst);
                let e = self.block(else_block, join, inst);
                self.edge(test, t);
                self.edge(test, e);
                test
            }
            StmtKind::Loop(l) => {
                let test = self.add(NodeKind::Stmt, Some(s), inst);
                if l.cond.is_some() {
                    self.edge(test, next);
                }
                let step = self.block(&l.step, test, inst);
                self.jumps.push(Jumps {
                    brk: Some(next),
                    cont: step,
                });
                let first = self.block(&l.body, step, inst);
                self.jumps.pop();
                self.edge(test, first);
                self.block(&l.init, test, inst)
            }
            StmtKind::ForAll(f) => match &f.schedule {
                Schedule::Block(b) => {
                    // One scheduler loop per policy, each with its own copy of the body.
                    let mut after = next;
                    for (i, _) in b.policies.iter().enumerate().rev() {
                        let stage = i as u8;
                        let sched = self.add(NodeKind::Scheduler(stage), Some(s), inst);
                        let exec = self.add(NodeKind::Executor(stage), Some(s), inst);
                        self.edge(sched, exec);
                        self.edge(sched, after);
                        self.edge(exec, sched);
                        self.jumps.push(Jumps {
                            brk: None,
                            cont: sched,
                        });
                        let first = self.block(&f.body, sched, stage);
                        self.jumps.pop();
                        self.edge(exec, first);
                        after = sched;
                    }
                    after
                }
                _ => {
                    let test = self.add(NodeKind::Stmt, Some(s), inst);
                    self.edge(test, next);
                    self.jumps.push(Jumps {
                        brk: None,
                        cont: test,
                    });
                    let first = self.block(&f.body, test, inst);
                    self.jumps.pop();
                    self.edge(test, first);
                    test
                }
            },
            StmtKind::Phase(p) => {
                let guard = self.add(NodeKind::Stmt, Some(s), inst);
                self.edge(guard, next);
                self.jumps.push(Jumps {
                    brk: None,
                    cont: next,
                });
                let first = self.block(&p.body, next, inst);
                self.jumps.pop();
                self.edge(guard, first);
                guard
            }
            StmtKind::Inspect(_) => {
                // Ends the phase: where a `Continue` of the phase goes.
                let n = self.add(NodeKind::Stmt, Some(s), inst);
                let end = self.jumps.last().map_or(next, |j| j.cont);
                self.edge(n, end);
                n
            }
            StmtKind::Break => {
                let n = self.add(NodeKind::Stmt, Some(s), inst);
                let target = self
                    .jumps
                    .iter()
                    .rev()
                    .find_map(|j| j.brk)
                    .expect("Break inside a loop (the IR verifier checks it)");
                self.edge(n, target);
                n
            }
            StmtKind::Continue => {
                let n = self.add(NodeKind::Stmt, Some(s), inst);
                let target = self
                    .jumps
                    .last()
                    .expect("Continue inside a loop (the IR verifier checks it)")
                    .cont;
                self.edge(n, target);
                n
            }
            _ => {
                let n = self.add(NodeKind::Stmt, Some(s), inst);
                self.edge(n, next);
                n
            }
        }
    }
}

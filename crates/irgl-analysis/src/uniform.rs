//! Uniform branches and focal points (the IrGL paper, §4.2.2).
//!
//! A branch (a CFG node with more than one successor) is *uniform* when every thread of a
//! block that reaches it decides it the same way. Uniform by construction: the loop of a
//! uniform outer `ForAll` (every thread runs the same number of rounds) and the block-wide
//! scheduler loops of a block-scheduled `ForAll` (thread block, fine-grained, edge-balanced;
//! the warp and virtual-warp schedulers are uniform across a warp only, the serial one not at
//! all). Never uniform: the executor tests of the schedulers (whether
//! this thread has an iteration this round), the phase guards of a uniform loop (whether this
//! thread has an item, or reached the nested loop), a grid-stride loop that is not uniform.
//! Uniform by analysis: an `if`, a loop test or a serial `ForAll` whose condition or bounds
//! depend only on uniform values: literals, consts, params, kernel arguments, graph sizes,
//! graph queries of uniform values, worklist items at uniform indices, pure built-ins of
//! uniform values, and uniform locals.
//!
//! A local is uniform when every value assigned to it is uniform and every thread that runs
//! its `Let` makes the same assignments afterwards: each later assignment depends, beyond the
//! branches the `Let` itself depends on, only on uniform branches. A loop counter (declared in
//! a loop's initialization, stepped in its step, and so used only inside the loop) is uniform
//! when its loop is, whatever branches its body takes: a thread that stays in the loop runs the
//! step every iteration, and one that leaves by `break` never reads the counter again. `ForAll` variables, the locals a
//! block-scheduled loop's body receives from the thread that owns the iteration, inspection
//! state and arrays never are. This is computed optimistically and refined to a fixed point.
//!
//! A *focal point* is a node that every thread of the block reaches together: it is
//! iteratively control-dependent only on uniform branches, other than possibly itself. A
//! block-wide barrier (and so a block-level aggregate) may be placed only there. A focal point
//! that is the test of a non-uniform loop (it depends on itself) is reached together only on
//! entry: the place for a barrier is on the edges into the loop, as in the paper's Figure 6.

use std::collections::{BTreeSet, HashMap, HashSet};

use irgl_ir::*;
use petgraph::graph::NodeIndex;

use crate::cdg::ControlDeps;
use crate::cfg::{Cfg, NodeKind};

/// The uniform branches and uniform locals of a body, and its focal points.
#[derive(Clone, Debug)]
pub struct Uniformity {
    /// Every branch node, and whether it is uniform.
    branches: HashMap<NodeIndex, bool>,
    locals: BTreeSet<LocalId>,
    focal: HashSet<NodeIndex>,
}

impl Uniformity {
    /// Analyses `body`, whose CFG and control dependences are given.
    pub fn analyze(body: &Body, cfg: &Cfg, cdg: &ControlDeps) -> Uniformity {
        let defs = Defs::collect(body, cfg);
        let mut locals = defs.candidates.clone();
        loop {
            let branches = classify(body, cfg, &locals);
            let kept: BTreeSet<LocalId> = locals
                .iter()
                .copied()
                .filter(|l| defs.stays_uniform(body, *l, &locals, cdg, &branches))
                .collect();
            if kept == locals {
                let focal = focal_points(cfg, cdg, &branches);
                return Uniformity {
                    branches,
                    locals,
                    focal,
                };
            }
            locals = kept;
        }
    }

    /// Whether `n` is a branch (more than one successor).
    pub fn is_branch(&self, n: NodeIndex) -> bool {
        self.branches.contains_key(&n)
    }

    /// Whether branch `n` is uniform; `None` when `n` is not a branch.
    pub fn is_uniform(&self, n: NodeIndex) -> Option<bool> {
        self.branches.get(&n).copied()
    }

    /// Whether `n` is a focal point.
    pub fn is_focal(&self, n: NodeIndex) -> bool {
        self.focal.contains(&n)
    }

    /// Whether local `l` holds the same value in every thread that reads it.
    pub fn is_uniform_local(&self, l: LocalId) -> bool {
        self.locals.contains(&l)
    }

    /// Whether `e` has the same value in every thread that evaluates it.
    pub fn is_uniform_expr(&self, body: &Body, e: ExprId) -> bool {
        uniform_expr(body, e, &self.locals)
    }
}

/// Where each local is assigned, and which locals may be uniform at all.
struct Defs {
    candidates: BTreeSet<LocalId>,
    /// Per local: its assignments (value expressions) and the CFG nodes that make them, the
    /// `Let` first when there is one.
    assigned: HashMap<LocalId, Vec<Def>>,
    /// Loop counters: the nodes of their loop's body, whose branches do not matter to them.
    counters: HashMap<LocalId, HashSet<NodeIndex>>,
}

struct Def {
    is_let: bool,
    value: Option<ExprId>,
    nodes: Vec<NodeIndex>,
}

impl Defs {
    fn collect(body: &Body, cfg: &Cfg) -> Defs {
        let mut nodes_of: HashMap<StmtId, Vec<NodeIndex>> = HashMap::new();
        for n in cfg.graph.node_indices() {
            let node = cfg.graph[n];
            if let (NodeKind::Stmt, Some(s)) = (node.kind, node.stmt) {
                nodes_of.entry(s).or_default().push(n);
            }
        }
        let mut candidates: BTreeSet<LocalId> = body.locals.keys().collect();
        let mut assigned: HashMap<LocalId, Vec<Def>> = HashMap::new();
        let mut counters: HashMap<LocalId, HashSet<NodeIndex>> = HashMap::new();
        visit::walk_stmts(body, &body.block, &mut |s| {
            if let StmtKind::Loop(lp) = &body.stmts[s].kind {
                for &i in lp.init.iter() {
                    let StmtKind::Let { local, .. } = body.stmts[i].kind else {
                        continue;
                    };
                    let stepped = lp.step.iter().any(|&t| {
                        matches!(body.stmts[t].kind, StmtKind::Assign { place: Place::Local(l), .. } if l == local)
                    });
                    if stepped {
                        let mut inside = HashSet::new();
                        visit::walk_stmts(body, &lp.body, &mut |t| {
                            inside.extend(nodes_of.get(&t).into_iter().flatten().copied());
                        });
                        counters.insert(local, inside);
                    }
                }
            }
            let nodes = nodes_of.get(&s).cloned().unwrap_or_default();
            match &body.stmts[s].kind {
                StmtKind::Let { local, init } => assigned.entry(*local).or_default().push(Def {
                    is_let: true,
                    value: *init,
                    nodes,
                }),
                StmtKind::Assign {
                    place: Place::Local(l),
                    value,
                    ..
                } => assigned.entry(*l).or_default().push(Def {
                    is_let: false,
                    value: Some(*value),
                    nodes,
                }),
                StmtKind::LetArray { local, .. } => {
                    candidates.remove(local);
                }
                StmtKind::ForAll(f) => {
                    candidates.remove(&f.var);
                    // A reduced local ends with its own thread's (or item's) result.
                    for r in &f.reductions {
                        candidates.remove(&r.local);
                    }
                    if let Schedule::Block(b) = &f.schedule {
                        for l in &b.closure {
                            candidates.remove(l);
                        }
                        for l in [b.state.reached, b.state.count, b.state.begin] {
                            candidates.remove(&l);
                        }
                    }
                }
                StmtKind::Inspect(i) => {
                    for l in [i.state.reached, i.state.count, i.state.begin] {
                        candidates.remove(&l);
                    }
                }
                _ => {}
            }
        });
        Defs {
            candidates,
            assigned,
            counters,
        }
    }

    /// Whether `l` stays uniform if `locals` are: every value uniform, and every assignment
    /// after the `Let` reached by all the threads that ran the `Let`.
    fn stays_uniform(
        &self,
        body: &Body,
        l: LocalId,
        locals: &BTreeSet<LocalId>,
        cdg: &ControlDeps,
        branches: &HashMap<NodeIndex, bool>,
    ) -> bool {
        let Some(defs) = self.assigned.get(&l) else {
            // Never assigned in this body: a kernel argument.
            return true;
        };
        if !defs
            .iter()
            .all(|d| d.value.is_none_or(|e| uniform_expr(body, e, locals)))
        {
            return false;
        }
        // What decides whether the `Let` runs decides it alike for the assignments.
        let mut shared: Vec<NodeIndex> = Vec::new();
        for d in defs.iter().filter(|d| d.is_let) {
            for &n in &d.nodes {
                shared.push(n);
                shared.extend(cdg.iterated_deps(n));
            }
        }
        if let Some(inside) = self.counters.get(&l) {
            shared.extend(inside.iter().copied());
        }
        defs.iter().filter(|d| !d.is_let).all(|d| {
            d.nodes.iter().all(|&n| {
                cdg.iterated_deps(n)
                    .iter()
                    .filter(|b| !shared.contains(b))
                    .all(|b| branches.get(b).copied().unwrap_or(true))
            })
        })
    }
}

fn uniform_expr(body: &Body, e: ExprId, locals: &BTreeSet<LocalId>) -> bool {
    let all = |es: &[ExprId]| es.iter().all(|&x| uniform_expr(body, x, locals));
    match &body.exprs[e].kind {
        ExprKind::Literal(_)
        | ExprKind::Const(_)
        | ExprKind::Param(_)
        | ExprKind::GraphSize(GraphField::NNodes | GraphField::NEdges)
        | ExprKind::WorklistSize(_)
        | ExprKind::ReduceResult => true,
        ExprKind::Local(l) => locals.contains(l),
        ExprKind::Unary(_, x)
        | ExprKind::Cast(x)
        | ExprKind::GraphQuery(_, x)
        | ExprKind::Split(_, x)
        | ExprKind::Pop(x) => uniform_expr(body, *x, locals),
        ExprKind::Binary(_, a, b) => all(&[*a, *b]),
        ExprKind::Select {
            cond,
            then_expr,
            else_expr,
        } => all(&[*cond, *then_expr, *else_expr]),
        ExprKind::Builtin(_, args) => all(args),
        // A thread's own array: uniform when every thread stored the same values is not
        // tracked.
        ExprKind::ArrayElement { .. } => false,
        // Memory that other threads write while this one reads, and read-modify-writes.
        ExprKind::Global(_)
        | ExprKind::Element { .. }
        | ExprKind::Atomic { .. }
        | ExprKind::FetchAdd { .. }
        | ExprKind::TryLock { .. }
        | ExprKind::TryMarks { .. }
        // The mesh grows and changes while the kernel runs.
        | ExprKind::GraphSize(GraphField::NTriangles | GraphField::NVertices)
        | ExprKind::MeshQuery(..) => false,
    }
}

/// Every branch of the CFG, uniform or not.
fn classify(body: &Body, cfg: &Cfg, locals: &BTreeSet<LocalId>) -> HashMap<NodeIndex, bool> {
    let mut out = HashMap::new();
    for n in cfg.graph.node_indices() {
        if cfg.graph.neighbors(n).count() < 2 {
            continue;
        }
        let node = cfg.graph[n];
        let uniform = match (node.kind, node.stmt) {
            // Block-wide schedulers hand out the same rounds to every thread of the block;
            // warp schedulers only to the lanes of a warp, the serial one to one thread.
            (NodeKind::Scheduler(i), Some(s)) => match &body.stmts[s].kind {
                StmtKind::ForAll(ForAll {
                    schedule: Schedule::Block(b),
                    ..
                }) => matches!(
                    b.policies[i as usize],
                    Policy::Threadblock | Policy::Finegrained | Policy::EdgeBalanced
                ),
                _ => false,
            },
            (NodeKind::Executor(_), _) => false,
            (NodeKind::Stmt, Some(s)) => match &body.stmts[s].kind {
                StmtKind::If { cond, .. } => uniform_expr(body, *cond, locals),
                StmtKind::Loop(l) => l.cond.is_none_or(|c| uniform_expr(body, c, locals)),
                StmtKind::ForAll(f) => match &f.schedule {
                    Schedule::Grid { uniform } => *uniform,
                    Schedule::Serial { .. } => match &f.space {
                        Space::Nodes | Space::SplitNodes => true,
                        Space::Edges { node, .. } => uniform_expr(body, *node, locals),
                        Space::Range { lo, hi } => {
                            uniform_expr(body, *lo, locals) && uniform_expr(body, *hi, locals)
                        }
                        Space::Worklist | Space::Triangles | Space::Inspected => false,
                    },
                    Schedule::Block(_) => true,
                },
                StmtKind::Phase(_) => false,
                _ => false,
            },
            _ => false,
        };
        out.insert(n, uniform);
    }
    out
}

/// Nodes iteratively control-dependent only on uniform branches (other than themselves).
fn focal_points(
    cfg: &Cfg,
    cdg: &ControlDeps,
    branches: &HashMap<NodeIndex, bool>,
) -> HashSet<NodeIndex> {
    cfg.graph
        .node_indices()
        .filter(|&n| {
            cdg.iterated_deps(n)
                .iter()
                .all(|b| branches.get(b).copied().unwrap_or(true))
        })
        .collect()
}

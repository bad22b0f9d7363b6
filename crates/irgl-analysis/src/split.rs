//! Which kernels may run over the parts of split nodes (`split_nodes`): a node of more
//! out-edges than the split degree is cut into parts of consecutive edges, each part an item
//! of the kernel's loop, so that a hub's edges go to many threads (the node-splitting paper's
//! transformation, done on the loop instead of on the graph).
//!
//! A part runs the node's whole item with the node's edge loops cut to the part's edges: what
//! stands outside those loops runs once per part, what is inside runs once per edge as
//! before. The analysis accepts a kernel when all of these hold, and gives the first that
//! fails as the reason otherwise:
//! - its body is one outermost `ForAll` over the nodes, without a `Reduce` clause, in a
//!   kernel without grid barriers whose rounds are not settled (`settle_rounds` judged its
//!   items whole), on a graph (not a mesh);
//! - outside its loops over the node's out-edges the item only computes locals and branches:
//!   no store, atomic, push, reduction, lock or nested loop over anything else, so that
//!   running it once per part does what running it once did;
//! - those loops do not reduce (what the item computes from a part's edges would be a
//!   part's, not the node's; a `ForAll` assigns no local declared outside it but through
//!   its `Reduce` clause, E0320), nor loop over the node's edges again inside;
//! - outside those loops the item reads no property or global that the kernel stores or
//!   updates, except a property only lowered by `atomicMin` (or only raised by `atomicMax`):
//!   a later part may see it lowered, as a later visit of the node would (sssp-bf's `dist`);
//!   any other such read could see the node in two states in one item (bfs-topo's `level`);
//! - the item has at least one loop over the node's out-edges (there is nothing to split
//!   otherwise), and none over its in-edges (only out-edges are cut).
//!
//! Properties of a split node are combined by what the loops already do: updates to other
//! nodes are atomics per edge, so the parts' updates meet there as the edges' did.

use std::collections::BTreeMap;

use irgl_ir::*;

/// The verdict for every kernel, in kernel order: the outer loop to split, or why not.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitCandidates {
    pub kernels: Vec<(KernelId, Result<LoopId, String>)>,
}

impl SplitCandidates {
    pub fn build(m: &Module) -> SplitCandidates {
        let kernels = m
            .kernels
            .iter()
            .filter(|(_, k)| k.serial_of.is_none() && k.no_grid_of.is_none())
            .map(|(id, k)| (id, verdict(m, k)))
            .collect();
        SplitCandidates { kernels }
    }

    /// The verdict for kernel `k` (None: a copy made by a pass, judged with its original).
    pub fn get(&self, k: KernelId) -> Option<&Result<LoopId, String>> {
        self.kernels.iter().find(|(id, _)| *id == k).map(|(_, v)| v)
    }

    /// One line per kernel with an outermost loop over the nodes that has loops inside, as
    /// `irglc emit outline` prints them after the tree.
    pub fn render(&self, m: &Module) -> String {
        let mut out = String::new();
        for (k, v) in &self.kernels {
            let body = &m.kernels[*k].body;
            let nested = visit::block_any(
                body,
                &body.block,
                &|s| matches!(s, StmtKind::ForAll(f) if !matches!(f.schedule, Schedule::Grid { .. })),
            );
            if !m.kernels[*k].facts().over_nodes || !nested {
                continue; // no loop over the nodes with loops inside: nothing to ask
            }
            let name = &m.kernels[*k].name;
            match v {
                Ok(l) => out.push_str(&format!(
                    "split kernel {name}: yes: {l}'s parts of a node run its edge loops over their own edges\n"
                )),
                Err(why) => out.push_str(&format!("split kernel {name}: no: {why}\n")),
            }
        }
        out
    }
}

/// How a kernel changes a property or a global.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Change {
    /// Only lowered by `atomicMin`.
    Lowered,
    /// Only raised by `atomicMax`.
    Raised,
    /// Anything else: stores, other atomics, or both of the above.
    Changed,
}

fn verdict(m: &Module, k: &Kernel) -> Result<LoopId, String> {
    if m.graph.mesh {
        return Err("its input is a mesh".into());
    }
    if k.settled {
        return Err(
            "its rounds run without grid barriers (settle_rounds), which judged its items whole"
                .into(),
        );
    }
    let body = &k.body;
    if visit::block_any(body, &body.block, &|s| matches!(s, StmtKind::GridSync)) {
        return Err("it has a grid barrier".into());
    }
    let [s] = body.block.as_slice() else {
        return Err("its body is more than one ForAll over the nodes".into());
    };
    let StmtKind::ForAll(f) = &body.stmts[*s].kind else {
        return Err("its body is not a ForAll over the nodes".into());
    };
    if f.space != Space::Nodes {
        return Err("its ForAll is not over the nodes".into());
    }
    if !f.reductions.is_empty() {
        return Err(
            "its ForAll reduces into locals (a part's result would be taken for the node's)".into(),
        );
    }
    let changes = changes(body);
    let mut item = Item {
        m,
        body,
        var: f.var,
        changes: &changes,
        edge_loops: 0,
    };
    item.block(&f.body)?;
    if item.edge_loops == 0 {
        return Err(format!(
            "it has no loop over the out-edges of `{}`: there is nothing to split",
            body.locals[f.var].name
        ));
    }
    Ok(f.id)
}

/// What the kernel changes, and how.
fn changes(body: &Body) -> BTreeMap<Target, Change> {
    let mut out: BTreeMap<Target, Change> = BTreeMap::new();
    let mut note = |p: Target, c: Change| {
        out.entry(p)
            .and_modify(|old| {
                if *old != c {
                    *old = Change::Changed
                }
            })
            .or_insert(c);
    };
    let place = |p: &Place| match p {
        Place::Element { prop, .. } => Some(Target::Prop(*prop)),
        Place::Global(g) => Some(Target::Global(*g)),
        Place::Local(_) | Place::ArrayElement { .. } => None,
    };
    visit::walk_stmts(body, &body.block, &mut |s| match &body.stmts[s].kind {
        StmtKind::Assign { place: p, .. } => {
            if let Some(p) = place(p) {
                note(p, Change::Changed);
            }
        }
        StmtKind::Accumulate(a) => note(Target::Global(a.global), Change::Changed),
        _ => {}
    });
    visit::walk_block_exprs(body, &body.block, &mut |e| match &body.exprs[e].kind {
        ExprKind::Atomic { op, place: p, .. } => {
            if let Some(p) = place(p) {
                let c = match op {
                    AtomicOp::Min => Change::Lowered,
                    AtomicOp::Max => Change::Raised,
                    _ => Change::Changed,
                };
                note(p, c);
            }
        }
        ExprKind::FetchAdd { global, .. } => note(Target::Global(*global), Change::Changed),
        ExprKind::TryLock { locks, .. } => note(Target::Prop(*locks), Change::Changed),
        ExprKind::TryMarks { marks, .. } => note(Target::Prop(*marks), Change::Changed),
        _ => {}
    });
    out
}

/// A property or a global, as [`changes`] keys them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Prop(PropId),
    Global(GlobalId),
}

/// The walk over the item outside its edge loops.
struct Item<'a> {
    m: &'a Module,
    body: &'a Body,
    var: LocalId,
    changes: &'a BTreeMap<Target, Change>,
    edge_loops: usize,
}

impl Item<'_> {
    fn block(&mut self, block: &Block) -> Result<(), String> {
        for &s in block {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: StmtId) -> Result<(), String> {
        let body = self.body;
        match &body.stmts[s].kind {
            StmtKind::Let { init, .. } => {
                if let Some(e) = init {
                    self.expr(*e)?;
                }
                Ok(())
            }
            StmtKind::LetArray { elems, .. } => elems.iter().try_for_each(|e| self.expr(*e)),
            StmtKind::Assign {
                place: Place::Local(_),
                value,
                ..
            } => self.expr(*value),
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.expr(*cond)?;
                self.block(then_block)?;
                self.block(else_block)
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Continue => Ok(()),
            StmtKind::ForAll(f) => self.edge_loop(f),
            StmtKind::Assign { .. } => {
                Err("outside its edge loops the item stores to memory (once per part)".into())
            }
            StmtKind::Eval(_) => Err(
                "outside its edge loops the item updates memory atomically (once per part)".into(),
            ),
            StmtKind::Push(_) => {
                Err("outside its edge loops the item pushes (once per part)".into())
            }
            StmtKind::Reduce(_) => {
                Err("outside its edge loops the item reduces (once per part)".into())
            }
            StmtKind::Loop(_) => {
                Err("outside its edge loops the item has a sequential loop".into())
            }
            k => Err(format!(
                "outside its edge loops the item does more than compute locals ({})",
                stmt_name(k)
            )),
        }
    }

    fn edge_loop(&mut self, f: &ForAll) -> Result<(), String> {
        let body = self.body;
        let var = &body.locals[self.var].name;
        let Space::Edges { node, dir } = &f.space else {
            return Err(format!(
                "it has a nested loop over something other than the edges of `{var}`"
            ));
        };
        if body.exprs[*node].kind != ExprKind::Local(self.var) {
            return Err(format!(
                "it has a nested loop over the edges of a node other than `{var}`"
            ));
        }
        if *dir == EdgeDir::In {
            return Err(format!(
                "it loops over the in-edges of `{var}` (only out-edges are split)"
            ));
        }
        if !f.reductions.is_empty() {
            return Err(format!(
                "its loop over the edges of `{var}` reduces (a part's result would be taken for the node's)"
            ));
        }
        if visit::block_any(body, &f.body, &|s| {
            matches!(s, StmtKind::ForAll(inner) if matches!(inner.space,
                Space::Edges { node: n, .. } if body.exprs[n].kind == ExprKind::Local(self.var)))
        }) {
            return Err(format!(
                "its loop over the edges of `{var}` has another loop over them inside"
            ));
        }
        self.edge_loops += 1;
        Ok(())
    }

    fn expr(&mut self, e: ExprId) -> Result<(), String> {
        let body = self.body;
        let mut why = None;
        visit::walk_expr(body, e, &mut |x| {
            if why.is_some() {
                return;
            }
            why = match &body.exprs[x].kind {
                ExprKind::Atomic { .. } | ExprKind::FetchAdd { .. } => Some(
                    "outside its edge loops the item updates memory atomically (once per part)"
                        .to_string(),
                ),
                ExprKind::Pop(_) => Some("it pops a worklist".to_string()),
                ExprKind::TryLock { .. } | ExprKind::TryMarks { .. } => {
                    Some("outside its edge loops the item takes locks".to_string())
                }
                ExprKind::Element { prop, .. } => self.read(Target::Prop(*prop)),
                ExprKind::Global(g) => self.read(Target::Global(*g)),
                _ => None,
            };
        });
        why.map_or(Ok(()), Err)
    }

    /// Why a read outside the edge loops of what the kernel changes is refused, if it is.
    fn read(&self, p: Target) -> Option<String> {
        let name = match p {
            Target::Prop(id) => &self.m.graph.props[id.index()].name,
            Target::Global(id) => &self.m.globals[id.index()].name,
        };
        match (p, self.changes.get(&p)) {
            (_, None) | (Target::Prop(_), Some(Change::Lowered | Change::Raised)) => None,
            _ => Some(format!(
                "outside its edge loops the item reads `{name}`, which the kernel changes (two parts could see the node in two states)"
            )),
        }
    }
}

fn stmt_name(k: &StmtKind) -> &'static str {
    match k {
        StmtKind::Break => "a break",
        StmtKind::Combine { .. } => "a reduction",
        StmtKind::Accumulate(_) => "an addition to a global",
        StmtKind::Unlock { .. } | StmtKind::ReleaseMarks { .. } => "locks",
        StmtKind::CopyArray { .. } => "an array copy",
        StmtKind::MeshUpdate(..) => "a mesh update",
        StmtKind::GridSync => "a grid barrier",
        _ => "a statement the pass does not cut",
    }
}

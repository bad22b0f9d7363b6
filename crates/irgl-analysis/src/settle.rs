//! Which `Iterate Unordered While Any` loops may run their rounds without grid barriers
//! (`settle_rounds`): in the loop's control kernel every block sweeps its share of the items
//! again and again until none of them reports, and the loop ends when every block has
//! stopped, as ECL-MIS's threads go round their nodes (Burtscher et al., TOPC 2018).
//!
//! `Unordered` is the program's promise that its rounds may overlap: an item may run while
//! other items of an earlier round have not, and see their stores late. What the compiler
//! proves is that stopping block by block ends where the rounds would: an item that reports
//! nothing never reports again. The analysis accepts a loop when all of these hold, and
//! gives the first that fails as the reason otherwise:
//! - the loop is the kernel's rounds and nothing else (`reduce.reset any`, the launch,
//!   the count, the test), and the launch's arguments read no device state;
//! - the kernel pops and pushes no worklist, has no grid barrier and takes no locks, updates
//!   no global (every pass would add to it again), and its input is a graph;
//! - its body is one outermost `ForAll` over the nodes or a range, whose item is
//!   `let x = p[i]; if (G) { ... }` (`i` the loop's variable, `G` a condition on `x` and
//!   constants alone): an item whose guard fails does nothing;
//! - every store to `p` in the kernel stores a constant for which `G` is false, and its only
//!   atomics on `p` read it (`atomicOr(p[v], 0)`, `atomicAdd(p[v], 0)`): once an item's guard
//!   fails it fails for good;
//! - every path through the guarded body reaches a `ReduceAndReturn true` or a store that
//!   makes `p[i]`'s guard fail: an item either reports or settles.
//!
//! So a block whose pass reports nothing has every item settled for good, and when every
//! block has stopped a round would report nothing: the loop's end.

use irgl_ir::*;

/// The verdict for every `Iterate Unordered` region of `main`, in program order.
#[derive(Clone, Debug, PartialEq)]
pub struct SettleCandidates {
    pub regions: Vec<(RegionId, KernelId, Result<(), String>)>,
}

impl SettleCandidates {
    pub fn build(m: &Module) -> SettleCandidates {
        let mut regions = Vec::new();
        visit::walk_stmts(&m.host, &m.host.block, &mut |s| {
            if let StmtKind::Region(r) = &m.host.stmts[s].kind
                && r.unordered
                && let RegionKind::Iterate(k) = r.kind
            {
                regions.push((r.id, k, verdict(m, r, k)));
            }
        });
        SettleCandidates { regions }
    }

    /// The verdict for region `r` (None: it is not an `Iterate Unordered`).
    pub fn get(&self, r: RegionId) -> Option<&Result<(), String>> {
        self.regions
            .iter()
            .find(|(id, _, _)| *id == r)
            .map(|(_, _, v)| v)
    }

    /// One line per region, as `irglc emit outline` prints them after the tree.
    pub fn render(&self, m: &Module) -> String {
        let mut out = String::new();
        for (id, k, v) in &self.regions {
            let name = &m.kernels[*k].name;
            match v {
                Ok(()) => out.push_str(&format!(
                    "settle {id} iterate {name}: yes: an item of {name} that reports nothing never reports again\n"
                )),
                Err(why) => out.push_str(&format!("settle {id} iterate {name}: no: {why}\n")),
            }
        }
        out
    }
}

fn verdict(m: &Module, r: &Region, k: KernelId) -> Result<(), String> {
    let launch = round_launch(&m.host, &r.body)
        .filter(|l| l.kernel == k && l.reduce == Some(Reduction::Any))
        .ok_or_else(|| "its loop does more than its kernel's rounds".to_string())?;
    if crate::asynchrony::reads_device(&m.host, &launch.args) {
        return Err("its kernel's arguments read device state, which a round may change".into());
    }
    if m.graph.mesh {
        return Err("its input is a mesh, which changes under it".into());
    }
    let kernel = &m.kernels[k];
    effects(m, kernel)?;
    let (var, guard_local, prop, guard, guarded) = item_shape(kernel)?;
    let settles = |value: ExprId| {
        constant(m, &kernel.body, value).and_then(|c| eval(m, &kernel.body, guard, guard_local, c))
            == Some(Val::Bool(false))
    };
    stores(m, kernel, prop, &settles)?;
    if !covers(&kernel.body, guarded, prop, var, &settles) {
        return Err(format!(
            "a path through its guarded item neither reports true nor stores to `{}[{}]` a value that fails the guard: such an item could stay silent and unsettled",
            m.prop(prop).name,
            kernel.body.locals[var].name
        ));
    }
    Ok(())
}

/// The launch of `loop { reduce.reset any; launch k reduce any; count_iteration; if
/// !reduce.result { break } }`, the region's one statement.
fn round_launch<'a>(host: &'a Body, block: &Block) -> Option<&'a Launch> {
    let [only] = block.as_slice() else {
        return None;
    };
    let StmtKind::Loop(l) = &host.stmts[*only].kind else {
        return None;
    };
    if !l.init.is_empty() || !l.step.is_empty() || l.cond.is_some() {
        return None;
    }
    let [reset, launch, count, test] = l.body.as_slice() else {
        return None;
    };
    let reset_ok = matches!(
        host.stmts[*reset].kind,
        StmtKind::ReduceReset(Reduction::Any)
    );
    let count_ok = matches!(host.stmts[*count].kind, StmtKind::CountIteration);
    let test_ok = matches!(&host.stmts[*test].kind, StmtKind::If { cond, then_block, else_block }
        if else_block.is_empty()
            && matches!(then_block.as_slice(), [b] if matches!(host.stmts[*b].kind, StmtKind::Break))
            && matches!(&host.exprs[*cond].kind, ExprKind::Unary(UnaryOp::Not, e)
                if matches!(host.exprs[*e].kind, ExprKind::ReduceResult)));
    match &host.stmts[*launch].kind {
        StmtKind::Launch(l) if reset_ok && count_ok && test_ok => Some(l),
        _ => None,
    }
}

/// No worklist, grid barrier, lock or update of a global.
fn effects(m: &Module, kernel: &Kernel) -> Result<(), String> {
    let facts = kernel.facts();
    if facts.uses_worklist {
        return Err("its kernel uses a worklist".into());
    }
    if facts.cooperative {
        return Err("its kernel has a grid barrier (SyncRunningThreads)".into());
    }
    let body = &kernel.body;
    if visit::block_any(body, &body.block, &|s| {
        matches!(s, StmtKind::Unlock { .. } | StmtKind::ReleaseMarks { .. })
    }) {
        return Err("its kernel takes locks (Atomic or Exclusive)".into());
    }
    let mut global = None;
    visit::walk_stmts(body, &body.block, &mut |s| match &body.stmts[s].kind {
        StmtKind::Assign {
            place: Place::Global(g),
            ..
        } => {
            global.get_or_insert(*g);
        }
        StmtKind::Accumulate(a) => {
            global.get_or_insert(a.global);
        }
        _ => {}
    });
    visit::walk_block_exprs(body, &body.block, &mut |e| match &body.exprs[e].kind {
        ExprKind::Atomic {
            place: Place::Global(g),
            ..
        }
        | ExprKind::FetchAdd { global: g, .. } => {
            global.get_or_insert(*g);
        }
        _ => {}
    });
    match global {
        Some(g) => Err(format!(
            "its kernel updates the global `{}`, which every pass would update again",
            m.globals[g.index()].name
        )),
        None => Ok(()),
    }
}

/// The item `let x = p[i]; if (G) { guarded }`: (i, x, p, G, guarded).
fn item_shape(kernel: &Kernel) -> Result<(LocalId, LocalId, PropId, ExprId, &Block), String> {
    let body = &kernel.body;
    let shape_err = || {
        "its kernel's item is not `let x = p[i]; if (G) { ... }` in its one outermost ForAll over the nodes or a range, with G a condition on x and constants"
            .to_string()
    };
    let [only] = body.block.as_slice() else {
        return Err(shape_err());
    };
    let StmtKind::ForAll(f) = &body.stmts[*only].kind else {
        return Err(shape_err());
    };
    if !matches!(f.space, Space::Nodes | Space::Range { .. }) {
        return Err(shape_err());
    }
    let [first, second] = f.body.as_slice() else {
        return Err(shape_err());
    };
    let StmtKind::Let {
        local: x,
        init: Some(init),
    } = &body.stmts[*first].kind
    else {
        return Err(shape_err());
    };
    let ExprKind::Element { prop, index } = &body.exprs[*init].kind else {
        return Err(shape_err());
    };
    if !matches!(body.exprs[*index].kind, ExprKind::Local(l) if l == f.var) {
        return Err(shape_err());
    }
    let StmtKind::If {
        cond,
        then_block,
        else_block,
    } = &body.stmts[*second].kind
    else {
        return Err(shape_err());
    };
    if !else_block.is_empty() || !guard_only(body, *cond, *x) {
        return Err(shape_err());
    }
    Ok((f.var, *x, *prop, *cond, then_block))
}

/// Whether `e` reads nothing but local `x` and constants.
fn guard_only(body: &Body, e: ExprId, x: LocalId) -> bool {
    !visit::expr_any(body, e, &|k| match k {
        ExprKind::Local(l) => *l != x,
        ExprKind::Literal(_) | ExprKind::Const(_) | ExprKind::Unary(..) | ExprKind::Binary(..) => {
            false
        }
        _ => true,
    })
}

/// Every store to `prop` settles, and its atomics only read it.
fn stores(
    m: &Module,
    kernel: &Kernel,
    prop: PropId,
    settles: &dyn Fn(ExprId) -> bool,
) -> Result<(), String> {
    let body = &kernel.body;
    let name = &m.prop(prop).name;
    let mut bad = None;
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Assign {
            place: Place::Element { prop: p, .. },
            op,
            value,
        } = &body.stmts[s].kind
            && *p == prop
            && (op.is_some() || !settles(*value))
        {
            bad.get_or_insert_with(|| {
                format!("it stores to `{name}` a value that is not a constant failing the guard, so an item could report again")
            });
        }
    });
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        if let ExprKind::Atomic {
            op,
            place: Place::Element { prop: p, .. },
            args,
        } = &body.exprs[e].kind
            && *p == prop
        {
            let reads = matches!(op, AtomicOp::Or | AtomicOp::Add)
                && matches!(args.as_slice(), [a] if constant(m, body, *a) == Some(0));
            if !reads {
                bad.get_or_insert_with(|| {
                    format!(
                        "it updates `{name}` with {}, so an item could report again",
                        op.name()
                    )
                });
            }
        }
    });
    bad.map_or(Ok(()), Err)
}

/// Whether every path through `block` reports true or settles `prop[var]`.
fn covers(
    body: &Body,
    block: &Block,
    prop: PropId,
    var: LocalId,
    settles: &dyn Fn(ExprId) -> bool,
) -> bool {
    for &s in block {
        let covered = match &body.stmts[s].kind {
            StmtKind::Reduce(e) => {
                matches!(body.exprs[*e].kind, ExprKind::Literal(Literal::Bool(true)))
            }
            StmtKind::Assign {
                place: Place::Element { prop: p, index },
                op: None,
                value,
            } => {
                *p == prop
                    && matches!(body.exprs[*index].kind, ExprKind::Local(l) if l == var)
                    && settles(*value)
            }
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                covers(body, then_block, prop, var, settles)
                    && covers(body, else_block, prop, var, settles)
            }
            StmtKind::Block(b) => covers(body, b, prop, var, settles),
            _ => false,
        };
        if covered {
            return true;
        }
        if leaves_item(body, s) {
            return false;
        }
    }
    false
}

/// Whether statement `s` may end the item (a `Continue` outside every loop inside it).
fn leaves_item(body: &Body, s: StmtId) -> bool {
    match &body.stmts[s].kind {
        StmtKind::Continue => true,
        StmtKind::Loop(_) | StmtKind::ForAll(_) => false,
        kind => visit::child_blocks(kind)
            .into_iter()
            .any(|b| b.iter().any(|&t| leaves_item(body, t))),
    }
}

/// The value of a literal or named integer constant.
fn constant(m: &Module, body: &Body, e: ExprId) -> Option<i128> {
    match &body.exprs[e].kind {
        ExprKind::Literal(Literal::Int(v)) => Some(i128::from(*v)),
        ExprKind::Const(c) => m.consts[c.index()].value.as_i128(),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Int(i128),
    Bool(bool),
}

/// `e` with local `x` holding `value`: comparisons, logic and bitwise and/or/xor of
/// constants (no arithmetic, whose wrapping would depend on the type); None for anything
/// else.
fn eval(m: &Module, body: &Body, e: ExprId, x: LocalId, value: i128) -> Option<Val> {
    let int = |e| match eval(m, body, e, x, value)? {
        Val::Int(v) => Some(v),
        Val::Bool(_) => None,
    };
    let boolean = |e| match eval(m, body, e, x, value)? {
        Val::Bool(b) => Some(b),
        Val::Int(_) => None,
    };
    Some(match &body.exprs[e].kind {
        ExprKind::Literal(Literal::Bool(b)) => Val::Bool(*b),
        ExprKind::Const(c) if m.consts[c.index()].ty == Ty::Bool => {
            Val::Bool(m.consts[c.index()].value == Value::Bool(true))
        }
        ExprKind::Literal(Literal::Int(_)) | ExprKind::Const(_) => Val::Int(constant(m, body, e)?),
        ExprKind::Local(l) if *l == x => Val::Int(value),
        ExprKind::Unary(UnaryOp::Not, a) => Val::Bool(!boolean(*a)?),
        ExprKind::Binary(op, a, b) => match op {
            BinaryOp::Lt => Val::Bool(int(*a)? < int(*b)?),
            BinaryOp::Le => Val::Bool(int(*a)? <= int(*b)?),
            BinaryOp::Gt => Val::Bool(int(*a)? > int(*b)?),
            BinaryOp::Ge => Val::Bool(int(*a)? >= int(*b)?),
            BinaryOp::Eq => Val::Bool(int(*a)? == int(*b)?),
            BinaryOp::Ne => Val::Bool(int(*a)? != int(*b)?),
            BinaryOp::And => Val::Bool(boolean(*a)? && boolean(*b)?),
            BinaryOp::Or => Val::Bool(boolean(*a)? || boolean(*b)?),
            BinaryOp::BitAnd => Val::Int(int(*a)? & int(*b)?),
            BinaryOp::BitOr => Val::Int(int(*a)? | int(*b)?),
            BinaryOp::BitXor => Val::Int(int(*a)? ^ int(*b)?),
            _ => return None,
        },
        _ => return None,
    })
}

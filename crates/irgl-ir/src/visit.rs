//! Walking a body: the blocks and expressions of each statement, the operands of each
//! expression, pre-order traversals. Passes and analyses build on these instead of matching
//! every statement kind themselves.

use crate::ir::*;

/// The blocks nested directly in a statement, in source order.
pub fn child_blocks(kind: &StmtKind) -> Vec<&Block> {
    match kind {
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => vec![then_block, else_block],
        StmtKind::Loop(l) => vec![&l.init, &l.body, &l.step],
        StmtKind::Block(b) => vec![b],
        StmtKind::ForAll(f) => vec![&f.body],
        StmtKind::Phase(p) => vec![&p.body],
        StmtKind::Region(r) => vec![&r.body],
        StmtKind::Control(c) => vec![&c.body],
        _ => Vec::new(),
    }
}

/// The blocks nested directly in a statement, mutably.
pub fn child_blocks_mut(kind: &mut StmtKind) -> Vec<&mut Block> {
    match kind {
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => vec![then_block, else_block],
        StmtKind::Loop(l) => vec![&mut l.init, &mut l.body, &mut l.step],
        StmtKind::Block(b) => vec![b],
        StmtKind::ForAll(f) => vec![&mut f.body],
        StmtKind::Phase(p) => vec![&mut p.body],
        StmtKind::Region(r) => vec![&mut r.body],
        StmtKind::Control(c) => vec![&mut c.body],
        _ => Vec::new(),
    }
}

fn place_exprs(place: &Place, out: &mut Vec<ExprId>) {
    if let Place::Element { index, .. } | Place::ArrayElement { index, .. } = place {
        out.push(*index);
    }
}

fn space_exprs(space: &Space, out: &mut Vec<ExprId>) {
    match space {
        Space::Edges { node, .. } => out.push(*node),
        Space::Range { lo, hi } => out.extend([*lo, *hi]),
        Space::Worklist
        | Space::Nodes
        | Space::SplitNodes
        | Space::Triangles
        | Space::Inspected => {}
    }
}

/// The expressions a statement uses directly (not those of nested statements), in
/// evaluation order.
pub fn stmt_exprs(kind: &StmtKind) -> Vec<ExprId> {
    let mut out = Vec::new();
    match kind {
        StmtKind::Let { init, .. } => out.extend(init),
        StmtKind::LetArray { elems, .. } => out.extend(elems),
        StmtKind::Assign { place, value, .. } => {
            place_exprs(place, &mut out);
            out.push(*value);
        }
        StmtKind::Eval(e) | StmtKind::Reduce(e) | StmtKind::Combine { value: e, .. } => {
            out.push(*e)
        }
        StmtKind::If { cond, .. } => out.push(*cond),
        StmtKind::Loop(l) => out.extend(l.cond),
        StmtKind::ForAll(f) => space_exprs(&f.space, &mut out),
        StmtKind::Push(p) => out.push(p.item),
        StmtKind::Accumulate(a) => out.push(a.value),
        StmtKind::Unlock { index, .. } => out.push(*index),
        StmtKind::Inspect(i) => space_exprs(&i.space, &mut out),
        StmtKind::Launch(l) => out.extend(&l.args),
        StmtKind::MeshUpdate(_, args) => out.extend(args),
        StmtKind::WorklistInit(Initial::List(items)) => out.extend(items),
        StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Block(_)
        | StmtKind::ReleaseMarks { .. }
        | StmtKind::CopyArray { .. }
        | StmtKind::GridSync
        | StmtKind::Phase(_)
        | StmtKind::WorklistClear
        | StmtKind::WorklistInit(Initial::AllNodes)
        | StmtKind::WorklistSwap(_)
        | StmtKind::ReduceReset(_)
        | StmtKind::Region(_)
        | StmtKind::Control(_)
        | StmtKind::CountIteration => {}
    }
    out
}

/// The operands of an expression, in evaluation order.
pub fn expr_operands(kind: &ExprKind) -> Vec<ExprId> {
    match kind {
        ExprKind::Element { index, .. } | ExprKind::ArrayElement { index, .. } => vec![*index],
        ExprKind::MeshQuery(_, args) => args.clone(),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Pop(a) => vec![*a],
        ExprKind::GraphQuery(_, a) | ExprKind::Split(_, a) => vec![*a],
        ExprKind::Binary(_, a, b) => vec![*a, *b],
        ExprKind::Select {
            cond,
            then_expr,
            else_expr,
        } => vec![*cond, *then_expr, *else_expr],
        ExprKind::Builtin(_, args) => args.clone(),
        ExprKind::Atomic { place, args, .. } => {
            let mut out = Vec::new();
            place_exprs(place, &mut out);
            out.extend(args);
            out
        }
        ExprKind::TryLock { index, .. } => vec![*index],
        ExprKind::FetchAdd { value, .. } => vec![*value],
        ExprKind::Literal(_)
        | ExprKind::Local(_)
        | ExprKind::Const(_)
        | ExprKind::Param(_)
        | ExprKind::Global(_)
        | ExprKind::GraphSize(_)
        | ExprKind::TryMarks { .. }
        | ExprKind::WorklistSize(_)
        | ExprKind::ReduceResult => Vec::new(),
    }
}

/// The outermost `ForAll`s of a body, in source order, each with whether it stands at the
/// body's top level (in plain blocks only, under no condition or loop), where every thread
/// of a block reaches it together.
pub fn outer_foralls(body: &Body) -> Vec<(StmtId, bool)> {
    fn walk(body: &Body, block: &Block, top: bool, out: &mut Vec<(StmtId, bool)>) {
        for &s in block {
            match &body.stmts[s].kind {
                StmtKind::ForAll(_) => out.push((s, top)),
                StmtKind::Block(b) => walk(body, b, top, out),
                k => {
                    for b in child_blocks(k) {
                        walk(body, b, false, out);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &body.block, true, &mut out);
    out
}

/// Calls `f` on every statement of `block` and of the blocks nested in it, in pre-order.
pub fn walk_stmts(body: &Body, block: &Block, f: &mut dyn FnMut(StmtId)) {
    for &s in block {
        f(s);
        for b in child_blocks(&body.stmts[s].kind) {
            walk_stmts(body, b, f);
        }
    }
}

/// Calls `f` on `e` and every expression below it, in pre-order.
pub fn walk_expr(body: &Body, e: ExprId, f: &mut dyn FnMut(ExprId)) {
    f(e);
    for o in expr_operands(&body.exprs[e].kind) {
        walk_expr(body, o, f);
    }
}

/// Calls `f` on every expression of the statements in `block` (nested ones included).
pub fn walk_block_exprs(body: &Body, block: &Block, f: &mut dyn FnMut(ExprId)) {
    walk_stmts(body, block, &mut |s| {
        for e in stmt_exprs(&body.stmts[s].kind) {
            walk_expr(body, e, f);
        }
    });
}

/// The locals a statement names directly: declared, assigned, or used by a lock protocol
/// (not those inside its expressions).
pub fn stmt_locals(kind: &StmtKind) -> Vec<LocalId> {
    match kind {
        StmtKind::Let { local, .. } | StmtKind::LetArray { local, .. } => vec![*local],
        StmtKind::Assign {
            place: Place::Local(l),
            ..
        } => vec![*l],
        StmtKind::ReleaseMarks { ids, .. } => vec![*ids],
        StmtKind::Combine { local, .. } => vec![*local],
        StmtKind::ForAll(f) => {
            let mut v = vec![f.var];
            v.extend(f.reductions.iter().map(|r| r.local));
            if let Schedule::Block(b) = &f.schedule {
                v.extend(&b.closure);
                v.extend([b.state.reached, b.state.count, b.state.begin]);
            }
            v
        }
        StmtKind::Inspect(i) => vec![i.state.reached, i.state.count, i.state.begin],
        _ => Vec::new(),
    }
}

/// The locals an expression names directly.
pub fn expr_locals(kind: &ExprKind) -> Vec<LocalId> {
    match kind {
        ExprKind::Local(l) | ExprKind::TryMarks { ids: l, .. } => vec![*l],
        ExprKind::Atomic {
            place: Place::Local(l),
            ..
        } => vec![*l],
        _ => Vec::new(),
    }
}

/// Every local read or written anywhere in `block`.
pub fn locals_used(body: &Body, block: &Block) -> std::collections::BTreeSet<LocalId> {
    let mut out = std::collections::BTreeSet::new();
    walk_stmts(body, block, &mut |s| {
        out.extend(stmt_locals(&body.stmts[s].kind));
    });
    walk_block_exprs(body, block, &mut |e| {
        out.extend(expr_locals(&body.exprs[e].kind));
    });
    out
}

/// Whether an expression (or one below it) satisfies `pred`.
pub fn expr_any(body: &Body, e: ExprId, pred: &dyn Fn(&ExprKind) -> bool) -> bool {
    let mut found = false;
    walk_expr(body, e, &mut |x| found |= pred(&body.exprs[x].kind));
    found
}

/// Whether a statement of `block` (nested ones included) satisfies `pred`.
pub fn block_any(body: &Body, block: &Block, pred: &dyn Fn(&StmtKind) -> bool) -> bool {
    let mut found = false;
    walk_stmts(body, block, &mut |s| found |= pred(&body.stmts[s].kind));
    found
}

/// The block-aggregated pushes of a trip's body (see [`Aggregation::Block`]): those in `block`
/// outside any loop or `ForAll` nested in it, in source order.
pub fn trip_pushes(body: &Body, block: &Block) -> Vec<StmtId> {
    fn walk(body: &Body, block: &Block, out: &mut Vec<StmtId>) {
        for &s in block.iter() {
            match &body.stmts[s].kind {
                StmtKind::Push(p) if p.aggregation == Aggregation::Block => out.push(s),
                StmtKind::Loop(_) | StmtKind::ForAll(_) => {}
                kind => {
                    for b in child_blocks(kind) {
                        walk(body, b, out);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(body, block, &mut out);
    out
}

/// The pushes of a loop's body reserved before the loop, at level `level`
/// ([`Aggregation::Thread`] for a counted serial loop, [`Aggregation::BlockLoop`] for a
/// block-scheduled one): those in `block` or in plain blocks nested in it, in source order.
pub fn loop_pushes(body: &Body, block: &Block, level: Aggregation) -> Vec<StmtId> {
    let mut out = Vec::new();
    for &s in block.iter() {
        match &body.stmts[s].kind {
            StmtKind::Push(p) if p.aggregation == level => out.push(s),
            StmtKind::Block(b) => out.extend(loop_pushes(body, b, level)),
            _ => {}
        }
    }
    out
}

/// The additions to globals of a kernel's body deferred to its end (see [`Accumulate`]):
/// those at thread or block level, in source order.
pub fn deferred_adds(body: &Body) -> Vec<StmtId> {
    let mut out = Vec::new();
    walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Accumulate(a) = &body.stmts[s].kind
            && matches!(a.aggregation, Aggregation::Thread | Aggregation::Block)
        {
            out.push(s);
        }
    });
    out
}

/// Whether `body` uses global `g` other than by additions whose old value is unused (an
/// `Eval` of `atomicAdd` on it, or an [`Accumulate`]): reads it, assigns it, or updates it
/// with another atomic (a [`ExprKind::FetchAdd`] included). Additions deferred to the end of a kernel need it not to.
pub fn other_uses_of_global(body: &Body, g: GlobalId) -> bool {
    let mut adds = std::collections::HashSet::new();
    let mut other = false;
    walk_stmts(body, &body.block, &mut |s| match &body.stmts[s].kind {
        StmtKind::Eval(e) => {
            if let ExprKind::Atomic {
                op: AtomicOp::Add,
                place: Place::Global(x),
                ..
            } = &body.exprs[*e].kind
                && *x == g
            {
                adds.insert(*e);
            }
        }
        StmtKind::Assign {
            place: Place::Global(x),
            ..
        } => other |= *x == g,
        _ => {}
    });
    walk_block_exprs(body, &body.block, &mut |e| {
        other |= match &body.exprs[e].kind {
            ExprKind::Global(x) => *x == g,
            ExprKind::Atomic {
                place: Place::Global(x),
                ..
            } => *x == g && !adds.contains(&e),
            ExprKind::FetchAdd { global: x, .. } => *x == g,
            _ => false,
        };
    });
    other
}

/// The launch inside `s` if `s` is a re-invocation loop over the retry worklist, as lowering
/// writes one after each launch of a kernel that retries:
/// `loop while wl.retry.size != 0 { wl.swap retry; launch K(..) }`.
pub fn retry_loop_launch(body: &Body, s: StmtId) -> Option<StmtId> {
    let StmtKind::Loop(l) = &body.stmts[s].kind else {
        return None;
    };
    let cond_is_retry = l.cond.is_some_and(|c| {
        expr_any(body, c, &|e| {
            matches!(e, ExprKind::WorklistSize(WorklistRef::Retry))
        })
    });
    let shape = cond_is_retry
        && l.init.is_empty()
        && l.step.is_empty()
        && l.body.len() == 2
        && matches!(
            body.stmts[l.body[0]].kind,
            StmtKind::WorklistSwap(WorklistRef::Retry)
        )
        && matches!(body.stmts[l.body[1]].kind, StmtKind::Launch(_));
    shape.then_some(l.body[1])
}

/// Whether `s` is a re-invocation loop over the retry worklist that launches `k`
/// ([`retry_loop_launch`]).
pub fn is_retry_loop_of(body: &Body, s: StmtId, k: KernelId) -> bool {
    retry_loop_launch(body, s).is_some_and(
        |launch| matches!(&body.stmts[launch].kind, StmtKind::Launch(l) if l.kernel == k),
    )
}

/// The first `Launch` in `block`, depth first, if any.
pub fn first_launch<'a>(body: &'a Body, block: &Block) -> Option<&'a Launch> {
    for &s in block {
        let kind = &body.stmts[s].kind;
        if let StmtKind::Launch(l) = kind {
            return Some(l);
        }
        if let Some(l) = child_blocks(kind)
            .into_iter()
            .find_map(|b| first_launch(body, b))
        {
            return Some(l);
        }
    }
    None
}

/// Whether statement `s` only updates statistics (`statistic global`): an `Eval` of an atomic
/// on one, an [`Accumulate`] into one, or an `if` whose branches hold nothing else. The
/// program's answer does not depend on a statistic, so an analysis that judges what a kernel
/// computes may pass over such a statement, its condition included (a sample taken by the
/// worklist index, as sssp-nf's `if (wi % 32 == 0) { atomicMax(widest, wi + 1); }`).
pub fn statistic_only(m: &Module, body: &Body, s: StmtId) -> bool {
    let statistic = |g: &GlobalId| m.globals[g.index()].statistic;
    match &body.stmts[s].kind {
        StmtKind::Eval(e) => matches!(
            &body.exprs[*e].kind,
            ExprKind::Atomic { place: Place::Global(g), .. } if statistic(g)
        ),
        StmtKind::Accumulate(a) => statistic(&a.global),
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => {
            !(then_block.is_empty() && else_block.is_empty())
                && then_block
                    .iter()
                    .chain(else_block)
                    .all(|&t| statistic_only(m, body, t))
        }
        _ => false,
    }
}

//! Which node values of a kernel are ids of its own GPU's numbering, for a program run
//! partitioned over several GPUs.
//!
//! A part numbers its nodes locally (its masters, then its mirrors): the node a thread runs
//! for, the heads of its edges, the items it pops and the node parameters are local ids,
//! which index properties and go to worklists as they are. A node id used as a *value* (stored
//! in a property of type `node`, ordered, computed with or converted to a number) must be the
//! same on every GPU: the generated code converts a local id to the global one there, and the
//! ids read back from properties are global already.

use std::collections::{BTreeMap, BTreeSet};

use crate::{Body, ExprId, ExprKind, LocalId, LocalKind, Place, Space, StmtKind, Ty, visit};

/// The node-typed locals of `body` whose every value is a local id: `ForAll` variables over
/// the nodes, node parameters, and the `let`s whose every definition is a local id.
pub fn local_node_ids(body: &Body) -> BTreeSet<LocalId> {
    let mut defs: BTreeMap<LocalId, Vec<ExprId>> = BTreeMap::new();
    let mut set: BTreeSet<LocalId> = BTreeSet::new();
    for (l, local) in body.locals.iter() {
        if local.ty == Ty::Node
            && matches!(
                local.kind,
                LocalKind::Let | LocalKind::Temp | LocalKind::Param
            )
        {
            set.insert(l);
        }
    }
    visit::walk_stmts(body, &body.block, &mut |s| match &body.stmts[s].kind {
        StmtKind::Let {
            local,
            init: Some(init),
        } => defs.entry(*local).or_default().push(*init),
        StmtKind::Assign {
            place: Place::Local(l),
            value,
            ..
        } => defs.entry(*l).or_default().push(*value),
        StmtKind::ForAll(f) if f.space == Space::Nodes => {
            set.insert(f.var);
        }
        _ => {}
    });
    // The greatest set closed under the definitions: drop a local one of whose definitions is
    // not a local id, until none changes.
    loop {
        let drop: Vec<LocalId> = set
            .iter()
            .copied()
            .filter(|l| {
                defs.get(l)
                    .is_some_and(|ds| ds.iter().any(|&d| !is_local_id(body, &set, d)))
            })
            .collect();
        if drop.is_empty() {
            return set;
        }
        for l in drop {
            set.remove(&l);
        }
    }
}

/// Whether `e` (of type `node`) is a local id, given the locals that hold local ids.
pub fn is_local_id(body: &Body, locals: &BTreeSet<LocalId>, e: ExprId) -> bool {
    let x = &body.exprs[e];
    if x.ty != Ty::Node {
        return false;
    }
    match &x.kind {
        ExprKind::Local(l) => locals.contains(l),
        ExprKind::Param(_) | ExprKind::Pop(_) => true,
        ExprKind::GraphQuery(crate::GraphMethod::Dst | crate::GraphMethod::Src, _) => true,
        ExprKind::Cast(a) => is_local_id(body, locals, *a),
        ExprKind::Select {
            then_expr,
            else_expr,
            ..
        } => is_local_id(body, locals, *then_expr) && is_local_id(body, locals, *else_expr),
        _ => false,
    }
}

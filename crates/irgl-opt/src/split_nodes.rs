//! `split_nodes`: a kernel over the nodes runs over the parts of split nodes (node
//! splitting, as the seed paper on load balancing by node splitting cuts a graph's hubs).
//!
//! **Why.** A kernel whose outer loop takes one node per thread gives a hub's edges to one
//! thread: on a star whose hub has a million edges, one thread walks them while the rest of
//! the grid has finished. The nested schedulers move a hub's edges to its block (`tb`) or,
//! with `gd`, to the grid; splitting instead cuts the hub into parts of at most D edges
//! before the loop starts, so that the grid's threads (and, with `tb+wp+fg`, its blocks and
//! warps) share them without any scheduling inside the kernel. D is chosen when the program
//! loads its graph (`--split-degree auto`: the top of the tallest bin of the degree
//! histogram, as the paper does, at least a resident thread's share of the edges and 32);
//! a graph without nodes above it is not split and pays one comparison per item.
//!
//! **What it assumes.** `irgl_analysis::SplitCandidates` accepts the kernel: outside its
//! loops over the node's out-edges the item only computes locals from what the kernel does
//! not change (or only lowers by `atomicMin`), and those loops carry nothing out of
//! themselves, so that running the item once per part with its loops cut to the part's
//! edges does what running it once did. Updates to other nodes are the edges' atomics, so
//! the parts of a node combine there as its edges did.
//!
//! **What it does.** The outer loop becomes a loop over the parts ([`Space::SplitNodes`])
//! with a new variable, the node variable becomes a local set from the part
//! (`split_node`), and each loop over the node's out-edges becomes a range over the part's
//! edges. The other passes see an ordinary outer loop with nested range loops: the nested
//! schedulers, aggregation and outlining apply as before. Before and after (`irglc emit ir
//! programs/pr.irgl -O0 --split-nodes all`, abridged):
//!
//! ```text
//! forall loop0 n in nodes {                 forall loop0 irgl_part in split nodes {
//!   let d = degree(n)                         let n = split_node(irgl_part)
//!   ...                             ==>       let d = degree(n)
//!   forall loop1 e in edges(n) {              ...
//!     ...                                     forall loop1 e in split_begin(irgl_part)..split_end(irgl_part) {
//! ```

use irgl_analysis::SplitCandidates;
use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::OptConfig;

/// Splits the nodes of the kernels that `config.split_nodes` names. Errors: a name that is no
/// kernel, or a kernel the analysis refuses (E0515, with its reason).
pub fn split_nodes(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let candidates = SplitCandidates::build(m);
    let chosen =
        crate::chosen_kernels(m, &config.split_nodes, "--split-nodes", "E0515", |k, _| {
            match candidates.get(k) {
                Some(Ok(l)) => Ok(*l),
                Some(Err(why)) => Err(format!("does not apply: {why}")),
                None => Err("does not apply: a version of another kernel".to_string()),
            }
        })?;
    for (k, l) in chosen {
        split_loop(&mut m.kernels[k].body, l);
    }
    Ok(())
}

/// Rewrites outer loop `l` of `body` over the parts.
fn split_loop(body: &mut Body, l: LoopId) {
    let Some(&s) = body
        .block
        .iter()
        .find(|&&s| matches!(&body.stmts[s].kind, StmtKind::ForAll(f) if f.id == l))
    else {
        return;
    };
    let StmtKind::ForAll(f) = &body.stmts[s].kind else {
        return;
    };
    let node = f.var;
    let span = body.locals[node].span;
    // Each loop over the node's out-edges: the part's edges.
    let mut edge_loops = Vec::new();
    visit::walk_stmts(body, &f.body, &mut |t| {
        if let StmtKind::ForAll(inner) = &body.stmts[t].kind
            && let Space::Edges {
                node: n,
                dir: EdgeDir::Out,
            } = inner.space
            && body.exprs[n].kind == ExprKind::Local(node)
        {
            edge_loops.push(t);
        }
    });
    let part = body.add_local("irgl_part", Ty::U32, LocalKind::ForAllVar, span);
    body.locals[node].kind = LocalKind::Let;
    for t in edge_loops {
        let at = |body: &mut Body, q| {
            let p = body.add_expr(ExprKind::Local(part), Ty::U32, span);
            body.add_expr(ExprKind::Split(q, p), Ty::Edge, span)
        };
        let lo = at(body, SplitQuery::Begin);
        let hi = at(body, SplitQuery::End);
        if let StmtKind::ForAll(inner) = &mut body.stmts[t].kind {
            inner.space = Space::Range { lo, hi };
        }
    }
    let p = body.add_expr(ExprKind::Local(part), Ty::U32, span);
    let owner = body.add_expr(ExprKind::Split(SplitQuery::Node, p), Ty::Node, span);
    let declare = body.add_stmt(
        StmtKind::Let {
            local: node,
            init: Some(owner),
        },
        span,
    );
    if let StmtKind::ForAll(f) = &mut body.stmts[s].kind {
        f.var = part;
        f.space = Space::SplitNodes;
        f.body.insert(0, declare);
    }
}

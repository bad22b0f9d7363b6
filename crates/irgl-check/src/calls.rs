//! Functions and their calls: the call graph (no recursion, E0332), what a kernel touches
//! through the functions it calls, functions never called (W0003), and whether a body
//! always ends in `return` (E0331).
//!
//! ```text
//! Function f(graph g, node n): u32 { return g2(g, n); }
//! Function g2(graph g, node n): u32 { return f(g, n); }   // E0332: f -> g2 -> f
//! ```

use std::collections::BTreeSet;

use irgl_diagnostics::Diagnostic;
use irgl_syntax::ast::{Block, ExprKind, Stmt, StmtKind};
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::cx::Cx;
use crate::info::FuncId;

/// Reports recursion, folds each kernel's callees into its [`KernelInfo`](crate::KernelInfo),
/// and warns about functions nothing calls.
pub(crate) fn check_calls(cx: &mut Cx<'_>) {
    let n = cx.info.functions.len();
    if n == 0 {
        return;
    }
    let mut graph: DiGraph<FuncId, ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..n).map(|i| graph.add_node(FuncId(i as u32))).collect();
    for (i, f) in cx.info.functions.iter().enumerate() {
        for &(callee, _) in &f.calls {
            graph.update_edge(nodes[i], nodes[callee.index()], ());
        }
    }
    let mut recursive = vec![false; n];
    for scc in tarjan_scc(&graph) {
        let first = graph[scc[0]];
        let self_loop = scc.len() == 1 && graph.contains_edge(scc[0], scc[0]);
        if scc.len() == 1 && !self_loop {
            continue;
        }
        for &v in &scc {
            recursive[graph[v].index()] = true;
        }
        // Name the cycle from the function declared first, following calls inside the SCC.
        let members: BTreeSet<FuncId> = scc.iter().map(|&v| graph[v]).collect();
        let start = *members.iter().next().unwrap_or(&first);
        let mut path = vec![start];
        let mut at = start;
        loop {
            let (next, _) = cx.info.functions[at.index()]
                .calls
                .iter()
                .copied()
                .find(|(c, _)| members.contains(c))
                .expect("a function in a cycle calls one in it");
            path.push(next);
            if next == start || path.len() > members.len() + 1 {
                break;
            }
            at = next;
        }
        let names: Vec<&str> = path
            .iter()
            .map(|f| cx.info.functions[f.index()].name.as_str())
            .collect();
        let f = &cx.info.functions[start.index()];
        let (_, call) = f
            .calls
            .iter()
            .copied()
            .find(|(c, _)| members.contains(c))
            .expect("a call in the cycle");
        let d = Diagnostic::error(
            "E0332",
            format!("function `{}` calls itself: {}", f.name, names.join(" -> ")),
        )
        .with_label(call, "this call starts the cycle")
        .with_help(
            "functions are inlined into the kernels that call them, so they cannot recurse; \
             write the recursion as a loop (with a local array as the stack if it needs one)",
        );
        cx.diags.push(d);
    }
    // What each function touches, its callees included (the graph is acyclic past here).
    let mut done = vec![false; n];
    fn close(cx: &mut Cx<'_>, f: usize, done: &mut [bool], recursive: &[bool]) {
        if done[f] || recursive[f] {
            return;
        }
        done[f] = true;
        let callees: Vec<usize> = cx.info.functions[f]
            .calls
            .iter()
            .map(|(c, _)| c.index())
            .collect();
        for c in callees {
            close(cx, c, done, recursive);
            let callee = cx.info.functions[c].clone();
            let me = &mut cx.info.functions[f];
            me.uses_atomic_functions |= callee.uses_atomic_functions;
            me.indexes_arrays |= callee.indexes_arrays;
            merge(&mut me.access, &callee.access);
        }
    }
    for f in 0..n {
        close(cx, f, &mut done, &recursive);
    }
    let mut called = vec![false; n];
    for k in 0..cx.info.kernels.len() {
        let callees: Vec<usize> = cx.info.kernels[k]
            .calls
            .iter()
            .map(|(c, _)| c.index())
            .collect();
        for c in callees {
            let callee = cx.info.functions[c].clone();
            let kernel = &mut cx.info.kernels[k];
            kernel.uses_atomic_functions |= callee.uses_atomic_functions;
            kernel.indexes_arrays |= callee.indexes_arrays;
            merge(&mut kernel.access, &callee.access);
            called[c] = true;
        }
    }
    for f in &cx.info.functions {
        for &(c, _) in &f.calls {
            called[c.index()] = true;
        }
    }
    if cx.recovered {
        return;
    }
    for (i, f) in cx.info.functions.iter().enumerate() {
        if !called[i] && !cx.called.contains(&FuncId(i as u32)) {
            let d = Diagnostic::warning("W0003", format!("function `{}` is never called", f.name))
                .with_label(f.span, "declared here")
                .with_help("call it from a kernel or another function, or remove it");
            cx.diags.push(d);
        }
    }
}

fn merge(into: &mut crate::info::Access, from: &crate::info::Access) {
    into.globals_read.extend(&from.globals_read);
    into.globals_written.extend(&from.globals_written);
    into.props_read.extend(&from.props_read);
    into.props_written.extend(&from.props_written);
}

/// Whether every path through `b` ends in `return` (or in a loop it never leaves), so that
/// control cannot reach its end.
pub fn always_returns(b: &Block) -> bool {
    b.stmts.last().is_some_and(stmt_returns)
}

fn stmt_returns(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::Block(b) => always_returns(b),
        StmtKind::If {
            then_block,
            else_block: Some(else_block),
            ..
        } => always_returns(then_block) && always_returns(else_block),
        StmtKind::While { cond, body } => is_true(cond) && !breaks(body),
        StmtKind::For {
            cond: None, body, ..
        } => !breaks(body),
        StmtKind::For {
            cond: Some(c),
            body,
            ..
        } => is_true(c) && !breaks(body),
        _ => false,
    }
}

fn is_true(e: &irgl_syntax::ast::Expr) -> bool {
    matches!(e.kind, ExprKind::Bool(true))
}

/// Whether a `break` in `b` leaves the loop whose body `b` is (breaks of nested loops do not).
fn breaks(b: &Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::Block(b) => breaks(b),
        StmtKind::If {
            then_block,
            else_block,
            ..
        } => breaks(then_block) || else_block.as_ref().is_some_and(breaks),
        _ => false,
    })
}

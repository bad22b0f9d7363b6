//! A walk over every location-carrying part of a program, in pre-order.
//!
//! [`walk_program_mut`] hands each numbered node (item, property, kernel parameter, block,
//! statement, call, expression) to a callback as [`Slot::Node`], every other span (types,
//! iterators, conditions) as [`Slot::Span`], and every identifier as [`Slot::Ident`]. The
//! order is source order, which makes the ids from [`Program::renumber`] deterministic.

use crate::ast::*;

/// One location-carrying part of the tree.
pub enum Slot<'a> {
    Node {
        id: &'a mut NodeId,
        span: &'a mut Span,
    },
    Span(&'a mut Span),
    Ident(&'a mut Ident),
}

pub fn walk_program_mut(p: &mut Program, f: &mut dyn FnMut(Slot<'_>)) {
    for item in &mut p.items {
        walk_item(item, f);
    }
}

fn node(id: &mut NodeId, span: &mut Span, f: &mut dyn FnMut(Slot<'_>)) {
    f(Slot::Node { id, span });
}

fn ident(i: &mut Ident, f: &mut dyn FnMut(Slot<'_>)) {
    f(Slot::Ident(i));
}

fn ty(t: &mut Type, f: &mut dyn FnMut(Slot<'_>)) {
    f(Slot::Span(&mut t.span));
}

fn walk_item(item: &mut Item, f: &mut dyn FnMut(Slot<'_>)) {
    node(&mut item.id, &mut item.span, f);
    match &mut item.kind {
        ItemKind::Graph(g) => {
            ident(&mut g.name, f);
            for a in &mut g.attrs {
                ident(a, f);
            }
            for p in &mut g.props {
                node(&mut p.id, &mut p.span, f);
                ident(&mut p.name, f);
                ty(&mut p.ty, f);
            }
        }
        ItemKind::Const(c) => {
            ident(&mut c.name, f);
            ty(&mut c.ty, f);
            walk_expr(&mut c.value, f);
        }
        ItemKind::Param(p) => {
            ident(&mut p.name, f);
            ty(&mut p.ty, f);
            walk_expr(&mut p.default, f);
        }
        ItemKind::Global(g) => {
            ident(&mut g.name, f);
            ty(&mut g.ty, f);
            if let Some(e) = &mut g.init {
                walk_expr(e, f);
            }
        }
        ItemKind::Output(o) => {
            for n in &mut o.names {
                ident(n, f);
            }
        }
        ItemKind::Kernel(k) => {
            ident(&mut k.name, f);
            params(&mut k.params, f);
            walk_block(&mut k.body, f);
        }
        ItemKind::Array(a) => {
            ident(&mut a.name, f);
            ty(&mut a.ty, f);
            walk_expr(&mut a.len, f);
        }
        ItemKind::Function(k) => {
            ident(&mut k.name, f);
            params(&mut k.params, f);
            if let Some(t) = &mut k.ret {
                ty(t, f);
            }
            walk_block(&mut k.body, f);
        }
        ItemKind::Main(b) => walk_block(b, f),
        ItemKind::Error => {}
    }
}

fn params(ps: &mut [KernelParam], f: &mut dyn FnMut(Slot<'_>)) {
    for p in ps {
        node(&mut p.id, &mut p.span, f);
        ty(&mut p.ty, f);
        ident(&mut p.name, f);
    }
}

pub fn walk_block(b: &mut Block, f: &mut dyn FnMut(Slot<'_>)) {
    node(&mut b.id, &mut b.span, f);
    for s in &mut b.stmts {
        walk_stmt(s, f);
    }
}

fn walk_call(c: &mut Call, f: &mut dyn FnMut(Slot<'_>)) {
    node(&mut c.id, &mut c.span, f);
    ident(&mut c.kernel, f);
    for a in &mut c.args {
        walk_expr(a, f);
    }
}

pub fn walk_stmt(s: &mut Stmt, f: &mut dyn FnMut(Slot<'_>)) {
    node(&mut s.id, &mut s.span, f);
    match &mut s.kind {
        StmtKind::Let { name, ty: t, init } => {
            ident(name, f);
            if let Some(t) = t {
                ty(t, f);
            }
            walk_expr(init, f);
        }
        StmtKind::LetArray { name, elem, len } => {
            ident(name, f);
            ty(elem, f);
            walk_expr(len, f);
        }
        StmtKind::Assign { target, value, .. } => {
            walk_expr(target, f);
            walk_expr(value, f);
        }
        StmtKind::Expr(e) | StmtKind::ReduceAndReturn(e) => walk_expr(e, f),
        StmtKind::If {
            cond,
            then_block,
            else_block,
        } => {
            walk_expr(cond, f);
            walk_block(then_block, f);
            if let Some(b) = else_block {
                walk_block(b, f);
            }
        }
        StmtKind::While { cond, body } => {
            walk_expr(cond, f);
            walk_block(body, f);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            if let Some(s) = init {
                walk_stmt(s, f);
            }
            if let Some(c) = cond {
                walk_expr(c, f);
            }
            if let Some(s) = step {
                walk_stmt(s, f);
            }
            walk_block(body, f);
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::SyncRunningThreads | StmtKind::Error => {}
        StmtKind::Return(e) => {
            if let Some(e) = e {
                walk_expr(e, f);
            }
        }
        StmtKind::Block(b) => walk_block(b, f),
        StmtKind::ForAll {
            var,
            iter,
            reduce,
            body,
        } => {
            ident(var, f);
            match iter {
                Iter::Worklist { span } => f(Slot::Span(span)),
                Iter::Nodes { graph } => ident(graph, f),
                Iter::Triangles { mesh } => ident(mesh, f),
                Iter::Edges { graph, node, .. } => {
                    ident(graph, f);
                    walk_expr(node, f);
                }
                Iter::Range { lo, hi } => {
                    walk_expr(lo, f);
                    walk_expr(hi, f);
                }
            }
            for r in reduce {
                ident(&mut r.op, f);
                ident(&mut r.local, f);
            }
            walk_block(body, f);
        }
        StmtKind::Atomic {
            lock,
            body,
            otherwise,
        } => {
            walk_expr(lock, f);
            walk_block(body, f);
            if let Some(b) = otherwise {
                walk_block(b, f);
            }
        }
        StmtKind::Exclusive {
            object,
            elements,
            upto,
            body,
            otherwise,
        } => {
            walk_expr(object, f);
            for e in elements {
                walk_expr(e, f);
            }
            if let Some(n) = upto {
                walk_expr(n, f);
            }
            walk_block(body, f);
            if let Some(b) = otherwise {
                walk_block(b, f);
            }
        }
        StmtKind::Retry { item, .. } => walk_expr(item, f),
        StmtKind::Invoke(c) => walk_call(c, f),
        StmtKind::Iterate {
            cond,
            call,
            initial,
            step,
        } => {
            if let Some(c) = cond {
                f(Slot::Span(&mut c.span));
            }
            walk_call(call, f);
            match initial {
                Some(Initial::List { span, items }) => {
                    f(Slot::Span(span));
                    for e in items {
                        walk_expr(e, f);
                    }
                }
                Some(Initial::AllNodes { span, graph }) => {
                    f(Slot::Span(span));
                    ident(graph, f);
                }
                None => {}
            }
            if let Some(b) = step {
                walk_block(b, f);
            }
        }
        StmtKind::Pipe { body, .. } => walk_block(body, f),
    }
}

pub fn walk_expr(e: &mut Expr, f: &mut dyn FnMut(Slot<'_>)) {
    node(&mut e.id, &mut e.span, f);
    match &mut e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Error => {}
        ExprKind::Name(n) => ident(n, f),
        ExprKind::Unary { operand, .. } => walk_expr(operand, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            walk_expr(lhs, f);
            walk_expr(rhs, f);
        }
        ExprKind::Ternary {
            cond,
            then_expr,
            else_expr,
        } => {
            walk_expr(cond, f);
            walk_expr(then_expr, f);
            walk_expr(else_expr, f);
        }
        ExprKind::Cast { expr, ty: t } => {
            walk_expr(expr, f);
            ty(t, f);
        }
        ExprKind::Call { func, args } => {
            ident(func, f);
            for a in args {
                walk_expr(a, f);
            }
        }
        ExprKind::Field { base, field } => {
            ident(base, f);
            ident(field, f);
        }
        ExprKind::Index { base, prop, index } => {
            ident(base, f);
            ident(prop, f);
            walk_expr(index, f);
        }
        ExprKind::ArrayIndex { base, index } => {
            ident(base, f);
            walk_expr(index, f);
        }
        ExprKind::Method { base, method, args } => {
            ident(base, f);
            ident(method, f);
            for a in args {
                walk_expr(a, f);
            }
        }
        ExprKind::Pop(x) | ExprKind::Push(x) => walk_expr(x, f),
        ExprKind::Invoke { call, .. } => walk_call(call, f),
    }
}

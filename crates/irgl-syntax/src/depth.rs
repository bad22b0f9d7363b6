//! The nesting limit of statements and expressions.
//!
//! The parser is table-driven and builds trees of any depth without recursion, but every later
//! stage (renumbering, the checker, the printer, the dumps, the lowering to IR, the passes and
//! the back end) recurses on the tree, and so does dropping it. The parser therefore measures
//! the nesting of every node as its grammar action builds it (from the levels of the node's
//! children, one level down, never recursively) and stops with E0010 as soon as a node holds
//! more than [`MAX_NESTING`] levels, itself included, before a deeper tree exists.
//!
//! A level is a statement or an expression: in `if (c) { if (d) { x = 1 + y; } }` the
//! assignment is three levels deep (two `if`s, the assignment), `y` five. Every operator is a
//! level (`1 + 1 + 1` is a chain of two additions); blocks and parentheses are not.
//!
//! Brackets of every kind are limited too, on the tokens before parsing, to
//! [`MAX_BRACKETS`] deep, so that error recovery never works on a parse stack deeper than that
//! (parentheses make no node, and unclosed brackets none yet). The printer adds at most one
//! bracket pair per level, so what it prints for an accepted program is accepted again.

use irgl_diagnostics::{Diagnostic, FileId, Span};

use crate::ast::*;
use crate::lexer::Tok;

/// How many statements and expressions may nest inside one another. Generous for
/// any program written by hand (the programs in `programs/` nest at most 12 levels), small
/// enough that the recursive stages need a few MiB of stack at most (`irgl_driver::STACK_BYTES`
/// says how much a thread needs).
pub const MAX_NESTING: u32 = 256;

/// How deep brackets (`(`, `[`, `{`) may nest: one pair per level, plus the declaration's own
/// braces and the list of `Exclusive (m, [...])` inside its parentheses.
pub const MAX_BRACKETS: u32 = MAX_NESTING + 2;

/// E0010 for a statement or expression built by the parser that holds more than
/// [`MAX_NESTING`] levels (itself included). Trees are built from the inside out, so this is
/// the outermost node of the deepest chain that fits the limit, plus one.
pub(crate) fn too_deep(span: Span) -> Diagnostic {
    Diagnostic::error("E0010", format!("nesting deeper than {MAX_NESTING} levels"))
        .with_label(
            first_char(span),
            format!("{} levels deep from here inwards", MAX_NESTING + 1),
        )
        .with_help(
            "every statement and every operator is a level; split the work into `let`s, \
             smaller blocks or more kernels",
        )
}

fn first_char(span: Span) -> Span {
    Span {
        end: span.start + 1,
        ..span
    }
}

/// E0010 at the first opening bracket nested deeper than [`MAX_BRACKETS`].
pub(crate) fn unclosed_brackets<'s>(
    file: FileId,
    tokens: impl Iterator<Item = (usize, &'s Tok<'s>, usize)>,
) -> Option<Diagnostic> {
    let mut depth = 0u32;
    for (l, tok, r) in tokens {
        match tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => {
                depth += 1;
                if depth > MAX_BRACKETS {
                    return Some(
                        Diagnostic::error(
                            "E0010",
                            format!("brackets nested deeper than {MAX_BRACKETS} levels"),
                        )
                        .with_label(
                            first_char(Span::new(file, l, r)),
                            format!("bracket {} from the outside", MAX_BRACKETS + 1),
                        )
                        .with_help("close the brackets, or split the work into `let`s, smaller blocks or more kernels"),
                    );
                }
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The level of a statement or expression built by the parser. While parsing, a node's `id`
/// holds its level; [`Program::renumber`] assigns the ids proper once the tree is complete.
fn level(id: NodeId) -> u32 {
    debug_assert!(id != NodeId::UNSET, "a node built without its level");
    id.0
}

/// The level of an expression of this kind: one more than its deepest child.
pub(crate) fn expr_level(kind: &ExprKind) -> u32 {
    let mut children = Vec::new();
    expr_children(kind, &mut children);
    1 + children.iter().map(Node::level).max().unwrap_or(0)
}

/// The level of a statement of this kind: one more than its deepest child.
pub(crate) fn stmt_level(kind: &StmtKind) -> u32 {
    let mut children = Vec::new();
    stmt_children(kind, &mut children);
    1 + children.iter().map(Node::level).max().unwrap_or(0)
}

/// The level of a block: that of its deepest statement (blocks add no level of their own).
pub(crate) fn block_level(stmts: &[Stmt]) -> u32 {
    stmts.iter().map(|s| level(s.id)).max().unwrap_or(0)
}

enum Node<'a> {
    Block(&'a Block),
    Stmt(&'a Stmt),
    Expr(&'a Expr),
}

impl Node<'_> {
    fn level(&self) -> u32 {
        match self {
            Node::Block(b) => level(b.id),
            Node::Stmt(s) => level(s.id),
            Node::Expr(e) => level(e.id),
        }
    }
}

fn stmt_children<'a>(kind: &'a StmtKind, out: &mut Vec<Node<'a>>) {
    let block = |b: &'a Option<Block>| b.iter().map(Node::Block);
    match kind {
        StmtKind::Let { init, .. } => out.push(Node::Expr(init)),
        StmtKind::LetArray { len, .. } => out.push(Node::Expr(len)),
        StmtKind::Assign { target, value, .. } => {
            out.extend([Node::Expr(target), Node::Expr(value)]);
        }
        StmtKind::Expr(e) | StmtKind::ReduceAndReturn(e) | StmtKind::Retry { item: e, .. } => {
            out.push(Node::Expr(e));
        }
        StmtKind::Return(e) => out.extend(e.iter().map(Node::Expr)),
        StmtKind::If {
            cond,
            then_block,
            else_block,
        } => {
            out.extend([Node::Expr(cond), Node::Block(then_block)]);
            out.extend(block(else_block));
        }
        StmtKind::While { cond, body } => out.extend([Node::Expr(cond), Node::Block(body)]),
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            out.extend(init.iter().map(|s| Node::Stmt(s)));
            out.extend(cond.iter().map(Node::Expr));
            out.extend(step.iter().map(|s| Node::Stmt(s)));
            out.push(Node::Block(body));
        }
        StmtKind::Block(b) | StmtKind::Pipe { body: b, .. } => out.push(Node::Block(b)),
        StmtKind::ForAll { iter, body, .. } => {
            match iter {
                Iter::Edges { node, .. } => out.push(Node::Expr(node)),
                Iter::Range { lo, hi } => out.extend([Node::Expr(lo), Node::Expr(hi)]),
                Iter::Worklist { .. } | Iter::Nodes { .. } | Iter::Triangles { .. } => {}
            }
            out.push(Node::Block(body));
        }
        StmtKind::Atomic {
            lock,
            body,
            otherwise,
        } => {
            out.extend([Node::Expr(lock), Node::Block(body)]);
            out.extend(block(otherwise));
        }
        StmtKind::Exclusive {
            object,
            elements,
            upto,
            body,
            otherwise,
        } => {
            out.push(Node::Expr(object));
            out.extend(elements.iter().map(Node::Expr));
            out.extend(upto.iter().map(|e| Node::Expr(e)));
            out.push(Node::Block(body));
            out.extend(block(otherwise));
        }
        StmtKind::Invoke(call) => out.extend(call.args.iter().map(Node::Expr)),
        StmtKind::Iterate {
            call,
            initial,
            step,
            ..
        } => {
            out.extend(call.args.iter().map(Node::Expr));
            if let Some(Initial::List { items, .. }) = initial {
                out.extend(items.iter().map(Node::Expr));
            }
            out.extend(block(step));
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::SyncRunningThreads | StmtKind::Error => {}
    }
}

fn expr_children<'a>(kind: &'a ExprKind, out: &mut Vec<Node<'a>>) {
    match kind {
        ExprKind::Unary { operand: x, .. }
        | ExprKind::Cast { expr: x, .. }
        | ExprKind::Index { index: x, .. }
        | ExprKind::ArrayIndex { index: x, .. }
        | ExprKind::Pop(x)
        | ExprKind::Push(x) => out.push(Node::Expr(x)),
        ExprKind::Binary { lhs, rhs, .. } => out.extend([Node::Expr(lhs), Node::Expr(rhs)]),
        ExprKind::Ternary {
            cond,
            then_expr,
            else_expr,
        } => out.extend([
            Node::Expr(cond),
            Node::Expr(then_expr),
            Node::Expr(else_expr),
        ]),
        ExprKind::Call { args, .. } | ExprKind::Method { args, .. } => {
            out.extend(args.iter().map(Node::Expr));
        }
        ExprKind::Invoke { call, .. } => out.extend(call.args.iter().map(Node::Expr)),
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Name(_)
        | ExprKind::Field { .. }
        | ExprKind::Error => {}
    }
}

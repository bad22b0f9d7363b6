//! The canonical printer behind `irglc fmt`.
//!
//! [`print_program`] prints any program, parsed or built by a pass, in the canonical layout:
//! two-space indentation, one statement a line, braces on the statement's line, the fewest
//! parentheses that keep the tree. [`format_source`] also keeps the source's comments and
//! single blank lines between statements. Printing then re-parsing gives the same AST
//! (up to spans and ids); the round-trip tests check this.

use irgl_diagnostics::{Diagnostic, FileId};

use crate::ast::*;
use crate::lexer::{self, Comment};

/// Prints a program in canonical form, without comments.
pub fn print_program(p: &Program) -> String {
    let mut printer = Printer::new(None, Vec::new());
    printer.program(p);
    printer.finish()
}

/// Formats source text: parses it and prints it canonically with its comments.
/// Returns the parser's diagnostics if it has errors (nothing is formatted then).
pub fn format_source(file: FileId, src: &str) -> Result<String, Vec<Diagnostic>> {
    let (program, diags) = crate::parse(file, src);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let mut printer = Printer::new(Some(src), lexer::comments(src));
    printer.program(&program);
    Ok(printer.finish())
}

/// Prints one expression in canonical form.
pub fn print_expr(e: &Expr) -> String {
    let mut printer = Printer::new(None, Vec::new());
    printer.expr(e, 0);
    printer.out
}

struct Printer<'a> {
    out: String,
    level: usize,
    src: Option<&'a str>,
    comments: Vec<Comment>,
    next_comment: usize,
    /// End offset of the last thing printed from the source, for blank-line keeping.
    last_end: usize,
}

/// Binding strength of expression forms; binary operators use `BinaryOp::precedence` (1..=10).
const PREC_TERNARY: u8 = 0;
const PREC_CAST: u8 = 11;
const PREC_UNARY: u8 = 12;
const PREC_PRIMARY: u8 = 13;

impl<'a> Printer<'a> {
    fn new(src: Option<&'a str>, comments: Vec<Comment>) -> Printer<'a> {
        Printer {
            out: String::new(),
            level: 0,
            src,
            comments,
            next_comment: 0,
            last_end: 0,
        }
    }

    fn finish(mut self) -> String {
        self.flush_comments(usize::MAX);
        while self.out.ends_with("\n\n") {
            self.out.pop();
        }
        self.out
    }

    fn indent(&mut self) {
        for _ in 0..self.level {
            self.out.push_str("  ");
        }
    }

    fn line(&mut self, text: &str) {
        self.indent();
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Prints the comments that start before `pos`: own-line ones on their own lines at the
    /// current indentation, trailing ones at the end of the previous line.
    fn flush_comments(&mut self, pos: usize) {
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.start >= pos {
                break;
            }
            let c = c.clone();
            self.next_comment += 1;
            if c.own_line || self.out.is_empty() {
                if self.blank_line_between(self.last_end, c.start) && !self.out.is_empty() {
                    self.blank();
                }
                let text = c.text.clone();
                self.line(&text);
            } else {
                if self.out.ends_with('\n') {
                    self.out.pop();
                }
                self.out.push_str("  ");
                self.out.push_str(&c.text);
                self.out.push('\n');
            }
            self.last_end = c.end;
        }
    }

    fn blank(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") && !self.out.ends_with("{\n") {
            self.out.push('\n');
        }
    }

    /// Whether the source has an empty line between offsets `from` and `to`.
    fn blank_line_between(&self, from: usize, to: usize) -> bool {
        let Some(src) = self.src else { return false };
        if from >= to || to > src.len() {
            return false;
        }
        // The lines wholly inside the gap: all but the first (the rest of `from`'s line) and
        // the last (the indentation before `to`).
        let lines: Vec<&str> = src[from..to].split('\n').collect();
        lines.len() > 2
            && lines[1..lines.len() - 1]
                .iter()
                .any(|l| l.trim().is_empty())
    }

    /// Called before printing a node that starts at `span`.
    fn before(&mut self, span: Span, keep_blank: bool) {
        if span.is_none() {
            return;
        }
        let start = span.start as usize;
        // A blank line in the source before the node (or before its leading comments).
        let first = self
            .comments
            .get(self.next_comment)
            .filter(|c| c.start < start && c.own_line)
            .map_or(start, |c| c.start);
        if keep_blank && self.blank_line_between(self.last_end, first) {
            self.blank();
        }
        let flushed = self.next_comment;
        self.flush_comments(start);
        // A blank line between the comments and the node stays.
        if self.next_comment != flushed && self.blank_line_between(self.last_end, start) {
            self.blank();
        }
    }

    /// Called after printing a node: keeps its end for blank-line decisions and prints the
    /// comments that trail it on the same source line.
    fn after(&mut self, span: Span) {
        if span.is_none() {
            return;
        }
        self.last_end = span.end as usize;
        let Some(src) = self.src else { return };
        let line_end = src[self.last_end.min(src.len())..]
            .find('\n')
            .map_or(src.len(), |i| self.last_end + i);
        while let Some(c) = self.comments.get(self.next_comment) {
            if c.own_line || c.start >= line_end {
                break;
            }
            self.flush_comments(c.start + 1);
        }
    }

    // ------------------------------------------------------------ declarations

    fn program(&mut self, p: &Program) {
        let mut prev: Option<&ItemKind> = None;
        for item in &p.items {
            if matches!(item.kind, ItemKind::Error) {
                continue;
            }
            // A blank line around blocks, and where the source had one.
            if let Some(prev) = prev
                && (is_block_item(prev)
                    || is_block_item(&item.kind)
                    || self.blank_line_between(self.last_end, first_offset(item.span)))
            {
                self.blank();
            }
            self.before(item.span, false);
            self.item(item);
            self.after(item.span);
            prev = Some(&item.kind);
        }
    }

    fn item(&mut self, item: &Item) {
        match &item.kind {
            ItemKind::Graph(g) => {
                self.indent();
                self.out.push_str(if g.mesh { "mesh " } else { "graph " });
                self.out.push_str(&g.name.name);
                if !g.attrs.is_empty() {
                    self.out.push_str(" : ");
                    let attrs: Vec<&str> = g.attrs.iter().map(|a| a.name.as_str()).collect();
                    self.out.push_str(&attrs.join(", "));
                }
                if g.props.is_empty() && !self.has_comments_before(item.span.end) {
                    self.out.push_str(" {}\n");
                    return;
                }
                self.out.push_str(" {\n");
                self.level += 1;
                for prop in &g.props {
                    self.before(prop.span, true);
                    let owner = prop.owner.spelling();
                    let input = if prop.input { "input " } else { "" };
                    let text = format!("{input}{owner} {}: {};", prop.name.name, prop.ty.kind);
                    self.line(&text);
                    self.after(prop.span);
                }
                self.close_brace(item.span);
            }
            ItemKind::Const(c) => {
                self.indent();
                self.out
                    .push_str(&format!("const {}: {} = ", c.name.name, c.ty.kind));
                self.expr(&c.value, 0);
                self.out.push_str(";\n");
            }
            ItemKind::Param(p) => {
                self.indent();
                self.out
                    .push_str(&format!("param {}: {} = ", p.name.name, p.ty.kind));
                self.expr(&p.default, 0);
                self.out.push_str(";\n");
            }
            ItemKind::Global(g) => {
                self.indent();
                let word = if g.statistic {
                    "statistic global"
                } else {
                    "global"
                };
                self.out
                    .push_str(&format!("{word} {}: {}", g.name.name, g.ty.kind));
                if let Some(init) = &g.init {
                    self.out.push_str(" = ");
                    self.expr(init, 0);
                }
                self.out.push_str(";\n");
            }
            ItemKind::Output(o) => {
                let names: Vec<&str> = o.names.iter().map(|n| n.name.as_str()).collect();
                self.line(&format!("output {};", names.join(", ")));
            }
            ItemKind::Kernel(k) => self.routine("Kernel", &k.name, &k.params, None, &k.body),
            ItemKind::Array(a) => {
                self.indent();
                self.out
                    .push_str(&format!("array {}: {}[", a.name.name, a.ty.kind));
                self.expr(&a.len, 0);
                self.out.push_str("];\n");
            }
            ItemKind::Function(f) => {
                self.routine("Function", &f.name, &f.params, f.ret.as_ref(), &f.body)
            }
            ItemKind::Main(b) => {
                self.indent();
                self.out.push_str("main ");
                self.block(b);
                self.out.push('\n');
            }
            ItemKind::Error => {}
        }
    }

    /// `Kernel k(T a, ...) { ... }` or `Function f(T a, ...): T { ... }`.
    fn routine(
        &mut self,
        word: &str,
        name: &Ident,
        params: &[KernelParam],
        ret: Option<&Type>,
        body: &Block,
    ) {
        self.indent();
        let params: Vec<String> = params
            .iter()
            .map(|p| format!("{} {}", p.ty.kind, p.name.name))
            .collect();
        let ret = ret.map(|t| format!(": {}", t.kind)).unwrap_or_default();
        self.out.push_str(&format!(
            "{word} {}({}){ret} ",
            name.name,
            params.join(", ")
        ));
        self.block(body);
        self.out.push('\n');
    }

    /// A literal as the user wrote it (`0x9e3779b9`, `0.000001`), when printing source.
    fn source_literal(&self, span: Span) -> Option<&'a str> {
        let src = self.src?;
        if span.is_none() {
            return None;
        }
        src.get(span.range())
    }

    fn has_comments_before(&self, pos: u32) -> bool {
        self.comments
            .get(self.next_comment)
            .is_some_and(|c| c.start < pos as usize)
    }

    /// Flushes comments inside the construct, then prints its closing brace on its own line.
    fn close_brace(&mut self, span: Span) {
        if !span.is_none() {
            self.flush_comments(span.end as usize);
        }
        self.level -= 1;
        self.line("}");
    }

    // ------------------------------------------------------------ statements

    /// Prints `{ ... }` starting at the current position (no indentation before `{`, no
    /// newline after `}`).
    fn block(&mut self, b: &Block) {
        if b.stmts.is_empty() && !self.has_comments_before(b.span.end) {
            self.out.push_str("{}");
            return;
        }
        self.out.push_str("{\n");
        self.level += 1;
        for s in &b.stmts {
            self.stmt(s);
        }
        if !b.span.is_none() {
            self.flush_comments(b.span.end as usize);
        }
        self.level -= 1;
        self.indent();
        self.out.push('}');
        if !b.span.is_none() {
            self.last_end = b.span.end as usize;
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        if matches!(s.kind, StmtKind::Error) {
            return;
        }
        self.before(s.span, true);
        self.indent();
        self.stmt_inline(s);
        self.out.push('\n');
        self.after(s.span);
    }

    /// Prints a statement without leading indentation or trailing newline.
    fn stmt_inline(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { .. } | StmtKind::Assign { .. } | StmtKind::Expr(_) => {
                self.simple_stmt(s);
                self.out.push(';');
            }
            StmtKind::LetArray { name, elem, len } => {
                self.out
                    .push_str(&format!("let {}: [{}; ", name.name, elem.kind));
                self.expr(len, 0);
                self.out.push_str("];");
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.out.push_str("if (");
                self.expr(cond, 0);
                self.out.push_str(") ");
                self.block(then_block);
                if let Some(else_block) = else_block {
                    self.out.push_str(" else ");
                    match else_block.stmts.as_slice() {
                        [
                            only @ Stmt {
                                kind: StmtKind::If { .. },
                                ..
                            },
                        ] if !self.has_comments_before(only.span.start) => {
                            self.stmt_inline(only);
                        }
                        _ => self.block(else_block),
                    }
                }
            }
            StmtKind::While { cond, body } => {
                self.out.push_str("while (");
                self.expr(cond, 0);
                self.out.push_str(") ");
                self.block(body);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.out.push_str("for (");
                if let Some(init) = init {
                    self.simple_stmt(init);
                }
                self.out.push(';');
                if let Some(cond) = cond {
                    self.out.push(' ');
                    self.expr(cond, 0);
                }
                self.out.push(';');
                if let Some(step) = step {
                    self.out.push(' ');
                    self.simple_stmt(step);
                }
                self.out.push_str(") ");
                self.block(body);
            }
            StmtKind::Break => self.out.push_str("break;"),
            StmtKind::Continue => self.out.push_str("continue;"),
            StmtKind::Return(None) => self.out.push_str("return;"),
            StmtKind::Return(Some(e)) => {
                self.out.push_str("return ");
                self.expr(e, 0);
                self.out.push(';');
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::ForAll {
                var,
                iter,
                reduce,
                body,
            } => {
                self.out.push_str(&format!("ForAll ({} In ", var.name));
                match iter {
                    Iter::Worklist { .. } => self.out.push_str("WL"),
                    Iter::Nodes { graph } => self.out.push_str(&format!("{}.nodes", graph.name)),
                    Iter::Triangles { mesh } => {
                        self.out.push_str(&format!("{}.triangles", mesh.name))
                    }
                    Iter::Edges { graph, node, dir } => {
                        self.out
                            .push_str(&format!("{}.{}(", graph.name, dir.method()));
                        self.expr(node, 0);
                        self.out.push(')');
                    }
                    Iter::Range { lo, hi } => {
                        self.expr(lo, 0);
                        self.out.push_str("..");
                        self.expr(hi, 0);
                    }
                }
                self.out.push_str(") ");
                if !reduce.is_empty() {
                    let items: Vec<String> = reduce
                        .iter()
                        .map(|r| format!("{}: {}", r.op.name, r.local.name))
                        .collect();
                    self.out
                        .push_str(&format!("Reduce ({}) ", items.join(", ")));
                }
                self.block(body);
            }
            StmtKind::ReduceAndReturn(e) => {
                self.out.push_str("ReduceAndReturn ");
                self.expr(e, 0);
                self.out.push(';');
            }
            StmtKind::Atomic {
                lock,
                body,
                otherwise,
            } => {
                self.out.push_str("Atomic (");
                self.expr(lock, 0);
                self.out.push_str(") ");
                self.block(body);
                if let Some(b) = otherwise {
                    self.out.push_str(" Else ");
                    self.block(b);
                }
            }
            StmtKind::Exclusive {
                object,
                elements,
                upto,
                body,
                otherwise,
            } => {
                self.out.push_str("Exclusive (");
                self.expr(object, 0);
                if let Some(n) = upto {
                    self.out.push_str(", ");
                    self.expr_list(elements);
                    self.out.push_str("[..");
                    self.expr(n, 0);
                    self.out.push_str("]) ");
                } else {
                    self.out.push_str(", [");
                    self.expr_list(elements);
                    self.out.push_str("]) ");
                }
                self.block(body);
                if let Some(b) = otherwise {
                    self.out.push_str(" Else ");
                    self.block(b);
                }
            }
            StmtKind::SyncRunningThreads => self.out.push_str("SyncRunningThreads;"),
            StmtKind::Retry { kind, item } => {
                self.out.push_str(match kind {
                    RetryKind::Retry => "Retry ",
                    RetryKind::Respawn => "Respawn ",
                });
                self.expr(item, 0);
                self.out.push(';');
            }
            StmtKind::Invoke(call) => {
                self.out.push_str("Invoke ");
                self.call(call);
                self.out.push(';');
            }
            StmtKind::Iterate {
                cond,
                call,
                initial,
                step,
            } => {
                self.out.push_str("Iterate ");
                if let Some(cond) = cond {
                    if cond.unordered {
                        self.out.push_str("Unordered ");
                    }
                    self.out.push_str(match cond.kind {
                        IterateCondKind::While => "While ",
                        IterateCondKind::Until => "Until ",
                    });
                    self.out.push_str(reduction(cond.reduction));
                    self.out.push(' ');
                }
                self.call(call);
                match initial {
                    Some(Initial::List { items, .. }) => {
                        self.out.push_str(" Initial [");
                        self.expr_list(items);
                        self.out.push(']');
                    }
                    Some(Initial::AllNodes { graph, .. }) => {
                        self.out.push_str(&format!(" Initial {}.nodes", graph.name));
                    }
                    None => {}
                }
                match step {
                    Some(b) => {
                        self.out.push(' ');
                        self.block(b);
                    }
                    None => self.out.push(';'),
                }
            }
            StmtKind::Pipe { once, body } => {
                self.out
                    .push_str(if *once { "Pipe Once " } else { "Pipe " });
                self.block(body);
            }
            StmtKind::Error => {}
        }
    }

    /// `let`, assignments and expression statements, without the `;`.
    fn simple_stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Let { name, ty, init } => {
                self.out.push_str("let ");
                self.out.push_str(&name.name);
                if let Some(ty) = ty {
                    self.out.push_str(": ");
                    self.out.push_str(ty.kind.spelling());
                }
                self.out.push_str(" = ");
                self.expr(init, 0);
            }
            StmtKind::Assign { target, op, value }
                if matches!(self.source_literal(value.span), Some("++" | "--")) =>
            {
                // `x++` parses as `x += 1` whose `1` is the `++` token: print it as written.
                self.expr(target, 0);
                self.out
                    .push_str(if *op == AssignOp::Add { "++" } else { "--" });
            }
            StmtKind::Assign { target, op, value } => {
                self.expr(target, 0);
                self.out.push(' ');
                self.out.push_str(op.spelling());
                self.out.push(' ');
                self.expr(value, 0);
            }
            StmtKind::Expr(e) => self.expr(e, 0),
            // Only simple statements reach here from `for` headers.
            _ => self.stmt_inline(s),
        }
    }

    fn call(&mut self, c: &Call) {
        self.out.push_str(&c.kernel.name);
        self.out.push('(');
        self.expr_list(&c.args);
        self.out.push(')');
    }

    fn expr_list(&mut self, es: &[Expr]) {
        for (i, e) in es.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(e, 0);
        }
    }

    // ------------------------------------------------------------ expressions

    /// Prints `e`, parenthesized if it binds looser than `min`.
    fn expr(&mut self, e: &Expr, min: u8) {
        let prec = precedence(e);
        let parens = prec < min;
        if parens {
            self.out.push('(');
        }
        match &e.kind {
            ExprKind::Int(v) => match self.source_literal(e.span) {
                Some(text) if parse_int(text) == Some(*v) => self.out.push_str(text),
                _ => self.out.push_str(&int_literal(*v)),
            },
            ExprKind::Float(v) => match self.source_literal(e.span) {
                Some(text) if text.parse::<f64>().ok() == Some(*v) => self.out.push_str(text),
                _ => self.out.push_str(&format!("{v:?}")),
            },
            ExprKind::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            ExprKind::Name(n) => self.out.push_str(&n.name),
            ExprKind::Unary { op, operand } => {
                self.out.push_str(op.spelling());
                // `-(-x)`, never `--x`, which would lex as a decrement.
                let min = if matches!(operand.kind, ExprKind::Unary { .. }) {
                    PREC_PRIMARY
                } else {
                    PREC_UNARY
                };
                self.expr(operand, min);
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let p = op.precedence();
                self.expr(lhs, operand_min(*op, lhs, p));
                self.out.push(' ');
                self.out.push_str(op.spelling());
                self.out.push(' ');
                self.expr(rhs, operand_min(*op, rhs, p + 1));
            }
            ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => {
                self.expr(cond, 1);
                self.out.push_str(" ? ");
                self.expr(then_expr, 0);
                self.out.push_str(" : ");
                self.expr(else_expr, 0);
            }
            ExprKind::Cast { expr, ty } => {
                self.expr(expr, PREC_CAST);
                self.out.push_str(" as ");
                self.out.push_str(ty.kind.spelling());
            }
            ExprKind::Call { func, args } => {
                self.out.push_str(&func.name);
                self.out.push('(');
                self.expr_list(args);
                self.out.push(')');
            }
            ExprKind::Field { base, field } => {
                self.out.push_str(&format!("{}.{}", base.name, field.name));
            }
            ExprKind::ArrayIndex { base, index } => {
                self.out.push_str(&format!("{}[", base.name));
                self.expr(index, 0);
                self.out.push(']');
            }
            ExprKind::Index { base, prop, index } => {
                self.out.push_str(&format!("{}.{}[", base.name, prop.name));
                self.expr(index, 0);
                self.out.push(']');
            }
            ExprKind::Method { base, method, args } => {
                self.out
                    .push_str(&format!("{}.{}(", base.name, method.name));
                self.expr_list(args);
                self.out.push(')');
            }
            ExprKind::Pop(x) => {
                self.out.push_str("WL.pop(");
                self.expr(x, 0);
                self.out.push(')');
            }
            ExprKind::Push(x) => {
                self.out.push_str("WL.push(");
                self.expr(x, 0);
                self.out.push(')');
            }
            // Never in a program without errors, which is all `fmt` formats.
            ExprKind::Error => self.out.push_str("/* error */ 0"),
            ExprKind::Invoke { reduction: r, call } => {
                self.out.push_str(reduction(*r));
                self.out.push_str(" Invoke ");
                self.call(call);
            }
        }
        if parens {
            self.out.push(')');
        }
    }
}

/// The binding an operand of `op` needs: `min` by precedence, but stronger where C's
/// precedence surprises readers, so that `a || (b && c)`, `(a & b) | c` and `a << (b + 1)`
/// keep their parentheses.
fn operand_min(op: BinaryOp, operand: &Expr, min: u8) -> u8 {
    use BinaryOp::*;
    if matches!(operand.kind, ExprKind::Cast { .. }) {
        return PREC_PRIMARY; // `(d as f32) / 2.0`, not `d as f32 / 2.0`
    }
    let ExprKind::Binary { op: inner, .. } = &operand.kind else {
        return min;
    };
    let bitwise = |o: BinaryOp| matches!(o, BitAnd | BitOr | BitXor | Shl | Shr);
    let needs = match op {
        Or => *inner == And,
        BitAnd | BitOr | BitXor | Shl | Shr => {
            *inner != op && (bitwise(*inner) || !inner.is_comparison())
        }
        _ => false,
    };
    if needs { PREC_PRIMARY } else { min }
}

fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Ternary { .. } => PREC_TERNARY,
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Cast { .. } => PREC_CAST,
        ExprKind::Unary { .. } => PREC_UNARY,
        // `Any Invoke k()` is a primary in the grammar.
        _ => PREC_PRIMARY,
    }
}

fn reduction(r: Reduction) -> &'static str {
    match r {
        Reduction::Any => "Any",
        Reduction::All => "All",
    }
}

/// The value of an integer literal's text, as the lexer reads it.
fn parse_int(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Large masks and powers of two read better in hexadecimal (`0xffffffff`).
fn int_literal(v: u64) -> String {
    if v >= 1 << 16 && (v.is_power_of_two() || v.wrapping_add(1).is_power_of_two() || v == u64::MAX)
    {
        format!("{v:#x}")
    } else {
        v.to_string()
    }
}

fn is_block_item(k: &ItemKind) -> bool {
    matches!(
        k,
        ItemKind::Graph(_) | ItemKind::Kernel(_) | ItemKind::Function(_) | ItemKind::Main(_)
    )
}

fn first_offset(span: Span) -> usize {
    if span.is_none() {
        0
    } else {
        span.start as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use irgl_diagnostics::FileId;

    fn fmt(src: &str) -> String {
        format_source(FileId(0), src).expect("parses")
    }

    #[test]
    fn expressions_get_minimal_parentheses() {
        let e =
            crate::parse_expr(FileId(0), "(a + b) * c - (d - e) + -(-x) as u32 ? 1 : 2").unwrap();
        assert_eq!(
            print_expr(&e),
            "(a + b) * c - (d - e) + (-(-x) as u32) ? 1 : 2"
        );
        let e = crate::parse_expr(FileId(0), "((a)) + (b * c)").unwrap();
        assert_eq!(print_expr(&e), "a + b * c");
        // Where C's precedence surprises readers, parentheses stay.
        let e = crate::parse_expr(
            FileId(0),
            "a || (b && c) || (x & 1) == 0 || y << (z + 1) > 0",
        )
        .unwrap();
        assert_eq!(
            print_expr(&e),
            "a || (b && c) || (x & 1) == 0 || y << (z + 1) > 0"
        );
    }

    #[test]
    fn comments_and_blank_lines_are_kept() {
        let src = "// header\nconst A: u32 = 1;  // trailing\n\nmain {\n  let x = 1;\n\n  // about y\n  let y = 2;  // why\n  if (y > 1) {  // branch\n    y = 1;\n  }  // after\n  // last\n}\n";
        assert_eq!(fmt(src), src);
    }

    #[test]
    fn layout_is_canonical_and_idempotent() {
        let src = "main{let x=1;if(x>0){x+=1;}else if(x<0){x-=1;}else{x=0;}for(let i=0;i<3;i++){}}";
        let once = fmt(src);
        assert_eq!(
            once,
            "main {\n  let x = 1;\n  if (x > 0) {\n    x += 1;\n  } else if (x < 0) {\n    x -= 1;\n  } else {\n    x = 0;\n  }\n  for (let i = 0; i < 3; i++) {}\n}\n"
        );
        assert_eq!(fmt(&once), once);
    }
}

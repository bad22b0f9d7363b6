//! A compact, readable dump of the AST for `irglc emit ast` and the snapshot tests.
//!
//! Declarations and statements are printed one per line as a tree, with their node id and
//! byte span; expressions are printed inline as fully parenthesized S-expressions, so their
//! structure is explicit: `(== (index g level d) INF#12)`. Names carry their node id (`#12`).

use std::fmt::Write;

use crate::ast::*;

pub fn dump_program(p: &Program) -> String {
    let mut d = Dumper {
        out: String::new(),
        level: 0,
    };
    for item in &p.items {
        d.item(item);
    }
    d.out
}

struct Dumper {
    out: String,
    level: usize,
}

impl Dumper {
    fn line(&mut self, id: NodeId, span: Span, text: &str) {
        for _ in 0..self.level {
            self.out.push_str("  ");
        }
        let _ = writeln!(self.out, "{id} {text} @{span:?}");
    }

    /// A kernel or function: its head line, then its parameters and body one level in.
    fn routine(&mut self, item: &Item, head: &str, params: &[KernelParam], body: &Block) {
        self.line(item.id, item.span, head);
        self.nested(|d| {
            for p in params {
                d.line(
                    p.id,
                    p.span,
                    &format!("param {} {}", p.ty.kind, p.name.name),
                );
            }
            d.block(body);
        });
    }

    fn nested(&mut self, f: impl FnOnce(&mut Dumper)) {
        self.level += 1;
        f(self);
        self.level -= 1;
    }

    fn item(&mut self, item: &Item) {
        match &item.kind {
            ItemKind::Graph(g) => {
                let attrs: Vec<&str> = g.attrs.iter().map(|a| a.name.as_str()).collect();
                self.line(
                    item.id,
                    item.span,
                    &format!(
                        "{} {} [{}]",
                        if g.mesh { "mesh" } else { "graph" },
                        g.name.name,
                        attrs.join(", ")
                    ),
                );
                self.nested(|d| {
                    for p in &g.props {
                        let owner = p.owner.spelling();
                        let input = if p.input { "input " } else { "" };
                        d.line(
                            p.id,
                            p.span,
                            &format!("{input}{owner} {}: {}", p.name.name, p.ty.kind),
                        );
                    }
                });
            }
            ItemKind::Const(c) => {
                let text = format!("const {}: {} = {}", c.name.name, c.ty.kind, expr(&c.value));
                self.line(item.id, item.span, &text);
            }
            ItemKind::Param(p) => {
                let text = format!(
                    "param {}: {} = {}",
                    p.name.name,
                    p.ty.kind,
                    expr(&p.default)
                );
                self.line(item.id, item.span, &text);
            }
            ItemKind::Global(g) => {
                let init = g
                    .init
                    .as_ref()
                    .map(|e| format!(" = {}", expr(e)))
                    .unwrap_or_default();
                self.line(
                    item.id,
                    item.span,
                    &format!(
                        "{}global {}: {}{init}",
                        if g.statistic { "statistic " } else { "" },
                        g.name.name,
                        g.ty.kind
                    ),
                );
            }
            ItemKind::Output(o) => {
                let names: Vec<&str> = o.names.iter().map(|n| n.name.as_str()).collect();
                self.line(item.id, item.span, &format!("output {}", names.join(", ")));
            }
            ItemKind::Kernel(k) => {
                let head = format!("Kernel {}", k.name.name);
                self.routine(item, &head, &k.params, &k.body);
            }
            ItemKind::Array(a) => self.line(
                item.id,
                item.span,
                &format!("array {}: {}[{}]", a.name.name, a.ty.kind, expr(&a.len)),
            ),
            ItemKind::Function(f) => {
                let ret = f
                    .ret
                    .as_ref()
                    .map(|t| format!(": {}", t.kind))
                    .unwrap_or_default();
                let head = format!("Function {}{ret}", f.name.name);
                self.routine(item, &head, &f.params, &f.body);
            }
            ItemKind::Main(b) => {
                self.line(item.id, item.span, "main");
                self.nested(|d| d.block(b));
            }
            ItemKind::Error => self.line(item.id, item.span, "<error>"),
        }
    }

    fn block(&mut self, b: &Block) {
        self.line(b.id, b.span, "block");
        self.nested(|d| {
            for s in &b.stmts {
                d.stmt(s);
            }
        });
    }

    fn stmt(&mut self, s: &Stmt) {
        let (id, span) = (s.id, s.span);
        match &s.kind {
            StmtKind::Let { name, ty, init } => {
                let ty = ty
                    .as_ref()
                    .map(|t| format!(": {}", t.kind))
                    .unwrap_or_default();
                self.line(id, span, &format!("let {}{ty} = {}", name.name, expr(init)));
            }
            StmtKind::LetArray { name, elem, len } => {
                let text = format!("let {}: [{}; {}]", name.name, elem.kind, expr(len));
                self.line(id, span, &text);
            }
            StmtKind::Assign { target, op, value } => {
                let text = format!("assign {} {} {}", expr(target), op.spelling(), expr(value));
                self.line(id, span, &text);
            }
            StmtKind::Expr(e) => self.line(id, span, &format!("expr {}", expr(e))),
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.line(id, span, &format!("if {}", expr(cond)));
                self.nested(|d| {
                    d.block(then_block);
                    if let Some(b) = else_block {
                        d.block(b);
                    }
                });
            }
            StmtKind::While { cond, body } => {
                self.line(id, span, &format!("while {}", expr(cond)));
                self.nested(|d| d.block(body));
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let cond = cond.as_ref().map(expr).unwrap_or_default();
                self.line(id, span, &format!("for cond {cond}"));
                self.nested(|d| {
                    if let Some(s) = init {
                        d.stmt(s);
                    }
                    if let Some(s) = step {
                        d.stmt(s);
                    }
                    d.block(body);
                });
            }
            StmtKind::Break => self.line(id, span, "break"),
            StmtKind::Continue => self.line(id, span, "continue"),
            StmtKind::Return(None) => self.line(id, span, "return"),
            StmtKind::Return(Some(e)) => self.line(id, span, &format!("return {}", expr(e))),
            StmtKind::Block(b) => self.nested_block(id, span, b),
            StmtKind::ForAll {
                var,
                iter,
                reduce,
                body,
            } => {
                let iter = match iter {
                    Iter::Worklist { .. } => "WL".to_string(),
                    Iter::Nodes { graph } => format!("(nodes {})", graph.name),
                    Iter::Triangles { mesh } => format!("(triangles {})", mesh.name),
                    Iter::Edges { graph, node, dir } => {
                        format!("({} {} {})", dir.method(), graph.name, expr(node))
                    }
                    Iter::Range { lo, hi } => format!("(range {} {})", expr(lo), expr(hi)),
                };
                let reduce: String = reduce
                    .iter()
                    .map(|r| format!(" (reduce {} {})", r.op.name, r.local.name))
                    .collect();
                self.line(id, span, &format!("ForAll {} In {iter}{reduce}", var.name));
                self.nested(|d| d.block(body));
            }
            StmtKind::ReduceAndReturn(e) => {
                self.line(id, span, &format!("ReduceAndReturn {}", expr(e)))
            }
            StmtKind::Atomic {
                lock,
                body,
                otherwise,
            } => {
                self.line(id, span, &format!("Atomic {}", expr(lock)));
                self.nested(|d| {
                    d.block(body);
                    if let Some(b) = otherwise {
                        d.block(b);
                    }
                });
            }
            StmtKind::Exclusive {
                object,
                elements,
                upto,
                body,
                otherwise,
            } => {
                let mut elems: Vec<String> = elements.iter().map(expr).collect();
                if let Some(n) = upto {
                    elems.push(format!("..{}", expr(n)));
                }
                self.line(
                    id,
                    span,
                    &format!("Exclusive {} [{}]", expr(object), elems.join(" ")),
                );
                self.nested(|d| {
                    d.block(body);
                    if let Some(b) = otherwise {
                        d.block(b);
                    }
                });
            }
            StmtKind::SyncRunningThreads => self.line(id, span, "SyncRunningThreads"),
            StmtKind::Retry { kind, item } => {
                self.line(id, span, &format!("{kind:?} {}", expr(item)));
            }
            StmtKind::Invoke(c) => self.line(id, span, &format!("Invoke {}", call(c))),
            StmtKind::Iterate {
                cond,
                call: c,
                initial,
                step,
            } => {
                let cond = cond
                    .as_ref()
                    .map(|c| {
                        let unordered = if c.unordered { "Unordered " } else { "" };
                        format!("{unordered}{:?} {:?} ", c.kind, c.reduction)
                    })
                    .unwrap_or_default();
                let initial = match initial {
                    Some(Initial::List { items, .. }) => {
                        let items: Vec<String> = items.iter().map(expr).collect();
                        format!(" Initial [{}]", items.join(" "))
                    }
                    Some(Initial::AllNodes { graph, .. }) => {
                        format!(" Initial (nodes {})", graph.name)
                    }
                    None => String::new(),
                };
                self.line(id, span, &format!("Iterate {cond}{}{initial}", call(c)));
                if let Some(b) = step {
                    self.nested(|d| d.block(b));
                }
            }
            StmtKind::Pipe { once, body } => {
                self.line(id, span, if *once { "Pipe Once" } else { "Pipe" });
                self.nested(|d| d.block(body));
            }
            StmtKind::Error => self.line(id, span, "<error>"),
        }
    }

    fn nested_block(&mut self, id: NodeId, span: Span, b: &Block) {
        self.line(id, span, "stmt-block");
        self.nested(|d| d.block(b));
    }
}

fn call(c: &Call) -> String {
    let args: Vec<String> = c.args.iter().map(expr).collect();
    format!("{}{}({})", c.kernel.name, c.id, args.join(", "))
}

/// An expression as an S-expression; every node is followed by its id where it is a name.
pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Float(v) => format!("{v:?}"),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Name(n) => format!("{}{}", n.name, e.id),
        ExprKind::Unary { op, operand } => format!("({} {})", op.spelling(), expr(operand)),
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", op.spelling(), expr(lhs), expr(rhs))
        }
        ExprKind::Ternary {
            cond,
            then_expr,
            else_expr,
        } => format!("(? {} {} {})", expr(cond), expr(then_expr), expr(else_expr)),
        ExprKind::Cast { expr: x, ty } => format!("(as {} {})", expr(x), ty.kind),
        ExprKind::Call { func, args } => {
            let args: Vec<String> = args.iter().map(expr).collect();
            format!("(call {} {})", func.name, args.join(" "))
        }
        ExprKind::Field { base, field } => format!("(field {} {})", base.name, field.name),
        ExprKind::Index { base, prop, index } => {
            format!("(index {} {} {})", base.name, prop.name, expr(index))
        }
        ExprKind::ArrayIndex { base, index } => {
            format!("(at {}{} {})", base.name, e.id, expr(index))
        }
        ExprKind::Method { base, method, args } => {
            let args: Vec<String> = args.iter().map(expr).collect();
            format!("(method {} {} {})", base.name, method.name, args.join(" "))
        }
        ExprKind::Pop(x) => format!("(pop {})", expr(x)),
        ExprKind::Push(x) => format!("(push {})", expr(x)),
        ExprKind::Invoke { reduction, call: c } => format!("({reduction:?} Invoke {})", call(c)),
        ExprKind::Error => "<error>".to_string(),
    }
}

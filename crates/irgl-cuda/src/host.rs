//! Host code: the program's `main` as orchestration of kernel launches.
//!
//! Baseline orchestration (no iteration outlining): every `Invoke` is a kernel launch from
//! the host; `Iterate` and `Pipe` are host loops that read the worklist size (a device-to-host
//! copy) after each invocation to decide whether to go on.
//!
//! Worklist semantics (docs/language.md): the program has one set of worklists (`in`, `out`,
//! `retry`). An invocation of a worklist kernel pops from `in` and pushes to `out`; while its
//! `retry` worklist is not empty, it is invoked again over it; then `out` becomes the next
//! `in`. `Iterate ... Initial` and the outermost `Pipe` start from fresh worklists.

use irgl_syntax::ast::*;

use crate::expr::Side;
use crate::names::cpp;
use crate::stmt::Nest;
use crate::writer::Writer;
use irgl_check::Resolution;

use crate::{Ctx, KernelFacts, c_type};

impl Ctx<'_> {
    /// `launch_k`, `invoke_k` and `reduce_k` for one kernel.
    pub(crate) fn launchers(&self, k: &KernelDecl, facts: &KernelFacts) -> String {
        let name = cpp(&k.name.name);
        let scalars: Vec<(String, String)> = k
            .params
            .iter()
            .filter(|p| p.ty.kind != TypeKind::Graph)
            .map(|p| {
                (
                    c_type(p.ty.kind).to_string(),
                    cpp(&p.name.name).into_owned(),
                )
            })
            .collect();
        let mut sig: Vec<String> = vec!["Host& h".to_string()];
        sig.extend(scalars.iter().map(|(t, n)| format!("{t} {n}")));
        if facts.reduces {
            sig.push("irgl::Reduce irgl_rkind".to_string());
        }
        let sig = sig.join(", ");
        let mut args: Vec<String> = k
            .params
            .iter()
            .map(|p| {
                if p.ty.kind == TypeKind::Graph {
                    "h.g".to_string()
                } else {
                    cpp(&p.name.name).into_owned()
                }
            })
            .collect();
        if facts.uses_worklist {
            args.extend([
                "h.wl.in().view()".into(),
                "h.wl.out().view()".into(),
                "h.wl.retry().view()".into(),
            ]);
        }
        if facts.reduces {
            args.extend(["h.reduce.view()".into(), "irgl_rkind".into()]);
        }
        let args = args.join(", ");
        let call_args: String = scalars.iter().map(|(_, n)| format!(", {n}")).collect();
        let rkind_arg = if facts.reduces { ", irgl_rkind" } else { "" };

        let mut w = Writer::new(0);
        // launch_k: one launch over the current `in`.
        w.open(format!("static void launch_{name}({sig}) {{"));
        let work = if facts.pops {
            "h.wl.in().size()"
        } else if facts.over_nodes {
            "h.hg.nnodes"
        } else if facts.has_forall {
            "static_cast<uint64_t>(h.grid_cap) * BLOCK"
        } else {
            "0"
        };
        if facts.cooperative {
            w.line(format!(
                // All resident blocks (0), no dynamic shared memory, the default stream.
                "irgl::launch_cooperative(\"{}\", {name}, 0, BLOCK, 0, 0, {args});",
                k.name.name
            ));
        } else if facts.has_forall {
            w.line(format!("{name}<<<blocks_for(h, {work}), BLOCK>>>({args});"));
        } else {
            w.line(format!("{name}<<<1, 1>>>({args});"));
        }
        w.line(format!("IRGL_CHECK_LAUNCH(\"{}\");", k.name.name));
        if facts.uses_worklist {
            w.line(format!("h.wl.check_overflow(\"{}\");", k.name.name));
        }
        w.close("}");
        // invoke_k: the launch plus the retry loop and the worklist swap.
        if facts.uses_worklist {
            w.line("");
            w.open(format!("static void invoke_{name}({sig}) {{"));
            w.line(format!("launch_{name}(h{call_args}{rkind_arg});"));
            if facts.retries {
                w.open("while (h.wl.retry().size() != 0) {");
                w.line("h.wl.swap_retry();");
                w.line(format!("launch_{name}(h{call_args}{rkind_arg});"));
                w.close("}");
            }
            w.line("h.wl.swap();");
            w.close("}");
        }
        if facts.reduces {
            w.line("");
            let inner = if facts.uses_worklist {
                "invoke"
            } else {
                "launch"
            };
            w.open(format!("static bool reduce_{name}({sig}) {{"));
            w.line("h.reduce.reset(irgl_rkind);");
            w.line(format!("{inner}_{name}(h{call_args}, irgl_rkind);"));
            w.line("return h.reduce.read();");
            w.close("}");
        }
        w.finish().trim_end().to_string()
    }

    /// The statements of `main`, indented one level.
    pub(crate) fn main_body(&self, main: &Block) -> String {
        let mut w = Writer::new(1);
        self.stmts(&mut w, main, Nest::main());
        w.finish()
    }

    /// In a `while`/`for` of `main` that launches kernels, each round counts as an iteration
    /// of the run (its JSON record).
    pub(crate) fn count_iteration(&self, w: &mut Writer, body: &Block, nest: Nest) {
        if nest.side == Side::Host && launches(body) {
            w.line("++h.iterations;");
        }
    }

    /// The orchestration statements: `Invoke`, `Iterate`, `Pipe`.
    pub(crate) fn orchestration(&self, w: &mut Writer, s: &Stmt, nest: Nest) {
        match &s.kind {
            StmtKind::Invoke(call) => {
                let facts = self.facts(&call.kernel.name);
                let verb = if facts.uses_worklist {
                    "invoke"
                } else {
                    "launch"
                };
                let args = self.host_call_args(call);
                w.line(format!("{verb}_{}(h{args});", cpp(&call.kernel.name)));
            }
            StmtKind::Iterate {
                cond,
                call,
                initial,
                step,
            } => self.iterate(
                w,
                cond.as_ref(),
                call,
                initial.as_ref(),
                step.as_ref(),
                nest,
            ),
            StmtKind::Pipe { once, body } => {
                w.open(format!("{{  // Pipe{}", if *once { " Once" } else { "" }));
                if nest.pipes == 0 {
                    w.line("h.wl.clear();");
                }
                let inner = Nest {
                    pipes: nest.pipes + 1,
                    ..nest
                };
                if *once {
                    self.stmts(w, body, inner);
                } else {
                    w.open("do {");
                    self.stmts(w, body, inner);
                    w.line("++h.iterations;");
                    w.close("} while (h.wl.in().size() != 0);");
                }
                w.close("}");
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn iterate(
        &self,
        w: &mut Writer,
        cond: Option<&IterateCond>,
        call: &Call,
        initial: Option<&Initial>,
        step: Option<&Block>,
        nest: Nest,
    ) {
        let facts = self.facts(&call.kernel.name);
        let name = cpp(&call.kernel.name);
        let args = self.host_call_args(call);
        w.open(format!("{{  // Iterate {}", call.kernel.name));
        match initial {
            Some(Initial::List { items, .. }) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|e| format!("static_cast<uint32_t>({})", self.expr(e, Side::Host)))
                    .collect();
                w.line("h.wl.clear();");
                w.line(format!(
                    "const std::vector<uint32_t> irgl_initial = {{{}}};",
                    items.join(", ")
                ));
                w.open("for (uint32_t item : irgl_initial) {");
                w.line("irgl::check_node(item, h.hg.nnodes, \"Initial\");");
                w.close("}");
                w.line("h.wl.in().assign(irgl_initial);");
            }
            Some(Initial::AllNodes { .. }) => {
                w.line("h.wl.clear();");
                w.line("std::vector<uint32_t> irgl_initial(h.hg.nnodes);");
                w.line("for (uint32_t i = 0; i < h.hg.nnodes; ++i) irgl_initial[i] = i;");
                w.line("h.wl.in().assign(irgl_initial);");
            }
            None => {}
        }
        if facts.uses_worklist {
            w.open("if (h.wl.in().size() != 0) {");
        }
        w.open("while (true) {");
        let verb = if facts.uses_worklist {
            "invoke"
        } else {
            "launch"
        };
        match cond {
            Some(c) => {
                let kind = match c.reduction {
                    Reduction::Any => "irgl::Reduce::Any",
                    Reduction::All => "irgl::Reduce::All",
                };
                w.line(format!(
                    "const bool irgl_result = reduce_{name}(h{args}, {kind});"
                ));
                w.line("++h.iterations;");
                let stop = match c.kind {
                    IterateCondKind::While => "!irgl_result",
                    IterateCondKind::Until => "irgl_result",
                };
                w.line(format!("if ({stop}) break;"));
            }
            None => {
                w.line(format!("{verb}_{name}(h{args});"));
                w.line("++h.iterations;");
            }
        }
        if facts.uses_worklist {
            w.line("if (h.wl.in().size() == 0) break;");
        }
        if let Some(step) = step {
            self.stmts(w, step, nest);
        }
        w.close("}");
        if facts.uses_worklist {
            w.close("}");
        }
        w.close("}");
    }

    /// Assignments in `main`: locals directly, globals and property elements through copies.
    pub(crate) fn host_assign(&self, w: &mut Writer, target: &Expr, op: AssignOp, value: &Expr) {
        let hs = Side::Host;
        let v = self.expr(value, hs);
        let ty = c_type(self.ty(target));
        let combine = |old: String| match op.binary() {
            None => format!("static_cast<{ty}>({v})"),
            Some(b) => format!("static_cast<{ty}>({old} {} {v})", b.spelling()),
        };
        match &target.kind {
            ExprKind::Name(n)
                if matches!(self.info.resolution(target.id), Some(Resolution::Global(_))) =>
            {
                let g = cpp(&n.name);
                let value = combine(format!("get_{g}()"));
                w.line(format!("set_{g}({value});"));
            }
            ExprKind::Index { prop, index, .. } => {
                let p = cpp(&prop.name);
                w.open("{");
                w.line(format!("const uint64_t irgl_i = {};", self.expr(index, hs)));
                let value = combine(format!("read_element(h.{p}, irgl_i)"));
                w.line(format!("write_element(h.{p}, irgl_i, {value});"));
                w.close("}");
            }
            _ => w.line(format!("{} {} {v};", self.expr(target, hs), op.spelling())),
        }
    }
}

/// Whether a host block launches a kernel: its loop then counts as iterations of the run.
fn launches(b: &Block) -> bool {
    fn expr(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Invoke { .. } => true,
            ExprKind::Unary { operand, .. } => expr(operand),
            ExprKind::Binary { lhs, rhs, .. } => expr(lhs) || expr(rhs),
            ExprKind::Ternary {
                cond,
                then_expr,
                else_expr,
            } => expr(cond) || expr(then_expr) || expr(else_expr),
            ExprKind::Cast { expr: x, .. } => expr(x),
            _ => false,
        }
    }
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Invoke(_) | StmtKind::Iterate { .. } | StmtKind::Pipe { .. } => true,
        StmtKind::Let { init: e, .. } | StmtKind::Expr(e) => expr(e),
        StmtKind::Assign { value, .. } => expr(value),
        StmtKind::If {
            cond,
            then_block,
            else_block,
        } => expr(cond) || launches(then_block) || else_block.as_ref().is_some_and(launches),
        StmtKind::While { cond, body } => expr(cond) || launches(body),
        StmtKind::For { body, .. } | StmtKind::Block(body) => launches(body),
        _ => false,
    })
}

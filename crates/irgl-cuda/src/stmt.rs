//! Statements, on both sides: the control flow that kernels and `main` share is written here
//! once; the kernel constructs go to [`crate::device`], the orchestration to [`crate::host`].

use irgl_syntax::ast::*;

use crate::Ctx;
use crate::expr::Side;
use crate::writer::Writer;

/// Where a statement stands: on which side, inside how many `ForAll`s (kernels) or `Pipe`s
/// (`main`).
#[derive(Clone, Copy)]
pub(crate) struct Nest {
    pub side: Side,
    pub foralls: usize,
    pub pipes: usize,
}

impl Nest {
    pub fn kernel() -> Nest {
        Nest {
            side: Side::Device,
            foralls: 0,
            pipes: 0,
        }
    }

    pub fn main() -> Nest {
        Nest {
            side: Side::Host,
            foralls: 0,
            pipes: 0,
        }
    }
}

impl Ctx<'_> {
    pub(crate) fn stmts(&self, w: &mut Writer, b: &Block, nest: Nest) {
        for s in &b.stmts {
            self.stmt(w, s, nest);
        }
    }

    /// `head {`, the block's statements, `}`.
    pub(crate) fn block(&self, w: &mut Writer, head: &str, b: &Block, nest: Nest) {
        w.open(format!("{head}{{"));
        self.stmts(w, b, nest);
        w.close("}");
    }

    fn stmt(&self, w: &mut Writer, s: &Stmt, nest: Nest) {
        let side = nest.side;
        match &s.kind {
            StmtKind::Let { .. } | StmtKind::Expr(_) => {
                let text = self.simple(s, side);
                w.line(format!("{text};"));
            }
            StmtKind::Assign { target, op, value } => match side {
                Side::Device => {
                    let text = self.simple(s, side);
                    w.line(format!("{text};"));
                }
                Side::Host => self.host_assign(w, target, *op, value),
            },
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                w.open(format!("if ({}) {{", self.cond(cond, side)));
                self.stmts(w, then_block, nest);
                if let Some(else_block) = else_block {
                    w.close("} else {");
                    w.level_up();
                    self.stmts(w, else_block, nest);
                }
                w.close("}");
            }
            StmtKind::While { cond, body } => {
                w.open(format!("while ({}) {{", self.cond(cond, side)));
                self.count_iteration(w, body, nest);
                self.stmts(w, body, nest);
                w.close("}");
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let init = init
                    .as_ref()
                    .map(|s| self.simple(s, side))
                    .unwrap_or_default();
                let cond = cond
                    .as_ref()
                    .map(|c| self.expr(c, side))
                    .unwrap_or_default();
                let step = step
                    .as_ref()
                    .map(|s| self.simple(s, side))
                    .unwrap_or_default();
                w.open(format!("for ({init}; {cond}; {step}) {{"));
                self.count_iteration(w, body, nest);
                self.stmts(w, body, nest);
                w.close("}");
            }
            StmtKind::Break => w.line("break;"),
            StmtKind::Continue => w.line("continue;"),
            StmtKind::Block(b) => self.block(w, "", b, nest),
            StmtKind::ForAll { .. }
            | StmtKind::ReduceAndReturn(_)
            | StmtKind::Atomic { .. }
            | StmtKind::Exclusive { .. }
            | StmtKind::SyncRunningThreads
            | StmtKind::Retry { .. } => self.kernel_construct(w, s, nest),
            StmtKind::Invoke(_) | StmtKind::Iterate { .. } | StmtKind::Pipe { .. } => {
                self.orchestration(w, s, nest)
            }
            StmtKind::Error => {}
        }
    }

    /// A `let`, assignment or expression statement without its `;` (also for `for` headers).
    pub(crate) fn simple(&self, s: &Stmt, side: Side) -> String {
        match &s.kind {
            StmtKind::Let { name, ty, init } => {
                let t = ty.as_ref().map_or_else(|| self.ty(init), |t| t.kind);
                format!(
                    "{} {} = {}",
                    crate::c_type(t),
                    crate::names::cpp(&name.name),
                    self.cond(init, side)
                )
            }
            StmtKind::Assign { target, op, value } => format!(
                "{} {} {}",
                self.expr(target, side),
                op.spelling(),
                self.cond(value, side)
            ),
            StmtKind::Expr(e) => self.cond(e, side),
            _ => String::new(),
        }
    }
}

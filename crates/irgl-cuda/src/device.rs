//! Kernels: device code for the statements of a `Kernel`.
//!
//! Baseline schedule: the outermost `ForAll`s of a kernel are grid-stride loops over the
//! threads of the launch; nested `ForAll`s are serial loops in the thread that reached them.
//! Worklist pushes are one atomic each (`irgl::Worklist::push`).

use irgl_syntax::ast::*;

use crate::expr::Side;
use crate::names::cpp;
use crate::stmt::Nest;
use crate::writer::Writer;
use crate::{Ctx, KernelFacts, c_type};

impl Ctx<'_> {
    /// The `__global__` signature of a kernel.
    pub(crate) fn kernel_signature(&self, k: &KernelDecl, facts: &KernelFacts) -> String {
        let mut params: Vec<String> = k
            .params
            .iter()
            .map(|p| format!("{} {}", c_type(p.ty.kind), cpp(&p.name.name)))
            .collect();
        params.extend(
            kernel_runtime_params(facts)
                .into_iter()
                .map(|(ty, name)| format!("{ty} {name}")),
        );
        format!(
            "__global__ void __launch_bounds__(BLOCK) {}({})",
            cpp(&k.name.name),
            params.join(", ")
        )
    }

    /// The body of a kernel, indented one level.
    pub(crate) fn kernel_body(&self, k: &KernelDecl) -> String {
        let mut w = Writer::new(1);
        self.stmts(&mut w, &k.body, Nest::kernel());
        w.finish()
    }

    /// The kernel constructs: `ForAll`, `ReduceAndReturn`, `Atomic`, `Exclusive`,
    /// `SyncRunningThreads`, `Retry`/`Respawn`.
    pub(crate) fn kernel_construct(&self, w: &mut Writer, s: &Stmt, nest: Nest) {
        let d = Side::Device;
        match &s.kind {
            StmtKind::ForAll { var, iter, body } => self.forall(w, s.id, var, iter, body, nest),
            StmtKind::ReduceAndReturn(e) => {
                let line = format!("irgl_reduce.contribute(irgl_rkind, {});", self.cond(e, d));
                w.line(line);
            }
            StmtKind::Atomic {
                lock,
                body,
                otherwise,
            } => {
                let (locks, index) = self.lock_parts(lock);
                match otherwise {
                    None => {
                        // Divergence-free blocking lock: every thread of a warp keeps making
                        // progress, so a lock holder in the same warp is never starved.
                        w.open("{");
                        w.line(format!("const uint32_t irgl_lock_{} = {index};", s.id.0));
                        w.line(format!("bool irgl_done_{} = false;", s.id.0));
                        w.open(format!("while (!irgl_done_{}) {{", s.id.0));
                        w.open(format!(
                            "if (irgl::try_lock({locks}, irgl_lock_{})) {{",
                            s.id.0
                        ));
                        self.stmts(w, body, nest);
                        w.line(format!("irgl::unlock({locks}, irgl_lock_{});", s.id.0));
                        w.line(format!("irgl_done_{} = true;", s.id.0));
                        w.close("}");
                        w.close("}");
                        w.close("}");
                    }
                    Some(otherwise) => {
                        w.open("{");
                        w.line(format!("const uint32_t irgl_lock_{} = {index};", s.id.0));
                        w.open(format!(
                            "if (irgl::try_lock({locks}, irgl_lock_{})) {{",
                            s.id.0
                        ));
                        self.stmts(w, body, nest);
                        w.line(format!("irgl::unlock({locks}, irgl_lock_{});", s.id.0));
                        w.close("} else {");
                        w.level_up();
                        self.stmts(w, otherwise, nest);
                        w.close("}");
                        w.close("}");
                    }
                }
            }
            StmtKind::Exclusive {
                object,
                elements,
                body,
                otherwise,
            } => {
                let marks = self.expr_array_base(object);
                let ids = format!("irgl_ids_{}", s.id.0);
                let elems: Vec<String> = elements
                    .iter()
                    .map(|e| format!("static_cast<uint32_t>({})", self.expr(e, d)))
                    .collect();
                w.open("{");
                w.line(format!(
                    "uint32_t {ids}[{}] = {{{}}};",
                    elems.len(),
                    elems.join(", ")
                ));
                w.open(format!(
                    "if (irgl::exclusive_acquire({marks}, {ids}, {})) {{",
                    elems.len()
                ));
                self.stmts(w, body, nest);
                w.line(format!(
                    "irgl::exclusive_release({marks}, {ids}, {});",
                    elems.len()
                ));
                match otherwise {
                    Some(otherwise) => {
                        w.close("} else {");
                        w.level_up();
                        self.stmts(w, otherwise, nest);
                        w.close("}");
                    }
                    None => w.close("}"),
                }
                w.close("}");
            }
            StmtKind::SyncRunningThreads => w.line("irgl::grid_sync();"),
            StmtKind::Retry { item, .. } => {
                let line = format!("irgl_retry.push({});", self.expr(item, d));
                w.line(line);
            }
            _ => {}
        }
    }

    /// `g.lk[i]` as the lock array and the index.
    fn lock_parts(&self, lock: &Expr) -> (String, String) {
        match &lock.kind {
            ExprKind::Index { base, prop, index } => (
                format!("{}.{}", cpp(&base.name), cpp(&prop.name)),
                self.expr(index, Side::Device),
            ),
            _ => (self.expr(lock, Side::Device), "0u".to_string()),
        }
    }

    /// `g.mk` as an array pointer.
    fn expr_array_base(&self, object: &Expr) -> String {
        match &object.kind {
            ExprKind::Field { base, field } => format!("{}.{}", cpp(&base.name), cpp(&field.name)),
            _ => self.expr(object, Side::Device),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn forall(
        &self,
        w: &mut Writer,
        id: NodeId,
        var: &Ident,
        iter: &Iter,
        body: &Block,
        nest: Nest,
    ) {
        let d = Side::Device;
        let v = cpp(&var.name).into_owned();
        let n = id.0;
        let top = nest.foralls == 0;
        let inner = Nest {
            foralls: nest.foralls + 1,
            ..nest
        };
        // Grid-stride for the outermost ForAll, serial for nested ones.
        let step = " += blockDim.x * gridDim.x";
        let from = |base: &str| match (top, base) {
            (true, "0") => "blockIdx.x * blockDim.x + threadIdx.x".to_string(),
            (true, b) => format!("{b} + blockIdx.x * blockDim.x + threadIdx.x"),
            (false, b) => b.to_string(),
        };
        let advance = |x: &str| {
            if top {
                format!("{x}{step}")
            } else {
                format!("++{x}")
            }
        };
        match iter {
            Iter::Worklist { .. } => {
                w.line(format!("const uint32_t irgl_n_{n} = irgl_in.size();"));
                let head = format!(
                    "for (uint32_t {v} = {}; {v} < irgl_n_{n}; {}) ",
                    from("0"),
                    advance(&v)
                );
                self.block(w, &head, body, inner);
            }
            Iter::Nodes { graph } => {
                let g = cpp(&graph.name);
                let head = format!(
                    "for (uint32_t {v} = {}; {v} < {g}.csr.nnodes; {}) ",
                    from("0"),
                    advance(&v)
                );
                self.block(w, &head, body, inner);
            }
            Iter::Edges { graph, node } => {
                let g = cpp(&graph.name);
                let node = self.expr(node, d);
                w.open("{");
                w.line(format!("const uint32_t irgl_node_{n} = {node};"));
                w.line(format!(
                    "const uint32_t irgl_end_{n} = {g}.csr.end(irgl_node_{n});"
                ));
                let head = format!(
                    "for (uint32_t {v} = {}; {v} < irgl_end_{n}; {}) ",
                    from(&format!("{g}.csr.begin(irgl_node_{n})")),
                    advance(&v)
                );
                self.block(w, &head, body, inner);
                w.close("}");
            }
            Iter::Range { lo, hi } => {
                let ty = c_type(self.ty(lo));
                let (lo, hi) = (self.expr(lo, d), self.expr(hi, d));
                w.open("{");
                w.line(format!("const {ty} irgl_lo_{n} = {lo};"));
                w.line(format!("const {ty} irgl_hi_{n} = {hi};"));
                w.line(format!(
                    "const uint64_t irgl_count_{n} = irgl_hi_{n} > irgl_lo_{n} ? static_cast<uint64_t>(irgl_hi_{n} - irgl_lo_{n}) : 0;"
                ));
                let k = format!("irgl_k_{n}");
                w.open(format!(
                    "for (uint64_t {k} = {}; {k} < irgl_count_{n}; {}) {{",
                    from("0"),
                    advance(&k)
                ));
                w.line(format!(
                    "const {ty} {v} = static_cast<{ty}>(irgl_lo_{n} + irgl_k_{n});"
                ));
                self.stmts(w, body, inner);
                w.close("}");
                w.close("}");
            }
        }
    }
}

/// The runtime objects a kernel receives after its own parameters.
pub(crate) fn kernel_runtime_params(facts: &KernelFacts) -> Vec<(&'static str, &'static str)> {
    let mut p = Vec::new();
    if facts.uses_worklist {
        p.push(("irgl::Worklist", "irgl_in"));
        p.push(("irgl::Worklist", "irgl_out"));
        p.push(("irgl::Worklist", "irgl_retry"));
    }
    if facts.reduces {
        p.push(("irgl::ReduceFlag", "irgl_reduce"));
        p.push(("irgl::Reduce", "irgl_rkind"));
    }
    p
}

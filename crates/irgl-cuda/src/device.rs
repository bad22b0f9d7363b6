//! Kernels: signatures, and device code for `ForAll` and the kernel constructs.
//!
//! Outermost `ForAll`s are grid-stride loops over the threads of the launch; a uniform one
//! rounds its trip count up to the grid and runs its body as guarded phases, so that the
//! schedulers of its nested loops ([`crate::sched`]) are reached by every thread of a block.
//! Serial nested `ForAll`s are loops in the thread that reaches them.

use irgl_ir::*;

use crate::expr::c_type;
use crate::names::cpp;
use crate::stmt::{ContinueAs, Emitter};

/// The kernel parameter holding the worklist that `target` pushes to: the task queue where
/// the kernel's asynchrony feeds it.
pub(crate) fn push_target(target: WorklistRef, asynchrony: Option<Asynchrony>) -> &'static str {
    match target {
        _ if asynchrony.is_some_and(|a| a.feeds(target)) => "irgl_queue",
        WorklistRef::Out => "irgl_out",
        WorklistRef::Retry => "irgl_retry",
        WorklistRef::In => panic!("push to the input worklist"),
    }
}

/// The properties an asynchronous or settled kernel both reads and updates: other blocks
/// update them while it runs, so it reads them past the L1 cache (`irgl::load_coherent`).
pub(crate) fn coherent_props(k: &Kernel) -> Vec<PropId> {
    if k.asynchronous.is_none() && !k.settled {
        return Vec::new();
    }
    let body = &k.body;
    let mut read = Vec::new();
    let mut updated = Vec::new();
    irgl_ir::visit::walk_block_exprs(body, &body.block, &mut |e| match &body.exprs[e].kind {
        ExprKind::Element { prop, .. } => read.push(*prop),
        ExprKind::Atomic {
            place: Place::Element { prop, .. },
            ..
        } => updated.push(*prop),
        _ => {}
    });
    irgl_ir::visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Assign {
            place: Place::Element { prop, .. },
            ..
        } = &body.stmts[s].kind
        {
            updated.push(*prop);
        }
    });
    read.retain(|p| updated.contains(p));
    read.sort();
    read.dedup();
    read
}

/// A kernel's parameters, typed: its own, then the runtime's.
fn kernel_params(k: &Kernel) -> Vec<(String, String)> {
    let mut params: Vec<(String, String)> = k
        .params
        .iter()
        .map(|p| match p {
            KernelParam::Graph(name) => ("G".to_string(), cpp(name).into_owned()),
            KernelParam::Scalar(l) => {
                let local = &k.body.locals[*l];
                (c_type(local.ty).to_string(), cpp(&local.name).into_owned())
            }
        })
        .collect();
    params.extend(
        kernel_runtime_params(&k.facts())
            .into_iter()
            .map(|(ty, name)| (ty.to_string(), name.to_string())),
    );
    params
}

fn typed(params: &[(String, String)]) -> String {
    params
        .iter()
        .map(|(ty, name)| format!("{ty} {name}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `__global__` signature of a kernel.
pub(crate) fn kernel_signature(k: &Kernel) -> String {
    format!(
        "__global__ void __launch_bounds__(BLOCK) {}({})",
        cpp(&k.name),
        typed(&kernel_params(k))
    )
}

/// A kernel's body as a device function, for control kernels to call (iteration outlining):
/// its signature, and the call of it that the `__global__` kernel makes.
///
/// Always inlined: the control kernel puts a grid barrier after each call, and a barrier needs
/// the warps converged. ptxas does not reconverge a warp on return from a call that is not
/// inlined, so a `__noinline__` body whose grid-stride loop diverged reached the barrier with
/// a split warp, and the barrier released early (compute-sanitizer's synccheck: "Divergent
/// thread(s) in warp"; pr and sssp-nf gave wrong results on an H100).
///
/// A reducing kernel's function takes its flag as a template parameter: an
/// `irgl::ReduceFlag` from its `__global__` kernel, an `irgl::RoundFlag` from a control kernel.
pub(crate) fn device_function(k: &Kernel) -> (String, String) {
    let mut params = kernel_params(k);
    let name = crate::control::device_fn_name(k);
    let args: Vec<String> = params.iter().map(|(_, n)| n.clone()).collect();
    let mut head = "__device__ __forceinline__".to_string();
    if let Some(flag) = params.iter_mut().find(|(_, n)| n == "irgl_reduce") {
        flag.0 = "Flag".to_string();
        head = format!("template <class Flag>\n{head}");
    }
    (
        format!("{head} void {name}({})", typed(&params)),
        format!("{name}({});", args.join(", ")),
    )
}

/// The runtime objects a kernel receives after its own parameters.
pub(crate) fn kernel_runtime_params(facts: &KernelFacts) -> Vec<(&'static str, &'static str)> {
    let mut p = Vec::new();
    if facts.uses_worklist {
        p.push(("irgl::Worklist", "irgl_in"));
        p.push(("irgl::Worklist", "irgl_out"));
        p.push(("irgl::Worklist", "irgl_retry"));
    }
    if facts.backoff {
        p.push(("uint32_t", "irgl_chunk"));
    }
    if facts.reduces {
        p.push(("irgl::ReduceFlag", "irgl_reduce"));
        p.push(("irgl::Reduce", "irgl_rkind"));
    }
    if facts.asynchronous || facts.switched {
        p.push(("irgl::AsyncQueue", "irgl_queue"));
    }
    p
}

/// The kernel's name for the graph (its graph parameter), if it takes the graph.
pub(crate) fn graph_param(k: &Kernel) -> Option<&str> {
    k.params.iter().find_map(|p| match p {
        KernelParam::Graph(name) => Some(name.as_str()),
        KernelParam::Scalar(_) => None,
    })
}

/// Whether `block` has a `Continue` that targets what encloses it (not one inside a nested
/// loop), or an `Inspect`: then it needs a construct that `break` leaves.
pub(crate) fn needs_exit(body: &Body, block: &Block) -> bool {
    block.iter().any(|&s| match &body.stmts[s].kind {
        StmtKind::Continue | StmtKind::Inspect(_) => true,
        StmtKind::Loop(_) | StmtKind::ForAll(_) => false,
        k => irgl_ir::visit::child_blocks(k)
            .into_iter()
            .any(|b| needs_exit(body, b)),
    })
}

/// What the chunk of a kernel with retry backoff is, said where its outer loop uses it.
const CHUNK_NOTE: &str =
    "retry backoff: irgl_chunk consecutive items a thread (1 in launches without backoff)";

impl Emitter<'_> {
    /// The kernel constructs.
    pub(crate) fn device_stmt(&mut self, s: StmtId) {
        let body = self.body();
        match &body.stmts[s].kind {
            StmtKind::ForAll(f) => match &f.schedule {
                Schedule::Grid { uniform } if self.asynchrony.is_some() => {
                    self.claimed(f, *uniform)
                }
                Schedule::Grid { uniform: false } => self.strided(f, true),
                Schedule::Serial { .. } => self.strided(f, false),
                Schedule::Grid { uniform: true } => self.uniform(f),
                Schedule::Block(b) => self.scheduled(f, b),
            },
            StmtKind::Push(p) => {
                let wl = push_target(p.target, self.asynchrony);
                let item = self.x.cond(p.item);
                let block_trip = self.block_trips.last() == Some(&true);
                match p.aggregation {
                    Aggregation::None if wl == "irgl_queue" && self.m().launch.async_local => {
                        // A continuation: the first push this thread makes in the trip is its
                        // next item; the others go through the queue.
                        self.w.line(format!(
                            "if (!irgl_carry) {{ irgl_carry = true; irgl_next = {item}; }} else {{ irgl_queue.push({item}); }}"
                        ));
                    }
                    Aggregation::None => self.w.line(format!("{wl}.push({item});")),
                    Aggregation::Block if block_trip => {
                        let n = s.index();
                        self.w.line(format!(
                            "irgl_valid{n} = true;  // reserved with the block's at the end of the trip"
                        ));
                        self.w.line(format!("irgl_item{n} = {item};"));
                    }
                    Aggregation::Warp | Aggregation::Block => self.w.line(format!(
                        "{wl}.write({wl}.reserve_warp_one(), 0u, {item});  // one atomic per warp"
                    )),
                    Aggregation::BlockLoop if self.grid_help => self.w.line(format!(
                        "{wl}.write({wl}.reserve_warp_one(), 0u, {item});  // one atomic per warp (an item the grid took)"
                    )),
                    Aggregation::Thread | Aggregation::BlockLoop => {
                        let (slots, index) = self
                            .loop_slots
                            .get(&s)
                            .unwrap_or_else(|| {
                                panic!("{s}: a thread or block-loop push outside its loop")
                            })
                            .clone();
                        self.w.line(format!(
                            "{wl}.write({slots}, {index}, {item});  // reserved before the loop"
                        ));
                    }
                }
            }
            StmtKind::Accumulate(a) => {
                let g = &self.m().globals[a.global.index()];
                let ty = c_type(g.ty);
                let value = format!("static_cast<{ty}>({})", self.x.cond(a.value));
                let line = match a.aggregation {
                    Aggregation::None => format!("irgl::atomic_add(&{}, {value});", cpp(&g.name)),
                    Aggregation::Warp => format!(
                        "irgl::warp_add(&{}, {value});  // one atomic per warp",
                        cpp(&g.name)
                    ),
                    Aggregation::Thread | Aggregation::Block => format!(
                        "irgl_sum{} += {value};  // added at the end of the kernel",
                        s.index()
                    ),
                    Aggregation::BlockLoop => panic!("{s}: a block-loop addition"),
                };
                self.w.line(line);
            }
            StmtKind::Reduce(e) => {
                let line = format!("irgl_reduce.contribute(irgl_rkind, {});", self.x.cond(*e));
                self.w.line(line);
            }
            StmtKind::Unlock { locks, index } => {
                let line = format!(
                    "irgl::unlock({}.{}, {});",
                    self.x.graph(),
                    cpp(&self.m().prop(*locks).name),
                    self.x.lock_index(*locks, *index)
                );
                self.w.line(line);
            }
            StmtKind::ReleaseMarks { marks, ids, count } => {
                let line = format!(
                    "irgl::exclusive_release({}.{}, {}, {});",
                    self.x.graph(),
                    cpp(&self.m().prop(*marks).name),
                    self.x.local(*ids),
                    match count {
                        Some(c) => self.x.local(*c),
                        None => crate::expr::array_len(body, *ids).to_string(),
                    }
                );
                self.w.line(line);
            }
            StmtKind::GridSync => self.w.line("irgl::grid_sync();"),
            StmtKind::Phase(p) => self.phase(p),
            StmtKind::Inspect(i) => self.inspect(i),
            k => panic!("{k:?} is not a kernel construct"),
        }
    }

    /// A grid-stride loop (`top`) or a serial loop.
    fn strided(&mut self, f: &ForAll, top: bool) {
        let n = f.id.index();
        let v = self.x.local(f.var);
        let g = self.x.graph();
        let from = |base: &str| match (top, base) {
            (true, "0") => "blockIdx.x * blockDim.x + threadIdx.x".to_string(),
            (true, b) => format!("{b} + blockIdx.x * blockDim.x + threadIdx.x"),
            (false, b) => b.to_string(),
        };
        let advance = |x: &str| {
            if top {
                format!("{x} += blockDim.x * gridDim.x")
            } else {
                format!("++{x}")
            }
        };
        self.continues.push(ContinueAs::Continue);
        self.block_trips.push(false);
        match &f.space {
            Space::Worklist if top && self.chunked => {
                self.w
                    .line(format!("const uint32_t irgl_size{n} = irgl_in.size();"));
                self.w.line(format!(
                    "const uint32_t irgl_chunks{n} = irgl::chunks_of(irgl_size{n}, irgl_chunk);  // {CHUNK_NOTE}"
                ));
                self.w.open(format!(
                    "for (uint32_t irgl_c{n} = {}; irgl_c{n} < irgl_chunks{n}; {}) {{",
                    from("0"),
                    advance(&format!("irgl_c{n}"))
                ));
                self.w.line(format!(
                    "const uint32_t irgl_first{n} = irgl_c{n} * irgl_chunk;"
                ));
                self.w.line(format!(
                    "const uint32_t irgl_end{n} = irgl_first{n} + irgl::min_of(irgl_chunk, irgl_size{n} - irgl_first{n});"
                ));
                let head = format!("for (uint32_t {v} = irgl_first{n}; {v} < irgl_end{n}; ++{v}) ");
                self.braced(&head, &f.body);
                self.w.close("}");
            }
            Space::Worklist => {
                self.w
                    .line(format!("const uint32_t irgl_size{n} = irgl_in.size();"));
                let head = format!(
                    "for (uint32_t {v} = {}; {v} < irgl_size{n}; {}) ",
                    from("0"),
                    advance(&v)
                );
                self.braced(&head, &f.body);
            }
            Space::Nodes => {
                let head = format!(
                    "for (uint32_t {v} = {}; {v} < {g}.csr.nnodes; {}) ",
                    from("0"),
                    advance(&v)
                );
                self.braced(&head, &f.body);
            }
            Space::SplitNodes => {
                let head = format!(
                    "for (uint32_t {v} = {}; {v} < {g}.split.count; {}) ",
                    from("0"),
                    advance(&v)
                );
                self.braced(&head, &f.body);
            }
            Space::Triangles => {
                let head = format!(
                    "for (uint32_t {v} = {}, irgl_count{n} = {g}.mesh.ntriangles(); {v} < irgl_count{n}; {}) ",
                    from("0"),
                    advance(&v)
                );
                self.braced(&head, &f.body);
            }
            Space::Edges { node, dir } => {
                let node = self.x.cond(*node);
                let csr = edges_of(*dir);
                self.w.open("{");
                self.w
                    .line(format!("const uint32_t irgl_node{n} = {node};"));
                self.w.line(format!(
                    "const irgl::edge_t irgl_end{n} = {g}.{csr}.end(irgl_node{n});"
                ));
                let sites = irgl_ir::visit::loop_pushes(self.body(), &f.body, Aggregation::Thread);
                let first = if sites.is_empty() {
                    format!("{g}.{csr}.begin(irgl_node{n})")
                } else {
                    self.w.line(format!(
                        "const irgl::edge_t irgl_first{n} = {g}.{csr}.begin(irgl_node{n});"
                    ));
                    self.loop_reservations(
                        &sites,
                        &format!("irgl_end{n} - irgl_first{n}"),
                        &format!("{v} - irgl_first{n}"),
                    );
                    format!("irgl_first{n}")
                };
                let head = format!(
                    "for (irgl::edge_t {v} = {}; {v} < irgl_end{n}; {}) ",
                    from(&first),
                    advance(&v)
                );
                self.braced(&head, &f.body);
                for s in sites {
                    self.loop_slots.remove(&s);
                }
                self.w.close("}");
            }
            Space::Range { lo, hi } => {
                let ty = c_type(self.body().locals[f.var].ty);
                let (lo, hi) = (self.x.cond(*lo), self.x.cond(*hi));
                self.w.open("{");
                self.w.line(format!("const {ty} irgl_lo{n} = {lo};"));
                self.w.line(format!("const {ty} irgl_hi{n} = {hi};"));
                self.w.line(format!(
                    "const uint64_t irgl_count{n} = irgl_hi{n} > irgl_lo{n} ? static_cast<uint64_t>(irgl_hi{n} - irgl_lo{n}) : 0;"
                ));
                let k = format!("irgl_k{n}");
                let sites = irgl_ir::visit::loop_pushes(self.body(), &f.body, Aggregation::Thread);
                // A counted loop's count is below 2^32 (a range of 32-bit values).
                self.loop_reservations(
                    &sites,
                    &format!("static_cast<uint32_t>(irgl_count{n})"),
                    &format!("static_cast<uint32_t>({k})"),
                );
                self.w.open(format!(
                    "for (uint64_t {k} = {}; {k} < irgl_count{n}; {}) {{",
                    from("0"),
                    advance(&k)
                ));
                // A body may count its iterations without reading the variable.
                if irgl_ir::visit::locals_used(self.body(), &f.body).contains(&f.var) {
                    self.w.line(format!(
                        "const {ty} {v} = static_cast<{ty}>(irgl_lo{n} + {k});"
                    ));
                }
                self.block(&f.body);
                self.w.close("}");
                for s in sites {
                    self.loop_slots.remove(&s);
                }
                self.w.close("}");
            }
            Space::Inspected => panic!("{}: an inspected space on a strided loop", f.id),
        }
        self.block_trips.pop();
        self.continues.pop();
    }

    /// The outer loop of an asynchronous kernel: the block claims items (the input worklist's,
    /// then those its pushes feed) from the task queue until none is left; `irgl_activeN`
    /// says whether this thread has one in this trip, as in a uniform loop.
    fn claimed(&mut self, f: &ForAll, uniform: bool) {
        assert!(
            f.space == Space::Worklist,
            "{}: an asynchronous loop over no worklist",
            f.id
        );
        let n = f.id.index();
        let v = self.x.local(f.var);
        let ty = c_type(self.body().locals[f.var].ty);
        self.w.open(format!(
            "{{  // {}: asynchronous: the block claims items, the input worklist's, then those its own pushes feed, until none is left",
            f.id
        ));
        self.w
            .line(format!("const uint32_t irgl_ins{n} = irgl_in.size();"));
        self.w.line(format!(
            "bool irgl_had{n} = false;  // this thread processed an item in the last trip"
        ));
        self.w
            .line("bool irgl_carry = false;  // it kept one of its pushes as its next item");
        self.w.line("uint32_t irgl_next = 0u;");
        self.w
            .line(format!("unsigned long long irgl_first{n} = 0ull;"));
        self.w
            .line(format!("uint32_t irgl_rank{n} = 0u, irgl_claimed{n} = 0u;"));
        self.w.open(format!(
            "while (irgl_queue.claim_block<BLOCK>(irgl_ins{n}, irgl_had{n}, irgl_carry, &irgl_first{n}, &irgl_rank{n}, &irgl_claimed{n}) != 0u) {{"
        ));
        self.w
            .line(format!("uint32_t irgl_popped_{v} = irgl_next;"));
        self.w.line(format!(
            "const bool irgl_active{n} = irgl_carry || (irgl_rank{n} < irgl_claimed{n} && irgl_queue.take(irgl_in, irgl_ins{n}, irgl_first{n} + irgl_rank{n}, &irgl_popped_{v}));"
        ));
        self.w.line(format!("irgl_had{n} = irgl_active{n};"));
        self.w.line("irgl_carry = false;");
        self.w.line(format!(
            "[[maybe_unused]] const {ty} {v} = static_cast<{ty}>(irgl_first{n} + irgl_rank{n});"
        ));
        if uniform {
            self.active.push(format!("irgl_active{n}"));
            self.block(&f.body);
            self.active.pop();
        } else {
            self.continues.push(ContinueAs::Break);
            self.block_trips.push(false);
            self.w.open("do {  // this thread's item");
            self.w.line(format!("if (!irgl_active{n}) break;"));
            self.block(&f.body);
            self.w.close("} while (0);");
            self.block_trips.pop();
            self.continues.pop();
        }
        self.w.close("}");
        let asynchrony = self.asynchrony;
        let body = self.body();
        let continues = self.m().launch.async_local
            && irgl_ir::visit::block_any(body, &f.body, &|k| {
                matches!(k, StmtKind::Push(p) if p.aggregation == Aggregation::None
                    && push_target(p.target, asynchrony) == "irgl_queue")
            });
        if continues {
            // A yield (the switch's deadline) ends the claims with items carried: they go
            // to the queue, among what the launch leaves unclaimed.
            self.w.line("if (irgl_carry) irgl_queue.push(irgl_next);");
        }
        self.w.line("irgl_queue.leave_block();");
        self.w.close("}");
    }

    /// A uniform grid-stride loop: every thread of the grid makes the same number of trips;
    /// `irgl_activeN` says whether this thread has an item in this trip.
    fn uniform(&mut self, f: &ForAll) {
        let n = f.id.index();
        let v = self.x.local(f.var);
        let var_ty = self.body().locals[f.var].ty;
        let ty = c_type(var_ty);
        let g = self.x.graph();
        self.w.open(format!(
            "{{  // {}: every thread makes the same number of trips (the whole block runs each one)",
            f.id
        ));
        let first = match &f.space {
            Space::Worklist => {
                self.w
                    .line(format!("const uint64_t irgl_total{n} = irgl_in.size();"));
                None
            }
            Space::Nodes => {
                self.w
                    .line(format!("const uint64_t irgl_total{n} = {g}.csr.nnodes;"));
                None
            }
            Space::SplitNodes => {
                self.w
                    .line(format!("const uint64_t irgl_total{n} = {g}.split.count;"));
                None
            }
            Space::Triangles => {
                self.w.line(format!(
                    "const uint64_t irgl_total{n} = {g}.mesh.ntriangles();"
                ));
                None
            }
            Space::Edges { node, dir } => {
                let node = self.x.cond(*node);
                let csr = edges_of(*dir);
                self.w
                    .line(format!("const uint32_t irgl_node{n} = {node};"));
                self.w.line(format!(
                    "const irgl::edge_t irgl_first{n} = {g}.{csr}.begin(irgl_node{n});"
                ));
                self.w.line(format!(
                    "const uint64_t irgl_total{n} = {g}.{csr}.end(irgl_node{n}) - irgl_first{n};"
                ));
                Some(format!("irgl_first{n}"))
            }
            Space::Range { lo, hi } => {
                let (lo, hi) = (self.x.cond(*lo), self.x.cond(*hi));
                self.w.line(format!("const {ty} irgl_first{n} = {lo};"));
                self.w.line(format!("const {ty} irgl_hi{n} = {hi};"));
                self.w.line(format!(
                    "const uint64_t irgl_total{n} = irgl_hi{n} > irgl_first{n} ? static_cast<uint64_t>(irgl_hi{n} - irgl_first{n}) : 0;"
                ));
                Some(format!("irgl_first{n}"))
            }
            Space::Inspected => panic!("{}: an inspected space on an outer loop", f.id),
        };
        let chunked = self.chunked && f.space == Space::Worklist;
        let trips = if chunked {
            self.w.line(format!(
                "const uint64_t irgl_chunks{n} = irgl::chunks_of(irgl_total{n}, irgl_chunk);  // {CHUNK_NOTE}"
            ));
            format!("irgl_chunks{n}")
        } else {
            format!("irgl_total{n}")
        };
        if chunked {
            self.w.open(format!(
                "for (uint64_t irgl_base{n} = 0; irgl_base{n} < {trips}; irgl_base{n} += static_cast<uint64_t>(blockDim.x) * gridDim.x) {{"
            ));
        } else {
            // Fewer items than the grid has threads: an even share a block, spaced over its
            // warps, so that every multiprocessor and warp scheduler gets some.
            self.w.line(format!(
                "const uint32_t irgl_per{n} = irgl::items_per_block<BLOCK>(irgl_total{n}, gridDim.x);  // BLOCK once the items fill the grid"
            ));
            self.w
                .line(format!("const uint32_t irgl_gap{n} = BLOCK / irgl_per{n};"));
            self.w.open(format!(
                "for (uint64_t irgl_base{n} = 0; irgl_base{n} < {trips}; irgl_base{n} += static_cast<uint64_t>(irgl_per{n}) * gridDim.x) {{"
            ));
        }
        if chunked {
            // The chunk is the same in every thread: the trips stay uniform.
            self.w.open(format!(
                "for (uint32_t irgl_k{n} = 0; irgl_k{n} < irgl_chunk; ++irgl_k{n}) {{"
            ));
            self.w.line(format!(
                "const uint64_t irgl_i{n} = (irgl_base{n} + blockIdx.x * blockDim.x + threadIdx.x) * irgl_chunk + irgl_k{n};"
            ));
            self.w.line(format!(
                "const bool irgl_active{n} = irgl_i{n} < irgl_total{n};"
            ));
        } else {
            self.w.line(format!(
                "const uint32_t irgl_slot{n} = threadIdx.x / irgl_gap{n};"
            ));
            self.w.line(format!(
                "const uint64_t irgl_i{n} = irgl_base{n} + static_cast<uint64_t>(blockIdx.x) * irgl_per{n} + irgl_slot{n};"
            ));
            self.w.line(format!(
                "const bool irgl_active{n} = threadIdx.x % irgl_gap{n} == 0 && irgl_slot{n} < irgl_per{n} && irgl_i{n} < irgl_total{n};"
            ));
        }
        match first {
            Some(first) => self.w.line(format!(
                "const {ty} {v} = static_cast<{ty}>({first} + irgl_i{n});"
            )),
            None => self
                .w
                .line(format!("const {ty} {v} = static_cast<{ty}>(irgl_i{n});")),
        }
        self.active.push(format!("irgl_active{n}"));
        self.block(&f.body);
        self.active.pop();
        if chunked {
            self.w.close("}");
        }
        self.w.close("}");
        for (inner, b) in grid_loops(self.body(), &f.body) {
            self.grid_help(inner, b, &format!("irgl_total{n}"));
        }
        self.w.close("}");
    }

    /// The local that says whether this thread reached `loop_id`.
    fn reached_flag(&self, loop_id: LoopId) -> LocalId {
        let body = self.body();
        body.stmts
            .values()
            .find_map(|s| match &s.kind {
                StmtKind::ForAll(f) if f.id == loop_id => match &f.schedule {
                    Schedule::Block(b) => Some(b.state.reached),
                    _ => None,
                },
                _ => None,
            })
            .unwrap_or_else(|| panic!("{loop_id} is not block-scheduled"))
    }

    fn phase(&mut self, p: &Phase) {
        let (guard, what) = match p.guard {
            PhaseGuard::Active => (
                self.active
                    .last()
                    .cloned()
                    .expect("a Phase inside a uniform loop"),
                "this thread's item".to_string(),
            ),
            PhaseGuard::Reached(l) => (
                self.x.local(self.reached_flag(l)),
                format!("the rest of the item after {l}"),
            ),
        };
        let sites = irgl_ir::visit::trip_pushes(self.body(), &p.body);
        self.trip_flags(&sites);
        self.block_trips.push(true);
        if needs_exit(self.body(), &p.body) {
            self.w.open(format!("do {{  // {what}"));
            self.w.line(format!("if (!{guard}) break;"));
            self.continues.push(ContinueAs::Break);
            self.block(&p.body);
            self.continues.pop();
            self.w.close("} while (0);");
        } else {
            self.w.open(format!("if ({guard}) {{  // {what}"));
            self.block(&p.body);
            self.w.close("}");
        }
        self.block_trips.pop();
        self.trip_reservations(&sites);
    }

    /// The reservations of a counted loop's thread-aggregated pushes, before the loop: `count`
    /// slots each, the lanes converged here sharing one atomic; `index` is the iteration's
    /// slot in the loop.
    fn loop_reservations(&mut self, sites: &[StmtId], count: &str, index: &str) {
        for &s in sites {
            let n = s.index();
            let StmtKind::Push(p) = &self.body().stmts[s].kind else {
                panic!("{s} is not a push");
            };
            let wl = push_target(p.target, self.asynchrony);
            self.w.line(format!(
                "const irgl::wl_index_t irgl_slots{n} = {wl}.reserve_warp({count});  // every iteration pushes once"
            ));
            self.loop_slots
                .insert(s, (format!("irgl_slots{n}"), index.to_string()));
        }
    }

    /// The per-thread sums of a kernel's additions deferred to its end, before its body.
    pub(crate) fn deferred_sums(&mut self) {
        for s in irgl_ir::visit::deferred_adds(self.body()) {
            let StmtKind::Accumulate(a) = &self.body().stmts[s].kind else {
                unreachable!()
            };
            let g = &self.m().globals[a.global.index()];
            self.w.line(format!(
                "{} irgl_sum{} = 0;  // this thread's additions to `{}`",
                c_type(g.ty),
                s.index(),
                g.name
            ));
        }
    }

    /// The additions of the per-thread sums, at the end of the kernel's body, which every
    /// thread of the block reaches (a focal point): one atomic per thread (thread level) or
    /// per block (block level).
    pub(crate) fn deferred_adds(&mut self) {
        for s in irgl_ir::visit::deferred_adds(self.body()) {
            let StmtKind::Accumulate(a) = &self.body().stmts[s].kind else {
                unreachable!()
            };
            let g = cpp(&self.m().globals[a.global.index()].name).into_owned();
            let n = s.index();
            self.w.line(if a.aggregation == Aggregation::Block {
                format!("irgl::block_add<BLOCK>(&{g}, irgl_sum{n});  // one atomic per block")
            } else {
                format!("if (irgl_sum{n} != 0) irgl::atomic_add(&{g}, irgl_sum{n});  // one atomic per thread")
            });
        }
    }

    /// The valid flags and items of a trip's block-aggregated pushes, before the trip.
    pub(crate) fn trip_flags(&mut self, sites: &[StmtId]) {
        for s in sites {
            let n = s.index();
            self.w.line(format!(
                "bool irgl_valid{n} = false;  // pushed in this trip"
            ));
            self.w.line(format!("uint32_t irgl_item{n} = 0u;"));
        }
    }

    /// The reservations of a trip's block-aggregated pushes, after the trip, where every
    /// thread of the block passes (a focal point): one atomic per block and push site.
    pub(crate) fn trip_reservations(&mut self, sites: &[StmtId]) {
        for &s in sites {
            let n = s.index();
            let StmtKind::Push(p) = &self.body().stmts[s].kind else {
                panic!("{s} is not a push");
            };
            let wl = push_target(p.target, self.asynchrony);
            self.w
                .open("{  // the block's pushes of this trip: one atomic");
            self.w.line(format!(
                "const irgl::wl_index_t irgl_at = {wl}.reserve_block_one<BLOCK>(irgl_valid{n});"
            ));
            self.w.line(format!(
                "if (irgl_valid{n}) {wl}.write(irgl_at, 0u, irgl_item{n});"
            ));
            self.w.close("}");
        }
    }

    fn inspect(&mut self, i: &Inspect) {
        let n = i.loop_id.index();
        let g = self.x.graph();
        let reached = self.x.local(i.state.reached);
        let count = self.x.local(i.state.count);
        let begin = self.x.local(i.state.begin);
        self.w.open(format!(
            "{{  // {}: hand the iterations to the schedulers",
            i.loop_id
        ));
        match &i.space {
            Space::Edges { node, dir } => {
                let node = self.x.cond(*node);
                let csr = edges_of(*dir);
                self.w
                    .line(format!("const uint32_t irgl_node{n} = {node};"));
                self.w
                    .line(format!("{begin} = {g}.{csr}.begin(irgl_node{n});"));
                self.w
                    .line(format!("{count} = {g}.{csr}.end(irgl_node{n}) - {begin};"));
            }
            Space::Range { lo, hi } => {
                let ty = c_type(self.body().locals[i.state.begin].ty);
                let (lo, hi) = (self.x.cond(*lo), self.x.cond(*hi));
                self.w.line(format!("const {ty} irgl_lo{n} = {lo};"));
                self.w.line(format!("const {ty} irgl_hi{n} = {hi};"));
                self.w.line(format!("{begin} = irgl_lo{n};"));
                // The count from `begin`, which a body that does not read the loop's variable
                // leaves otherwise unread.
                self.w.line(format!(
                    "{count} = irgl_hi{n} > {begin} ? static_cast<uint32_t>(irgl_hi{n}) - static_cast<uint32_t>({begin}) : 0u;"
                ));
            }
            Space::Nodes => {
                self.w.line(format!("{begin} = 0u;"));
                self.w.line(format!("{count} = {g}.csr.nnodes;"));
            }
            Space::Triangles => {
                self.w.line(format!("{begin} = 0u;"));
                self.w.line(format!("{count} = {g}.mesh.ntriangles();"));
            }
            Space::Worklist | Space::SplitNodes | Space::Inspected => {
                panic!("{}: inspect of an outer loop's space", i.loop_id)
            }
        }
        self.w.line(format!("{reached} = true;"));
        self.w.close("}");
        self.w.line("break;");
    }
}

/// The member of the generated `G` that holds a node's out-edges (`csr`) or in-edges.
pub(crate) fn edges_of(dir: EdgeDir) -> &'static str {
    match dir {
        EdgeDir::Out => "csr",
        EdgeDir::In => "in_edges",
    }
}

/// The prefix of the tables of kernel `k`'s loops under `gd` (`irgl_grid_K_`).
pub(crate) fn grid_prefix(k: &Kernel) -> String {
    format!("irgl_grid_{}_", cpp(&k.name))
}

/// The table of the loop `id` under `gd`, in the kernel of tables `prefix`.
pub(crate) fn grid_table(prefix: &str, id: LoopId) -> String {
    format!("{prefix}{}", id.index())
}

/// The tables of kernel `k`'s loops under `gd`, which must be empty again after each launch:
/// a kernel launched from the host has each block count itself out (`irgl::grid_leave`, one
/// atomic on one word a block); a control kernel has the last arrival at the grid barrier
/// after the call reset them (`irgl::grid_reset`), the barrier it needs there anyway.
pub(crate) fn grid_tables(k: &Kernel) -> Vec<String> {
    let prefix = grid_prefix(k);
    grid_loops(&k.body, &k.body.block)
        .into_iter()
        .map(|(f, _)| grid_table(&prefix, f.id))
        .collect()
}

/// The block-scheduled loops in `block` (a kernel's body, or a uniform outer loop's) that
/// hand items to the grid ([`Policy::Grid`]), in order.
pub(crate) fn grid_loops<'b>(
    body: &'b Body,
    block: &Block,
) -> Vec<(&'b ForAll, &'b BlockSchedule)> {
    let mut out = Vec::new();
    irgl_ir::visit::walk_stmts(body, block, &mut |s| {
        if let StmtKind::ForAll(f) = &body.stmts[s].kind
            && let Schedule::Block(b) = &f.schedule
            && b.policies.contains(&Policy::Grid)
        {
            out.push((f, b));
        }
    });
    out
}

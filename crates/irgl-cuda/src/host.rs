//! Host code: a launcher per kernel, and `main`'s orchestration statements.
//!
//! A launch reads the worklist sizes it needs from the device; the loops of `Iterate` and
//! `Pipe` test the input worklist's size (a device-to-host copy) after each invocation.

use irgl_ir::*;

use crate::device::kernel_runtime_params;
use crate::expr::{c_type, wl_name};
use crate::names::cpp;
use crate::stmt::Emitter;
use crate::writer::Writer;

/// `launch_k`: one launch of the kernel over the current input worklist. Its messages name
/// the kernel `shown` (a serial version's, its kernel). With `partitioned` (several GPUs), the
/// launch covers this GPU's part and is followed by the exchanges of the properties the
/// kernel writes and by the delivery of its pushes of other GPUs' nodes.
pub(crate) fn launcher(
    k: &Kernel,
    shown: &str,
    launch: &LaunchConfig,
    partitioned: Option<&Partitioned>,
    props: &[Prop],
    globals: &[Global],
) -> String {
    let facts = k.facts();
    let name = cpp(&k.name);
    let mut sig = vec!["Host& h".to_string()];
    for l in k.scalar_params() {
        let local = &k.body.locals[l];
        sig.push(format!("{} {}", c_type(local.ty), cpp(&local.name)));
    }
    if facts.reduces {
        sig.push("irgl::Reduce irgl_rkind".to_string());
    }
    if facts.backoff {
        sig.push("bool irgl_backoff".to_string());
    }
    let mut args: Vec<String> = k
        .params
        .iter()
        .map(|p| match p {
            KernelParam::Graph(_) => "h.g".to_string(),
            KernelParam::Scalar(l) => cpp(&k.body.locals[*l].name).into_owned(),
        })
        .collect();
    for (_, runtime) in kernel_runtime_params(&facts) {
        args.push(
            match runtime {
                "irgl_in" => "h.wl.in().view()",
                "irgl_out" => "h.wl.out().view()",
                "irgl_retry" => "h.wl.retry().view()",
                "irgl_reduce" => "h.reduce.view()",
                "irgl_rkind" => "irgl_rkind",
                "irgl_queue" => "h.queue.view()",
                "irgl_chunk" => "irgl_chunk",
                other => panic!("unknown runtime parameter {other}"),
            }
            .to_string(),
        );
    }
    let args = args.join(", ");
    let work = if facts.backoff {
        "irgl::chunks_of(irgl_items, irgl_chunk)"
    } else if facts.pops {
        "h.wl.in().size()"
    } else if facts.over_nodes && partitioned.is_some() {
        "h.part.masters()"
    } else if facts.over_nodes {
        "h.hg.nnodes"
    } else if facts.over_split {
        "h.g.split.count"
    } else if facts.over_triangles {
        // The slots in use are on the device; at most every slot of the capacity.
        "h.dm.triangle_capacity()"
    } else {
        "static_cast<uint64_t>(h.grid_cap) * BLOCK"
    };
    let mut w = Writer::new(0);
    w.open(format!("static void launch_{name}({}) {{", sig.join(", ")));
    // Several GPUs: the globals the kernel updates, as every GPU has them before it (the
    // exchange after it combines the GPUs' updates).
    let combined = if partitioned.is_some() {
        globals_updated(k)
    } else {
        Vec::new()
    };
    for &(g, _) in &combined {
        let global = &globals[g.index()];
        let gname = cpp(&global.name);
        w.line(format!(
            "const {} irgl_before_{gname} = get_{gname}();",
            c_type(global.ty)
        ));
    }
    w.line(format!("h.times.begin(\"{}\");", k.name));
    if let Some(b) = k.backoff {
        w.line(
            "// Retry backoff: a launch with backoff hands each thread a run of consecutive items",
        );
        w.line(format!(
            "// (items that conflict lie close together in the worklist): {}.",
            match b.chunk {
                Chunk::Auto => "one run per thread of the resident grid".to_string(),
                Chunk::Items(n) => format!("{n} items a run, a thread per run"),
            }
        ));
        if b.serial_below > 0 {
            w.line(format!(
                "// Below {} items, one thread takes them all.",
                b.serial_below
            ));
        }
        w.line("const uint32_t irgl_items = h.wl.in().size();");
        w.line(format!(
            "const uint32_t irgl_chunk = irgl_backoff ? irgl::backoff_chunk(irgl_items, {}, {}u, static_cast<uint64_t>(h.grid_cap) * BLOCK) : 1u;",
            chunk_arg(b.chunk),
            b.serial_below
        ));
    }
    if facts.cooperative {
        w.line(format!(
            // All resident blocks (0), no dynamic shared memory, the default stream.
            "irgl::launch_cooperative(\"{shown}\", {name}, 0, BLOCK, 0, 0, {args});"
        ));
    } else if facts.asynchronous {
        // A fixed grid whose blocks claim the work as it appears (no residency needed).
        let blocks = match launch.async_grid {
            GridSize::Resident => "h.grid_cap".to_string(),
            GridSize::PerSm(k) => {
                format!("irgl::min_of({k}u * h.sm_count, h.grid_cap)")
            }
            GridSize::Blocks(n) => format!("irgl::min_of({n}u, h.grid_cap)"),
            GridSize::Auto(_) => unreachable!("OptConfig::validate refuses --async-grid auto"),
        };
        w.line(format!(
            "{name}<<<{blocks}, BLOCK>>>({args});  // asynchronous: grid {}",
            launch.async_grid
        ));
    } else if facts.has_forall && uniform_outer(k) {
        // A block per BLOCK items: the schedulers' blocks differ in work (measured on rmat22:
        // the traversal's pushes 1.4x faster than on the resident grid); fewer items spread
        // over the resident grid (not runs of items under backoff: those keep a thread each).
        if facts.backoff {
            w.line(format!("{name}<<<blocks_all({work}), BLOCK>>>({args});"));
        } else {
            w.line(format!(
                "{name}<<<blocks_spread(h, {work}), BLOCK>>>({args});"
            ));
        }
    } else if facts.has_forall && launch.grid == LaunchGrid::Items {
        w.line(format!(
            "{name}<<<blocks_all({work}), BLOCK>>>({args});  // --grid items"
        ));
    } else if facts.has_forall {
        w.line(format!("{name}<<<blocks_for(h, {work}), BLOCK>>>({args});"));
    } else {
        w.line(format!("{name}<<<1, 1>>>({args});"));
    }
    w.line("h.times.end();");
    w.line(format!("IRGL_CHECK_LAUNCH(\"{shown}\");"));
    if facts.uses_worklist {
        w.line(format!("h.wl.check_overflow(\"{shown}\");"));
    }
    if facts.asynchronous {
        w.line(format!("h.queue.check_overflow(\"{shown}\");"));
    }
    if facts.grows_mesh {
        w.line(format!("h.dm.check_overflow(\"{shown}\");"));
    }
    if facts.indexes_arrays || (launch.check_indices && facts.indexes_props) {
        w.line(format!("check_device_error(\"{shown}\");"));
    }
    for &(g, op) in &combined {
        let gname = cpp(&globals[g.index()].name);
        w.line(format!(
            "set_{gname}(h.part.combine(irgl_before_{gname}, get_{gname}(), {}));",
            merge_name(op)
        ));
    }
    if let Some(p) = partitioned {
        exchange_after(&mut w, k, &facts, shown, p, props);
    }
    w.close("}");
    w.finish().trim_end().to_string()
}

/// Several GPUs, after a launch: each property the kernel writes that crosses parts is
/// exchanged (its mirrors merged into their masters, the masters copied back), and the items
/// it pushed that other GPUs own go to them.
fn exchange_after(
    w: &mut Writer,
    k: &Kernel,
    facts: &KernelFacts,
    shown: &str,
    partitioned: &Partitioned,
    props: &[Prop],
) {
    let written = props_written(k);
    let exchanges = &partitioned.exchanges;
    for x in exchanges {
        if !written.contains(&x.prop) {
            continue;
        }
        w.line(format!(
            "h.part.exchange(h.{}, {});",
            cpp(&props[x.prop.index()].name),
            merge_of(exchanges, x.prop)
        ));
    }
    let delivery = match partitioned.pushes {
        PushDelivery::Once => "irgl::Delivery::Once",
        PushDelivery::Counted => "irgl::Delivery::Counted",
    };
    for (pushes, list) in [(facts.pushes, "out"), (facts.retries, "retry")] {
        if pushes {
            w.line(format!(
                "h.part.deliver(h.wl.{list}(), {delivery}, \"{shown}\");"
            ));
        }
    }
}

/// The runtime's `irgl::Merge` of a property of a partitioned program: how its mirrors are
/// merged into their masters (`None`: it does not cross parts).
pub(crate) fn merge_of(exchanges: &[PropExchange], prop: PropId) -> &'static str {
    match exchanges.iter().find(|x| x.prop == prop).map(|x| x.sync) {
        None => "irgl::Merge::None",
        Some(PropSync::Merge(op)) => merge_name(op),
        Some(PropSync::Uniform) => "irgl::Merge::Uniform",
        Some(PropSync::Broadcast | PropSync::Once) => "irgl::Merge::Copy",
    }
}

/// The `irgl::Merge` that combines the copies updated by atomic `op`.
fn merge_name(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Min => "irgl::Merge::Min",
        AtomicOp::Max => "irgl::Merge::Max",
        AtomicOp::Add => "irgl::Merge::Sum",
        AtomicOp::Or => "irgl::Merge::Or",
        AtomicOp::And => "irgl::Merge::And",
        op => panic!("{} is no merge", op.name()),
    }
}

/// The globals a kernel updates, each with its atomic (one per global: the partition analysis
/// accepts only merging atomics on globals; `--multi-gpu on` refuses a global updated by two
/// kinds, E0513).
fn globals_updated(k: &Kernel) -> Vec<(GlobalId, AtomicOp)> {
    let body = &k.body;
    let mut out: Vec<(GlobalId, AtomicOp)> = Vec::new();
    // Additions that aggregation turned into per-block sums.
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Accumulate(a) = &body.stmts[s].kind
            && !out.iter().any(|(x, _)| *x == a.global)
        {
            out.push((a.global, AtomicOp::Add));
        }
    });
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        if let ExprKind::Atomic {
            op,
            place: Place::Global(g),
            ..
        } = &body.exprs[e].kind
            && !out.iter().any(|(x, _)| x == g)
        {
            out.push((*g, *op));
        }
    });
    out
}

/// The properties a kernel stores to or updates atomically.
fn props_written(k: &Kernel) -> std::collections::BTreeSet<PropId> {
    let body = &k.body;
    let mut out = std::collections::BTreeSet::new();
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Assign {
            place: Place::Element { prop, .. },
            ..
        } = &body.stmts[s].kind
        {
            out.insert(*prop);
        }
    });
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        if let ExprKind::Atomic {
            place: Place::Element { prop, .. },
            ..
        } = &body.exprs[e].kind
        {
            out.insert(*prop);
        }
    });
    out
}

impl Emitter<'_> {
    /// The orchestration statements.
    pub(crate) fn host_stmt(&mut self, s: StmtId) {
        let body = self.body();
        match &body.stmts[s].kind {
            StmtKind::Launch(l) => {
                let k = &self.m().kernels[l.kernel];
                let mut args = String::new();
                for (param, &arg) in k.scalar_params().zip(&l.args) {
                    let local = &k.body.locals[param];
                    let ty = c_type(local.ty);
                    let value = format!("static_cast<{ty}>({})", self.x.cond(arg));
                    if local.ty == Ty::Node && self.m().partitioned.is_some() {
                        // Several GPUs: the node's id on this GPU (or none).
                        args.push_str(&format!(", h.part.local_id({value})"));
                    } else {
                        args.push_str(&format!(", {value}"));
                    }
                }
                if let Some(r) = l.reduce {
                    args.push_str(", ");
                    args.push_str(reduce_kind(r));
                }
                let mut note = "";
                if k.backoff.is_some() {
                    args.push_str(if l.backoff { ", true" } else { ", false" });
                    if l.backoff {
                        note = "  // with backoff";
                    }
                }
                // The versions chosen when the program loaded its graph, then the kernel.
                let versions: Vec<(&str, KernelId)> = [
                    k.serial_version.map(|v| ("h.serial_inner", v)),
                    k.no_grid_version.map(|v| ("h.grid_min == 0u", v)),
                ]
                .into_iter()
                .flatten()
                .collect();
                for (i, (when, v)) in versions.iter().enumerate() {
                    let version = &self.m().kernels[*v];
                    if i == 0 {
                        self.w.open(format!("if ({when}) {{"));
                    } else {
                        self.w.close(format!("}} else if ({when}) {{"));
                        self.w.level_up();
                    }
                    self.w
                        .line(format!("launch_{}(h{args});{note}", cpp(&version.name)));
                }
                if !versions.is_empty() {
                    self.w.close("} else {");
                    self.w.level_up();
                }
                self.w
                    .line(format!("launch_{}(h{args});{note}", cpp(&k.name)));
                if !versions.is_empty() {
                    self.w.close("}");
                }
            }
            StmtKind::WorklistClear => self.w.line("h.wl.clear();"),
            StmtKind::WorklistInit(Initial::List(items)) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|e| format!("static_cast<uint32_t>({})", self.x.cond(*e)))
                    .collect();
                self.w.open("{");
                self.w.line(format!(
                    "const std::vector<uint32_t> irgl_initial = {{{}}};",
                    items.join(", ")
                ));
                self.w.open("for (uint32_t item : irgl_initial) {");
                self.w
                    .line("irgl::check_node(item, h.hg.nnodes, \"Initial\");");
                self.w.close("}");
                if self.m().partitioned.is_some() {
                    // Several GPUs: each starts with the items it owns.
                    self.w
                        .line("h.wl.in().assign(h.part.owned_items(irgl_initial));");
                } else {
                    self.w.line("h.wl.in().assign(irgl_initial);");
                }
                self.w.close("}");
            }
            StmtKind::WorklistInit(Initial::AllNodes) => {
                // Written on the device; several GPUs: each its masters.
                let nodes = if self.m().partitioned.is_some() {
                    "h.part.masters()"
                } else {
                    "h.hg.nnodes"
                };
                self.w.line(format!("h.wl.in().assign_range({nodes});"));
            }
            StmtKind::WorklistSwap(WorklistRef::Out) => self.w.line("h.wl.swap();"),
            StmtKind::WorklistSwap(WorklistRef::Retry) => self.w.line("h.wl.swap_retry();"),
            StmtKind::WorklistSwap(w) => panic!("swap of the {} worklist", wl_name(*w)),
            StmtKind::ReduceReset(r) => {
                self.w.line(format!("h.reduce.reset({});", reduce_kind(*r)));
            }
            StmtKind::Region(r) => {
                let what = match r.kind {
                    RegionKind::Iterate(k) => format!("Iterate {}", self.m().kernels[k].name),
                    RegionKind::Pipe { once: true } => "Pipe Once".to_string(),
                    RegionKind::Pipe { once: false } => "Pipe".to_string(),
                };
                self.w.open(format!("{{  // {what}"));
                self.block(&r.body);
                self.w.close("}");
            }
            k => panic!("{k:?} is not an orchestration statement"),
        }
    }
}

/// The `chunk` argument of `irgl::backoff_chunk`.
pub(crate) fn chunk_arg(c: Chunk) -> String {
    match c {
        Chunk::Auto => "irgl::kChunkAuto".to_string(),
        Chunk::Items(n) => format!("{n}u"),
    }
}

fn reduce_kind(r: Reduction) -> &'static str {
    match r {
        Reduction::Any => "irgl::Reduce::Any",
        Reduction::All => "irgl::Reduce::All",
    }
}

/// Whether the kernel's outermost `ForAll` is uniform (its nested loops block-scheduled).
fn uniform_outer(k: &Kernel) -> bool {
    visit::block_any(&k.body, &k.body.block, &|s| {
        matches!(
            s,
            StmtKind::ForAll(ForAll {
                schedule: Schedule::Grid { uniform: true },
                ..
            })
        )
    })
}

//! `aggregate_pushes`: cooperative conversion (paper section 4.2) of worklist pushes and of
//! additions to integer globals, at the thread, warp and block levels, for every site
//! (`--aggregate`) or one (`--aggregate-at KERNEL.pushN=LEVEL`, `KERNEL.addN=LEVEL`).
//!
//! **Why.** Every `WL.push` (and `Retry`/`Respawn`) reserves its slot with one `atomicAdd` on
//! the worklist's tail, and every `atomicAdd(global, v)` is one atomic on the global, so a
//! kernel that pushes or counts often serializes on one address. Aggregation makes one atomic
//! serve many sites: the converged lanes of a warp, the iterations of a loop, the threads of a
//! block. It pays where many threads push or add at once (the traversal benchmark, tc's
//! per-edge count) and costs shuffles (warp) or barriers (block) where they are rare.
//!
//! **Pushes.** Warp: nothing assumed about the position (the lanes that aggregate are those
//! converged at the push, `__activemask()`). Thread: a push made exactly once per iteration of
//! a counted serial loop reserves all its slots before the loop. Block loop: the same push in
//! a block-scheduled loop; the block reserves every iteration of all its items at once, when
//! it publishes them (a focal point: the loop's first scheduler). Block: the reservation has
//! barriers, so every thread of the block must reach it together: it goes at the end of a
//! *trip*, a focal point of the kernel (`irgl_analysis::Uniformity`), and the push only
//! records its item in a valid flag (the paper's Listing 9). The trips are the iterations of
//! a block-scheduled loop's thread-block and fine-grained schedulers (one iteration per
//! thread per trip) and the phases of a uniform outer loop (one item per thread); the push
//! must run at most once per trip. A plain outer loop at the top of its kernel becomes uniform,
//! its body one phase (`schedule_nested_loops::make_uniform`), when a push asked for block
//! stands in that body outside any loop: the paper's outer `ForAll`, uniform by
//! construction. Asked for block, a push gets block loop where it can,
//! else block, else thread, else warp; asked for thread, block loop where the schedulers run
//! its loop (the paper's upgrade of a thread aggregate to the block); `irglc emit ir` says
//! why a site has another level than asked.
//!
//! **Additions.** `atomicAdd(g, v);` on an integer global, its old value unused, becomes an
//! `Accumulate`. Warp: the converged lanes sum their values, one atomic. Thread and block
//! defer the additions to the end of the kernel (each thread sums in a register; at the end,
//! one atomic per thread, or a block-wide sum and one atomic per block: the end of the kernel
//! is a focal point), so the kernel may not otherwise read or update the global; a kernel
//! without a `ForAll` runs on one thread and gets thread instead of block. An `atomicAdd` on
//! an integer global whose old value is used (a reservation: tc's `g.start[n] =
//! atomicAdd(cursor, g.outn[n])`) becomes a `FetchAdd` at warp level, whatever level is asked
//! (other than none): the converged lanes scan their values and share one atomic, and each
//! gets its old value at once; thread and block would hand it back only later.
//!
//! **What it does.** Sets the aggregation slot (and the reason for another level) of every
//! site. Before and after (`irglc emit ir`, traverse and tc with `--nested tb+fg --aggregate
//! block`):
//!
//! ```text
//! push dst(v1:e)                    ==>   push dst(v1:e) [block loop]
//! atomicAdd(@triangles, v8:found)   ==>   add @triangles v8:found [block]
//! atomicAdd(@cursor, outn[v0:n])    ==>   fetch_add(@cursor, outn[v0:n]) [warp] (warp, not block: ...)
//! ```

use std::collections::{BTreeSet, HashMap};

use irgl_analysis::{Cfg, ControlDeps, DomTree, NodeKind, Uniformity};
use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::{AggregateLevel, OptConfig};
use crate::schedule_nested_loops::make_uniform;

/// Gives every push and every addition to a global of every kernel the aggregation level that
/// `config` asks for (its `--aggregate-at` level, else the default), or the best level its
/// position allows. An `--aggregate-at` that names no site is E0509.
pub fn aggregate_pushes(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let mut used: BTreeSet<&str> = BTreeSet::new();
    let globals: Vec<Ty> = m.globals.iter().map(|g| g.ty).collect();
    // A version's sites (serial, or without gd) are its kernel's: they are named, and
    // aggregated, alike.
    let site_kernel: Vec<String> = m
        .kernels
        .iter()
        .map(|(_, k)| match k.version_of() {
            Some(of) => m.kernels[of].name.clone(),
            None => k.name.clone(),
        })
        .collect();
    for (id, kernel) in m.kernels.iter_mut() {
        let site_kernel = &site_kernel[id.index()];
        let has_forall = {
            let facts = kernel.facts();
            facts.has_forall || facts.cooperative
        };
        let body = &mut kernel.body;
        let pushes = push_sites(body);
        let adds = add_sites(&globals, body);
        if pushes.is_empty() && adds.is_empty() {
            continue;
        }
        let mut level_of = |site: String| match config.aggregate.overrides.get_key_value(&site) {
            Some((key, &level)) => {
                used.insert(key.as_str());
                level
            }
            None => config.aggregate.default,
        };
        let push_levels: Vec<AggregateLevel> = (0..pushes.len())
            .map(|i| level_of(format!("{site_kernel}.push{i}")))
            .collect();
        let add_levels: Vec<AggregateLevel> = (0..adds.len())
            .map(|i| level_of(format!("{site_kernel}.add{i}")))
            .collect();
        // A push asked for block whose one obstacle is a plain outer loop: that loop becomes
        // uniform (its body one phase), so that its trips are the block's.
        if push_levels.contains(&AggregateLevel::Block) {
            let parent = parents(body);
            let outers: BTreeSet<StmtId> = (pushes.iter().zip(&push_levels))
                .filter(|(_, l)| **l == AggregateLevel::Block)
                .filter_map(|(&s, _)| plain_outer_loop(body, &parent, s))
                .collect();
            for outer in outers {
                make_uniform(body, outer, config);
            }
        }
        let parent = parents(body);
        let trips = (push_levels.iter().chain(&add_levels))
            .any(|l| matches!(l, AggregateLevel::Block | AggregateLevel::Thread))
            .then(|| Trips::analyze(body));
        let decisions: Vec<(StmtId, Aggregation, Option<String>)> = pushes
            .iter()
            .zip(push_levels)
            .map(|(&s, level)| {
                let (aggregation, note) = push_level(body, &parent, trips.as_ref(), s, level);
                (s, aggregation, note)
            })
            .collect();
        for (s, aggregation, note) in decisions {
            if aggregation == Aggregation::BlockLoop {
                // The slots of each thread's item (`irgl::wl_index_t`).
                kernel.shared_bytes += 8 * config.block_size;
            }
            if let StmtKind::Push(p) = &mut body.stmts[s].kind {
                p.aggregation = aggregation;
                p.note = note;
            }
        }
        for (&(site, global, value), level) in adds.iter().zip(add_levels) {
            let s = match site {
                AddSite::Unused(s) => s,
                AddSite::Used(e) => {
                    if let Some((aggregation, note)) = fetch_level(level) {
                        body.exprs[e].kind = ExprKind::FetchAdd {
                            global,
                            value,
                            aggregation,
                            note,
                        };
                    }
                    continue;
                }
            };
            let name = &m.globals[global.index()].name;
            let deferrable = !visit::other_uses_of_global(body, global);
            let not_deferred = || {
                format!(
                    "the kernel also reads or updates `{name}`, so its additions cannot wait for the end of the kernel"
                )
            };
            let focal_end = || {
                let trips = trips.as_ref().expect("analyzed for block");
                if !has_forall {
                    Err("the kernel has no ForAll, so one thread runs it".to_string())
                } else if !trips.uniformity.is_focal(trips.cfg.exit) {
                    Err("the end of the kernel is not reached by the whole block together".into())
                } else {
                    Ok(())
                }
            };
            let (aggregation, note) = match level {
                AggregateLevel::None => continue,
                AggregateLevel::Warp => (Aggregation::Warp, None),
                AggregateLevel::Thread if deferrable => (Aggregation::Thread, None),
                AggregateLevel::Block if deferrable => match focal_end() {
                    Ok(()) => (Aggregation::Block, None),
                    Err(why) => (
                        Aggregation::Thread,
                        Some(format!("thread, not block: {why}")),
                    ),
                },
                AggregateLevel::Thread | AggregateLevel::Block => (
                    Aggregation::Warp,
                    Some(format!("warp, not {}: {}", level.name(), not_deferred())),
                ),
            };
            body.stmts[s].kind = StmtKind::Accumulate(Accumulate {
                global,
                value,
                aggregation,
                note,
            });
        }
    }
    let errors: Vec<Diagnostic> = config
        .aggregate
        .overrides
        .keys()
        .filter(|at| !used.contains(at.as_str()))
        .map(|at| {
            let sites = site_names(m);
            Diagnostic::error("E0509", format!("--aggregate-at {at}: no such site")).with_note(
                if sites.is_empty() {
                    "this program pushes nothing and adds to no global".to_string()
                } else {
                    format!(
                        "the sites are the pushes (pushes, Retry and Respawn) and the additions to integer globals (`atomicAdd`) of each kernel, in source order: {}",
                        sites.join(", ")
                    )
                },
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The names of the sites `--aggregate-at` can address: `KERNEL.pushN` for the pushes,
/// `Retry`s and `Respawn`s and `KERNEL.addN` for the additions to integer globals of each
/// kernel, in source order from 0.
pub fn site_names(m: &Module) -> Vec<String> {
    let globals: Vec<Ty> = m.globals.iter().map(|g| g.ty).collect();
    m.kernels
        .iter()
        .filter(|(_, k)| k.version_of().is_none())
        .flat_map(|(_, k)| {
            let pushes = push_sites(&k.body).len();
            let adds = add_sites(&globals, &k.body).len();
            (0..pushes)
                .map(|i| format!("{}.push{i}", k.name))
                .chain((0..adds).map(|i| format!("{}.add{i}", k.name)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The pushes, `Retry`s and `Respawn`s of a body, in source order.
fn push_sites(body: &Body) -> Vec<StmtId> {
    let mut out = Vec::new();
    visit::walk_stmts(body, &body.block, &mut |s| {
        if matches!(body.stmts[s].kind, StmtKind::Push(_)) {
            out.push(s);
        }
    });
    out
}

/// An `atomicAdd` on an integer global: a statement whose old value is unused (`atomicAdd(g,
/// v);`, or an `Accumulate` made of one), or an expression whose old value is used (or a
/// `FetchAdd` made of one).
#[derive(Clone, Copy)]
pub(crate) enum AddSite {
    Unused(StmtId),
    Used(ExprId),
}

/// The additions to integer globals of a body, in source order (statements in pre-order,
/// the expressions of each in evaluation order): the site, the global and the value.
pub(crate) fn add_sites(globals: &[Ty], body: &Body) -> Vec<(AddSite, GlobalId, ExprId)> {
    let integer =
        |g: &GlobalId| matches!(globals[g.index()], Ty::U32 | Ty::I32 | Ty::U64 | Ty::I64);
    let mut out = Vec::new();
    visit::walk_stmts(body, &body.block, &mut |s| {
        let kind = &body.stmts[s].kind;
        let mut top = None;
        match kind {
            StmtKind::Eval(e) => {
                if let ExprKind::Atomic {
                    op: AtomicOp::Add,
                    place: Place::Global(g),
                    args,
                } = &body.exprs[*e].kind
                    && integer(g)
                {
                    out.push((AddSite::Unused(s), *g, args[0]));
                    top = Some(*e);
                }
            }
            StmtKind::Accumulate(a) => out.push((AddSite::Unused(s), a.global, a.value)),
            _ => {}
        }
        for e in visit::stmt_exprs(kind) {
            visit::walk_expr(body, e, &mut |x| match &body.exprs[x].kind {
                ExprKind::Atomic {
                    op: AtomicOp::Add,
                    place: Place::Global(g),
                    args,
                } if integer(g) && Some(x) != top => out.push((AddSite::Used(x), *g, args[0])),
                ExprKind::FetchAdd { global, value, .. } => {
                    out.push((AddSite::Used(x), *global, *value))
                }
                _ => {}
            });
        }
    });
    out
}

/// The level of an addition whose old value is used: warp, the one level at which the old
/// value can be handed back where the addition is made.
fn fetch_level(level: AggregateLevel) -> Option<(Aggregation, Option<String>)> {
    match level {
        AggregateLevel::None => None,
        AggregateLevel::Warp => Some((Aggregation::Warp, None)),
        AggregateLevel::Thread | AggregateLevel::Block => Some((
            Aggregation::Warp,
            Some(format!(
                "warp, not {}: its old value is used where it is made, so it cannot wait for the end of the kernel or of a trip",
                level.name()
            )),
        )),
    }
}

/// The level push `s` gets when `level` is asked for, and why it is another one.
fn push_level(
    body: &Body,
    parent: &HashMap<StmtId, StmtId>,
    trips: Option<&Trips>,
    s: StmtId,
    level: AggregateLevel,
) -> (Aggregation, Option<String>) {
    let thread = || thread_loop(body, parent, s);
    let block_loop = || {
        let trips = trips.expect("analyzed for thread and block");
        trips.block_loop(body, parent, s)
    };
    match level {
        AggregateLevel::None => (Aggregation::None, None),
        AggregateLevel::Warp => (Aggregation::Warp, None),
        AggregateLevel::Thread => match thread() {
            Ok(()) => (Aggregation::Thread, None),
            Err(not_thread) => match block_loop() {
                Ok(()) => (
                    Aggregation::BlockLoop,
                    Some(format!(
                        "block loop, not thread: {not_thread}; the block's schedulers run it, and the block reserves for all its iterations at once"
                    )),
                ),
                Err(_) => (
                    Aggregation::Warp,
                    Some(format!("warp, not thread: {not_thread}")),
                ),
            },
        },
        AggregateLevel::Block => {
            if block_loop().is_ok() {
                return (Aggregation::BlockLoop, None);
            }
            let trips = trips.expect("analyzed for block");
            match trips.check(body, parent, s) {
                Ok(()) => (Aggregation::Block, None),
                Err(not_block) => match thread() {
                    Ok(()) => (
                        Aggregation::Thread,
                        Some(format!("thread, not block: {not_block}")),
                    ),
                    Err(not_thread) => (
                        Aggregation::Warp,
                        Some(format!(
                            "warp, not block: {not_block}; not thread: {not_thread}"
                        )),
                    ),
                },
            }
        }
    }
}

/// What decides whether a push can be aggregated per block: the statement tree (which trip
/// encloses the push) and the uniformity analysis (whether the trip's head is a focal point).
struct Trips {
    cfg: Cfg,
    uniformity: Uniformity,
}

impl Trips {
    fn analyze(body: &Body) -> Trips {
        let cfg = Cfg::build(body);
        let pdom = DomTree::post_dominators(&cfg);
        let cdg = ControlDeps::build(&cfg, &pdom);
        let uniformity = Uniformity::analyze(body, &cfg, &cdg);
        Trips { cfg, uniformity }
    }

    /// Whether push `s` runs at most once per trip of a block-wide trip whose head every
    /// thread of the block reaches together; the reason if not.
    fn check(
        &self,
        body: &Body,
        parent: &HashMap<StmtId, StmtId>,
        s: StmtId,
    ) -> Result<(), String> {
        let mut at = s;
        while let Some(&p) = parent.get(&at) {
            at = p;
            match &body.stmts[p].kind {
                StmtKind::Loop(_) => {
                    return Err("it is in a loop, so it may push more than once a trip".into());
                }
                StmtKind::ForAll(f) => {
                    return match &f.schedule {
                        Schedule::Block(b) => self.scheduled(p, b),
                        Schedule::Serial { .. } => Err(
                            "it is in a serial nested ForAll, so it may push more than once a trip"
                                .into(),
                        ),
                        // Not made uniform: it is not at the kernel's top level.
                        Schedule::Grid { uniform: false } => Err(
                            "the outer ForAll is not uniform: it is inside a condition or loop of the kernel, so the block's threads may not all make its trips"
                                .into(),
                        ),
                        Schedule::Grid { uniform: true } => {
                            unreachable!("a uniform loop's body holds its statements in phases")
                        }
                    };
                }
                StmtKind::Phase(_) => {
                    let head = self
                        .cfg
                        .stmt_node(p, 0)
                        .expect("a phase in no scheduler copy");
                    return if self.uniformity.is_focal(head) {
                        Ok(())
                    } else {
                        Err("its phase is not reached by the whole block together".into())
                    };
                }
                _ => {}
            }
        }
        Err("it is in no ForAll".into())
    }

    /// Whether push `s` runs exactly once per iteration of a block-scheduled loop (in its body
    /// or plain blocks in it, no `continue` of the loop), whose head every thread of the
    /// block reaches together: then the block reserves all its items' iterations at once.
    fn block_loop(
        &self,
        body: &Body,
        parent: &HashMap<StmtId, StmtId>,
        s: StmtId,
    ) -> Result<(), String> {
        let (p, f) = loop_of(body, parent, s)?;
        if !matches!(f.schedule, Schedule::Block(_)) {
            return Err("its loop is not block-scheduled".into());
        }
        no_continue(body, &f.body)?;
        let head = self
            .cfg
            .node(NodeKind::Scheduler(0), p, 0)
            .expect("a first scheduler per block-scheduled loop");
        if self.uniformity.is_focal(head) {
            Ok(())
        } else {
            Err("its loop is not reached by the whole block together".into())
        }
    }

    /// A push in the body of a block-scheduled loop: block-level in the thread-block and
    /// fine-grained schedulers' copies, if their trips are focal points.
    fn scheduled(&self, forall: StmtId, b: &BlockSchedule) -> Result<(), String> {
        let mut any = false;
        for (i, p) in b.policies.iter().enumerate() {
            if !matches!(p, Policy::Threadblock | Policy::Finegrained) {
                continue;
            }
            any = true;
            let exec = self
                .cfg
                .node(NodeKind::Executor(i as u8), forall, 0)
                .expect("an executor per stage");
            if !self.uniformity.is_focal(exec) {
                return Err(
                    "the scheduler's trips are not reached by the whole block together".into(),
                );
            }
        }
        if any {
            Ok(())
        } else {
            Err("its loop has no thread-block or fine-grained scheduler, whose trips the whole block runs".into())
        }
    }
}

/// The outer `ForAll` of push `s` when that loop is plain (not uniform), stands at its
/// kernel's top level, and holds `s` outside any loop of its body: making it uniform makes
/// the push block-level.
fn plain_outer_loop(body: &Body, parent: &HashMap<StmtId, StmtId>, s: StmtId) -> Option<StmtId> {
    let mut at = s;
    let outer = loop {
        let &p = parent.get(&at)?;
        match &body.stmts[p].kind {
            StmtKind::Loop(_) => return None,
            StmtKind::ForAll(f) if f.schedule == (Schedule::Grid { uniform: false }) => break p,
            StmtKind::ForAll(_) => return None,
            _ => at = p,
        }
    };
    visit::outer_foralls(body)
        .contains(&(outer, true))
        .then_some(outer)
}

/// The statement that directly holds each statement.
fn parents(body: &Body) -> HashMap<StmtId, StmtId> {
    let mut parent = HashMap::new();
    visit::walk_stmts(body, &body.block, &mut |s| {
        for b in visit::child_blocks(&body.stmts[s].kind) {
            for &c in b.iter() {
                parent.insert(c, s);
            }
        }
    });
    parent
}

/// Whether push `s` runs exactly once per iteration of a serial nested loop whose trip count
/// is known when the loop starts (a node's edges, a 32-bit range): then one reservation before
/// the loop covers all its pushes. The reason if not.
fn thread_loop(body: &Body, parent: &HashMap<StmtId, StmtId>, s: StmtId) -> Result<(), String> {
    let (_, f) = loop_of(body, parent, s)?;
    match (&f.schedule, &f.space) {
        (Schedule::Serial { .. }, Space::Edges { .. }) => no_continue(body, &f.body),
        (Schedule::Serial { .. }, Space::Range { .. }) => {
            if f.is_counted(body) {
                no_continue(body, &f.body)
            } else {
                Err("its loop is a 64-bit range".into())
            }
        }
        (Schedule::Serial { .. }, _) => {
            Err("its loop's trip count is not known when it starts".into())
        }
        (Schedule::Block(_), _) => {
            Err("its loop is block-scheduled, so no one thread runs all its iterations".into())
        }
        (Schedule::Grid { .. }, _) => {
            Err("it is in the outer ForAll, which has no trip count per thread".into())
        }
    }
}

/// The `ForAll` whose body holds statement `s` directly or through plain blocks (so that `s`
/// runs once per iteration unless a `continue` skips it), or why there is none.
fn loop_of<'b>(
    body: &'b Body,
    parent: &HashMap<StmtId, StmtId>,
    s: StmtId,
) -> Result<(StmtId, &'b ForAll), String> {
    let mut at = s;
    loop {
        let Some(&p) = parent.get(&at) else {
            return Err("it is in no ForAll".into());
        };
        match &body.stmts[p].kind {
            StmtKind::Block(_) => at = p,
            StmtKind::ForAll(f) => return Ok((p, f)),
            _ => {
                return Err(
                    "it runs under a condition or in an inner loop, not once per iteration".into(),
                );
            }
        }
    }
}

/// Whether no `continue` of the loop whose body is `block` can skip a statement of it.
fn no_continue(body: &Body, block: &Block) -> Result<(), String> {
    fn any(body: &Body, block: &Block) -> bool {
        block.iter().any(|&s| match &body.stmts[s].kind {
            StmtKind::Continue => true,
            StmtKind::Loop(_) | StmtKind::ForAll(_) => false,
            kind => visit::child_blocks(kind).into_iter().any(|b| any(body, b)),
        })
    }
    if any(body, block) {
        Err("a `continue` in its loop may skip it".into())
    } else {
        Ok(())
    }
}

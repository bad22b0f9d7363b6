//! `aggregate_pushes`: cooperative conversion of worklist pushes (paper section 4.2), at the
//! thread, warp and block levels, for every push (`--aggregate`) or one site
//! (`--aggregate-at KERNEL.pushN=LEVEL`).
//!
//! **Why.** Every `WL.push` (and `Retry`/`Respawn`) reserves its slot with one `atomicAdd` on
//! the worklist's tail, so a kernel that pushes many items serializes on one address. With
//! warp aggregation the lanes of a warp that push together elect a leader, which reserves
//! all their slots with one atomic; each lane then writes its item at its rank. With block
//! aggregation the whole block reserves once per trip (a block-wide prefix sum, one atomic).
//! It pays where many threads push at once (bfs and sssp frontiers on power-law graphs, the
//! traversal benchmark) and costs shuffles (warp) or barriers (block) where pushes are rare.
//!
//! **What it assumes.** Warp: nothing about the position of the push (the lanes that
//! aggregate are those converged at the push, `__activemask()`). Block: the reservation has
//! barriers, so every thread of the block must reach it together: it goes at the end of a
//! *trip*, a point that is a focal point of the kernel (`irgl_analysis::Uniformity`), and the
//! push itself only records its item in a valid flag (the paper's Listing 9). The trips are
//! the iterations of a block-scheduled loop's thread-block and fine-grained schedulers (one
//! iteration per thread per trip) and the phases of a uniform outer loop (one item per
//! thread); the push must run at most once per trip, so it may not be inside a loop or a
//! `ForAll` of the trip. Elsewhere (a kernel whose outer loop is not uniform because no nested
//! loop is block-scheduled, a push in a loop, the warp and serial schedulers' copies of a
//! body), the push is aggregated per warp, and `irglc emit ir` says why. Thread-level
//! aggregation (one reservation before a loop with a fixed trip count) is not implemented.
//!
//! **What it does.** Sets the aggregation slot (and the reason for a lower level) of every
//! push of every kernel. The back end emits the valid flags, the reservation at the end of
//! each trip, and `wl.write(wl.reserve_warp(1u), 0u, item)` for warp pushes. Before and after
//! (`irglc emit ir`, bfs with `--nested tb+fg --aggregate block`):
//!
//! ```text
//! push out d                 ==>       push out d [block]
//! ```

use std::collections::{BTreeSet, HashMap};

use irgl_analysis::{Cfg, ControlDeps, DomTree, NodeKind, Uniformity};
use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::{AggregateLevel, OptConfig};

/// Gives every push of every kernel the aggregation level that `config` asks for (its
/// `--aggregate-at` level, else the default), or the best level its position allows. An
/// `--aggregate-at` that names no push site is E0509.
pub fn aggregate_pushes(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let mut used: BTreeSet<&str> = BTreeSet::new();
    for (_, kernel) in m.kernels.iter_mut() {
        let body = &mut kernel.body;
        let mut pushes = Vec::new();
        visit::walk_stmts(body, &body.block, &mut |s| {
            if matches!(body.stmts[s].kind, StmtKind::Push(_)) {
                pushes.push(s);
            }
        });
        if pushes.is_empty() {
            continue;
        }
        let levels: Vec<AggregateLevel> = (0..pushes.len())
            .map(|i| {
                let at = format!("{}.push{i}", kernel.name);
                match config.aggregate.overrides.get_key_value(&at) {
                    Some((key, &level)) => {
                        used.insert(key.as_str());
                        level
                    }
                    None => config.aggregate.default,
                }
            })
            .collect();
        let parent = parents(body);
        let trips = levels
            .contains(&AggregateLevel::Block)
            .then(|| Trips::analyze(body));
        let decisions: Vec<(StmtId, Aggregation, Option<String>)> = pushes
            .iter()
            .zip(levels)
            .map(|(&s, level)| {
                let thread = || thread_loop(body, &parent, s);
                match level {
                    AggregateLevel::None => (s, Aggregation::None, None),
                    AggregateLevel::Warp => (s, Aggregation::Warp, None),
                    AggregateLevel::Thread => match thread() {
                        Ok(()) => (s, Aggregation::Thread, None),
                        Err(why) => (
                            s,
                            Aggregation::Warp,
                            Some(format!("warp, not thread: {why}")),
                        ),
                    },
                    AggregateLevel::Block => {
                        let trips = trips.as_ref().expect("analyzed for block");
                        match trips.check(body, &parent, s) {
                            Ok(()) => (s, Aggregation::Block, None),
                            Err(not_block) => match thread() {
                                Ok(()) => (
                                    s,
                                    Aggregation::Thread,
                                    Some(format!("thread, not block: {not_block}")),
                                ),
                                Err(not_thread) => (
                                    s,
                                    Aggregation::Warp,
                                    Some(format!(
                                        "warp, not block: {not_block}; not thread: {not_thread}"
                                    )),
                                ),
                            },
                        }
                    }
                }
            })
            .collect();
        for (s, aggregation, note) in decisions {
            if let StmtKind::Push(p) = &mut body.stmts[s].kind {
                p.aggregation = aggregation;
                p.note = note;
            }
        }
    }
    let errors: Vec<Diagnostic> = config
        .aggregate
        .overrides
        .keys()
        .filter(|at| !used.contains(at.as_str()))
        .map(|at| {
            let sites: Vec<String> = m
                .kernels
                .iter()
                .flat_map(|(_, k)| {
                    let mut n = 0;
                    visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
                        if matches!(k.body.stmts[s].kind, StmtKind::Push(_)) {
                            n += 1;
                        }
                    });
                    (0..n).map(move |i| format!("{}.push{i}", k.name))
                })
                .collect();
            Diagnostic::error("E0509", format!("--aggregate-at {at}: no such push site")).with_note(
                if sites.is_empty() {
                    "this program pushes nothing".to_string()
                } else {
                    format!(
                        "the push sites (pushes, Retry and Respawn of each kernel in source order) are {}",
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
                        Schedule::Grid { uniform: false } => Err(
                            "the outer ForAll is not uniform (block-schedule a nested loop with tb or fg)"
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
    let mut at = s;
    loop {
        let Some(&p) = parent.get(&at) else {
            return Err("it is in no ForAll".into());
        };
        match &body.stmts[p].kind {
            StmtKind::Block(_) => at = p,
            StmtKind::ForAll(f) => {
                return match (&f.schedule, &f.space) {
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
                    (Schedule::Block(_), _) => Err(
                        "its loop is block-scheduled, so no one thread runs all its iterations"
                            .into(),
                    ),
                    (Schedule::Grid { .. }, _) => {
                        Err("it is in the outer ForAll, which has no trip count per thread".into())
                    }
                };
            }
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

//! `aggregate_pushes`: cooperative conversion of worklist pushes (paper section 4.2), at the
//! warp and block levels.
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

use std::collections::HashMap;

use irgl_analysis::{Cfg, ControlDeps, DomTree, NodeKind, Uniformity};
use irgl_ir::*;

use crate::config::{AggregateLevel, OptConfig};

/// Gives every push of every kernel the aggregation level that `config` asks for, or the
/// best level its position allows.
pub fn aggregate_pushes(m: &mut Module, config: &OptConfig) {
    let level = config.aggregate.default;
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
        let decisions: Vec<(StmtId, Aggregation, Option<String>)> = match level {
            AggregateLevel::None => pushes
                .iter()
                .map(|&s| (s, Aggregation::None, None))
                .collect(),
            AggregateLevel::Warp => pushes
                .iter()
                .map(|&s| (s, Aggregation::Warp, None))
                .collect(),
            AggregateLevel::Block => {
                let trips = Trips::analyze(body);
                pushes
                    .iter()
                    .map(|&s| match trips.check(body, s) {
                        Ok(()) => (s, Aggregation::Block, None),
                        Err(why) => (
                            s,
                            Aggregation::Warp,
                            Some(format!("warp, not block: {why}")),
                        ),
                    })
                    .collect()
            }
        };
        for (s, aggregation, note) in decisions {
            if let StmtKind::Push(p) = &mut body.stmts[s].kind {
                p.aggregation = aggregation;
                p.note = note;
            }
        }
    }
}

/// What decides whether a push can be aggregated per block: the statement tree (which trip
/// encloses the push) and the uniformity analysis (whether the trip's head is a focal point).
struct Trips {
    parent: HashMap<StmtId, StmtId>,
    cfg: Cfg,
    uniformity: Uniformity,
}

impl Trips {
    fn analyze(body: &Body) -> Trips {
        let mut parent = HashMap::new();
        visit::walk_stmts(body, &body.block, &mut |s| {
            for b in visit::child_blocks(&body.stmts[s].kind) {
                for &c in b.iter() {
                    parent.insert(c, s);
                }
            }
        });
        let cfg = Cfg::build(body);
        let pdom = DomTree::post_dominators(&cfg);
        let cdg = ControlDeps::build(&cfg, &pdom);
        let uniformity = Uniformity::analyze(body, &cfg, &cdg);
        Trips {
            parent,
            cfg,
            uniformity,
        }
    }

    /// Whether push `s` runs at most once per trip of a block-wide trip whose head every
    /// thread of the block reaches together; the reason if not.
    fn check(&self, body: &Body, s: StmtId) -> Result<(), String> {
        let mut at = s;
        while let Some(&p) = self.parent.get(&at) {
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

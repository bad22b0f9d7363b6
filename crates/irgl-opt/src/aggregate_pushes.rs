//! `aggregate_pushes`: cooperative conversion of worklist pushes (paper section 4.2), the
//! warp level.
//!
//! **Why.** Every `WL.push` (and `Retry`/`Respawn`) reserves its slot with one `atomicAdd` on
//! the worklist's tail, so a kernel that pushes many items serializes on one address. With
//! warp aggregation the lanes of a warp that push together elect a leader, which reserves
//! all their slots with one atomic; each lane then writes its item at its rank. It pays where
//! many lanes push at once (bfs and sssp frontiers on power-law graphs, the traversal
//! benchmark) and costs a few shuffles where pushes are rare.
//!
//! **What it assumes.** Nothing about the position of the push: the lanes that aggregate are
//! those converged at the push (`__activemask()`), so a push in divergent code, in a nested
//! loop or inside `Atomic` is fine. Thread-level aggregation (one reservation before a loop
//! with a fixed trip count) and block-level aggregation (at a focal point, with the
//! valid-flag pattern of the paper's Listing 9; see `irgl_analysis::Uniformity`) are the next
//! levels; the option rejects them until they exist.
//!
//! **What it does.** Sets the aggregation slot of every push of every kernel to the
//! configured level. The back end emits `wl.write(wl.reserve_warp(1u), 0u, item)` for a warp
//! push. Before and after (`irglc emit ir`):
//!
//! ```text
//! push out d                 ==>       push out d [warp]
//! ```

use irgl_ir::*;

use crate::config::{AggregateLevel, OptConfig};

/// Gives every push of every kernel the aggregation level that `config` asks for.
pub fn aggregate_pushes(m: &mut Module, config: &OptConfig) {
    let level = match config.aggregate.default {
        AggregateLevel::None => Aggregation::None,
        AggregateLevel::Warp => Aggregation::Warp,
    };
    for (_, kernel) in m.kernels.iter_mut() {
        let body = &mut kernel.body;
        let mut pushes = Vec::new();
        visit::walk_stmts(body, &body.block, &mut |s| {
            if matches!(body.stmts[s].kind, StmtKind::Push(_)) {
                pushes.push(s);
            }
        });
        for s in pushes {
            if let StmtKind::Push(p) = &mut body.stmts[s].kind {
                p.aggregation = level;
            }
        }
    }
}

//! `run_asynchronously`: asynchronous worklist kernels (beyond the paper; the persistent
//! task-queue kernels of Atos, Chen et al. 2022).
//!
//! **Why.** A data-driven loop run in rounds pays a grid barrier or a relaunch per round, and
//! waits at each for its slowest item. On road networks a round holds a few hundred items and
//! lasts a few microseconds, most of it the barrier and the latency of the round's first loads;
//! sssp-nf's re-invocation loop over its `Respawn`s runs thousands of such rounds. An
//! asynchronous kernel has no rounds: its blocks claim items from one shared queue, the input
//! worklist's first, then those its own pushes feed, process them and claim again, until
//! every item that exists has been processed (`irgl::AsyncQueue` in the runtime).
//!
//! **What it assumes.** The kernel passes `irgl_analysis::AsyncCandidates`: it is monotone
//! (what it reads and updates moves one way, by `atomicMin`-like updates), needs no rounds
//! (no reduction, grid barrier or lock), and its launches are rounds that can merge (an
//! `Iterate` with nothing between rounds, or the re-invocation loop of its `Respawn`s). It
//! costs where the rounds are what keeps the work small: a label-correcting loop run without
//! rounds may process a node several times before its value settles.
//!
//! **What it does.** Marks each chosen kernel [`Asynchrony::Respawns`] or
//! [`Asynchrony::AllPushes`] and deletes the re-invocation loops after its launches: the launch
//! drains its own `Retry`/`Respawn` items, so the retry worklist is empty after it. An
//! `Iterate`'s loop stays as it was and ends after one round, since the launch leaves its
//! output worklist empty. Before and after (`irglc emit ir`, sssp-nf with `--async all`):
//!
//! ```text
//! kernel k1 sssp_nf(..) {               kernel k1 sssp_nf(..) async(respawns) {
//! ...                                   ...
//! main {                                main {
//!   ...                                   ...
//!   launch k1 sssp_nf(v1:limit)    ==>    launch k1 sssp_nf(v1:limit)
//!   loop while wl.retry.size != 0 {       wl.swap out
//!     wl.swap retry                       ...
//!     launch k1 sssp_nf(v1:limit)
//!   }
//!   wl.swap out
//! ```
//!
//! The back end claims the outer `ForAll`'s items from the queue, block by block, and sends the
//! pushes that feed the kernel to the queue; with `--async-local on`, a thread keeps the first
//! (unaggregated) one of a trip as its own next item instead.

use irgl_analysis::AsyncCandidates;
use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::OptConfig;

/// Makes the kernels that `config.asynchronous` names asynchronous. Errors: a name that is no
/// kernel, or a kernel that cannot run asynchronously (with the reason).
pub fn run_asynchronously(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let candidates = AsyncCandidates::build(m);
    let chosen = crate::chosen_kernels(m, &config.asynchronous, "--async", "E0511", |k, name| {
        match candidates.get(k) {
            None => Err(format!(
                "`{name}` cannot run asynchronously: it pops no worklist"
            )),
            Some(Err(why)) => Err(format!("`{name}` cannot run asynchronously: {why}")),
            Some(Ok(a)) => Ok(*a),
        }
    })?;
    for (k, a) in chosen {
        m.kernels[k].asynchronous = Some(a);
        let mut block = std::mem::take(&mut m.host.block);
        drop_retry_loops(&mut m.host, &mut block, k);
        m.host.block = block;
    }
    Ok(())
}

/// Removes, from `block` and the blocks in it, the re-invocation loops that follow the
/// launches of `k`.
fn drop_retry_loops(body: &mut Body, block: &mut Block, k: KernelId) {
    let mut i = 0;
    while i < block.len() {
        let s = block[i];
        let after_launch =
            i > 0 && matches!(&body.stmts[block[i - 1]].kind, StmtKind::Launch(l) if l.kernel == k);
        if after_launch && visit::is_retry_loop_of(body, s, k) {
            block.remove(i);
            continue;
        }
        let mut kind = std::mem::replace(&mut body.stmts[s].kind, StmtKind::Break);
        for b in visit::child_blocks_mut(&mut kind) {
            drop_retry_loops(body, b, k);
        }
        body.stmts[s].kind = kind;
        i += 1;
    }
}

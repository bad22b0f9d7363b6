//! `backoff_retries`: retry backoff (the IrGL paper, section 4.4): a kernel's retry rounds
//! hand each thread a run of consecutive items, and all of them to one thread once few are
//! left.
//!
//! **Why.** `Retry` fills the retry worklist with the items that lost a conflict (a failed
//! `Exclusive` or `Atomic`), and the worklist keeps their conflict locality: items pushed
//! together lie together in it, and they are close in the graph or mesh, since their cavities
//! or neighbourhoods overlapped. A round that strides over it (item i to thread i, modulo the
//! grid) gives neighbouring items to neighbouring threads, which run at the same time and
//! conflict again. A blocked distribution gives each thread a run of consecutive items, which
//! it processes one after the other, so they do not conflict with each other. Below
//! `serial_below` items the round is one thread, which cannot conflict at all.
//!
//! **When it pays.** The run is `auto` by default: one run per thread of the resident grid, as
//! long as the items per thread. A round with no more items than threads then stays one item a
//! thread (nothing is serialized that ran in parallel before), and a larger one hands out its
//! items in runs instead of strides, at the same parallelism. A fixed run of N items
//! (`--backoff-chunk N`) serializes more: a thread per run, so N times fewer threads, each
//! round as long as N items in a row. dmr on an H100 (docs/optimizations.md): `auto` over every
//! launch (`--backoff-rounds all`) removes 35% of the retries of the 5 M mesh and is 10% faster
//! (5% slower on the 1 M mesh, whose rounds are smaller than the grid); runs of 4 are slower on
//! every mesh, since a retry round's few items are then latency-bound. The rounds over the input
//! worklist are not the paper's, but their items were pushed together too.
//!
//! **What it assumes.** A kernel with `Retry` pops the input worklist (the checker's rule),
//! and lowering follows each of its launches by the re-invocation loop over the retry
//! worklist. An asynchronous kernel has no retry rounds (its retries feed its own launch), so
//! it is not a candidate; `Respawn` alone is not a conflict, so a kernel without `Retry` is not
//! one either.
//!
//! **What it does.** Sets [`Kernel::backoff`] on each chosen kernel and marks the launch of each
//! of its re-invocation loops, or with `--backoff-rounds all` each of its launches
//! ([`Launch::backoff`]). The back end gives the kernel a chunk parameter and distributes its
//! outermost worklist loop in runs of it; the launches without backoff pass 1 (strided, as
//! before). Before and after (`irglc emit ir programs/dmr.irgl --retry-backoff all`):
//!
//! ```text
//! kernel k1 refine(m) {                 kernel k1 refine(m) backoff(chunk auto, serial below 32) {
//! ...                                   ...
//!   launch k1 refine()                    launch k1 refine()
//!   loop while wl.retry.size != 0 { ==>   loop while wl.retry.size != 0 {
//!     wl.swap retry                         wl.swap retry
//!     launch k1 refine()                    launch k1 refine() with backoff
//!   }                                     }
//! ```

use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::{BackoffRounds, OptConfig};

/// Gives the kernels that `config.retry_backoff` names retry backoff. Errors: a name that is
/// no kernel, or a kernel that backoff does not apply to (with the reason).
pub fn backoff_retries(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let options = &config.retry_backoff;
    let chosen = crate::chosen_kernels(
        m,
        &options.kernels,
        "--retry-backoff",
        "E0512",
        |k, name| match not_applicable(&m.kernels[k]) {
            Some(why) => Err(format!("does not apply to `{name}`: {why}")),
            None => Ok(()),
        },
    )?;
    for (k, ()) in chosen {
        m.kernels[k].backoff = Some(Backoff {
            chunk: options.chunk,
            serial_below: options.serial_below,
        });
        let body = &m.host;
        let mut launches = Vec::new();
        visit::walk_stmts(body, &body.block, &mut |s| match &body.stmts[s].kind {
            StmtKind::Launch(l) if l.kernel == k && options.rounds == BackoffRounds::All => {
                launches.push(s)
            }
            _ if visit::is_retry_loop_of(body, s, k) => {
                launches.extend(visit::retry_loop_launch(body, s))
            }
            _ => {}
        });
        launches.sort();
        launches.dedup();
        for s in launches {
            if let StmtKind::Launch(l) = &mut m.host.stmts[s].kind {
                l.backoff = true;
            }
        }
    }
    Ok(())
}

/// The kernels that retry backoff applies to (those `--retry-backoff all` chooses).
pub fn candidates(m: &Module) -> Vec<KernelId> {
    m.kernels
        .iter()
        .filter(|(_, k)| not_applicable(k).is_none())
        .map(|(id, _)| id)
        .collect()
}

/// Why retry backoff does not apply to `k`, if it does not.
fn not_applicable(k: &Kernel) -> Option<String> {
    let body = &k.body;
    let (mut retries, mut respawns) = (false, false);
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Push(p) = &body.stmts[s].kind {
            retries |= p.kind == PushKind::Retry;
            respawns |= p.kind == PushKind::Respawn;
        }
    });
    if !retries {
        return Some(if respawns {
            "it has no `Retry`; its `Respawn`s are more work, not conflicts".to_string()
        } else {
            "it has no `Retry`, so no retry worklist to hand out".to_string()
        });
    }
    if k.asynchronous.is_some() {
        return Some(
            "it runs asynchronously (--async): its retries feed its own launch, without retry rounds"
                .to_string(),
        );
    }
    None
}

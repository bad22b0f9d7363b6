//! `switch_asynchrony`: an outlined worklist loop that may run asynchronously gets both ways,
//! rounds and one asynchronous launch, and switches between them as it runs
//! (`--async-switch on`; no level chooses it: measured, it costs more than it gains, below).
//!
//! **Why.** Neither way wins on every graph (docs/optimizations.md, *Rounds or asynchrony*):
//! asynchrony wins 1.2-1.8x where a round holds few items (road networks, paths), since no
//! round waits at a barrier for its slowest item; rounds win 1.6-3.3x where they are full
//! (social, web and RMAT graphs, a hub), and 3x for label-correcting SSSP on a grid, whose
//! many paths of nearly equal length make an asynchronous node settle only after many
//! corrections. No property of the graph read at load time separates the two (the grid's
//! rounds are as small as a road network's), so the program measures both as it runs.
//!
//! **What it costs** (one H200, docs/optimizations.md *Switching as the program runs* and *The
//! second form, measured*): the first form was 1.14x (sssp-wl) to 1.23x (sssp-nf) slower than
//! `-O2`'s rounds in geometric mean over 13 graphs. The second form (one barrier a round, the
//! switched control only where rounds are small, `-O2`'s control in rounds only elsewhere)
//! runs at `-O2`'s speed on the graphs of large rounds and wins the path (0.83-0.87x), but is
//! 1.08-1.24x slower on the roads and the grid, and 30x on the star (`gd`'s late owner): 1.16x
//! (sssp-nf) to 1.40x (bfs-wl) in geometric mean. Where asynchrony wins, the asynchronous
//! version alone wins more. It stays an option.
//!
//! **What it assumes.** The kernel passes `irgl_analysis::AsyncCandidates` (monotone, its
//! rounds mergeable: the fixpoint is the same in either way, and may be reached by any mix of
//! them), `--async` did not already make it asynchronous, its items are nodes (the switch
//! measures progress as the nodes popped for the first time), and outlining will put every
//! launch of it in a control kernel (the switch runs there, on the device's clock). One kernel
//! per program: the first that qualifies.
//!
//! **What it does.** Adds a copy of the kernel, `K_async`, marked asynchronous
//! ([`Kernel::async_version`], [`Kernel::async_of`]); the passes after this one treat it as
//! an asynchronous kernel (no repeats dropped, no `gd`, its retry loops kept for the rounds).
//! The launch stays a launch of `K`: in a control kernel the back end calls one way or the
//! other by the switch's choice (`irgl/switch.cuh`), counts each node's first pop in both,
//! and after an asynchronous launch that yielded (its epoch was up) moves the items it
//! left unclaimed into the list the next round pops: the output list for an `Iterate`'s
//! kernel, the retry list for a kernel whose `Respawn`s feed it. Before and after (`irglc
//! emit ir programs/sssp-wl.irgl --async-switch on`, abridged):
//!
//! ```text
//! kernel k1 sssp_wl(g) {                  kernel k1 sssp_wl(g) asynchronous version k2 (...) {
//!   forall wi in WL { ... push d }          forall wi in WL { ... push d }
//! }                                ==>    }
//!                                         kernel k2 sssp_wl_async(g) async(all-pushes) the asynchronous version of k1 {
//!                                           forall wi in WL { ... push d }
//!                                         }
//! ```

use irgl_analysis::AsyncCandidates;
use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::OptConfig;

/// Gives the first kernel that qualifies an asynchronous version, with `--async-switch on`.
/// Nothing to report here: the driver warns (W0505) where it found none, with the reason.
pub fn switch_asynchrony(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    m.launch.switch_epoch_us = config.switch_epoch_us;
    if let Ok((k, kind)) = candidate(m, config) {
        let mut copy = m.kernels[k].clone();
        copy.name = crate::version_name(m, &copy.name, "async");
        copy.asynchronous = Some(kind);
        copy.async_of = Some(k);
        let version = m.kernels.push(copy);
        m.kernels[k].async_version = Some(version);
    }
    Ok(())
}

/// The kernel that gets a switch under `config` (`m` before the passes after
/// `run_asynchronously`), with the way its asynchronous version runs; or why none does.
pub fn candidate(m: &Module, config: &OptConfig) -> Result<(KernelId, Asynchrony), String> {
    if !config.async_switch {
        return Err("--async-switch off".to_string());
    }
    if config.multi_gpu {
        return Err("the program runs over several GPUs, in rounds".to_string());
    }
    if m.graph.mesh {
        return Err("a mesh program".to_string());
    }
    let outlined = crate::outline_iterations::outlined_statements(m, config);
    let candidates = AsyncCandidates::build(m);
    let mut why = Vec::new();
    for (k, verdict) in &candidates.kernels {
        let kernel = &m.kernels[*k];
        let name = &kernel.name;
        let kind = match verdict {
            Err(e) => {
                why.push(format!("`{name}` cannot run asynchronously: {e}"));
                continue;
            }
            Ok(kind) => *kind,
        };
        if kernel.asynchronous.is_some() {
            why.push(format!("`{name}` runs asynchronously (--async)"));
            continue;
        }
        if !pops_nodes(kernel) {
            why.push(format!("`{name}`'s items are not nodes"));
            continue;
        }
        if !all_launches_outlined(m, *k, &outlined) {
            why.push(format!(
                "`{name}` is launched outside the loops that run as control kernels (the switch runs in one: --outline outer)"
            ));
            continue;
        }
        return Ok((*k, kind));
    }
    if why.is_empty() {
        Err("no kernel pops a worklist".to_string())
    } else {
        Err(why.join("; "))
    }
}

/// Whether the kernel's outer `ForAll` starts by popping its item into a node.
fn pops_nodes(k: &Kernel) -> bool {
    let body = &k.body;
    body.block.iter().any(|&s| match &body.stmts[s].kind {
        StmtKind::ForAll(f) if f.space == Space::Worklist => f.body.iter().any(|&t| {
            matches!(&body.stmts[t].kind, StmtKind::Let { local, init: Some(e) }
                if matches!(body.exprs[*e].kind, ExprKind::Pop(_)) && body.locals[*local].ty == Ty::Node)
        }),
        _ => false,
    })
}

/// Whether every launch of `k` in `main` lies inside one of the statements `outlined`.
fn all_launches_outlined(m: &Module, k: KernelId, outlined: &[StmtId]) -> bool {
    let body = &m.host;
    let launches = |block: &Block| {
        let mut n = 0usize;
        visit::walk_stmts(body, block, &mut |s| {
            n += usize::from(matches!(&body.stmts[s].kind, StmtKind::Launch(l) if l.kernel == k));
        });
        n
    };
    let inside: usize = outlined.iter().map(|&s| launches(&vec![s])).sum();
    inside > 0 && inside == launches(&body.block)
}

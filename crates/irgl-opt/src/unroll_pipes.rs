//! `unroll_pipes`: Pipe unrolling (the IrGL paper, section 4.4): the loop of every repeating
//! `Pipe` runs K copies of its body per trip.
//!
//! **Why.** In a control kernel (iteration outlining) the body of a Pipe is straight-line
//! device code between grid barriers; K copies of it give the compiler K rounds to schedule
//! together (the paper: "this often triggers the NVIDIA CUDA compiler to perform inlining in
//! the control kernels"), and the loop's own test and branch run once per K rounds. On the host
//! the copies change nothing but the code's size.
//!
//! **What it assumes.** The Pipe's loop is the one the lowering makes (no init, test or step:
//! it leaves by the `break` after its emptiness test) and has no nested region, whose identity
//! a copy would duplicate; other loops are left as they are. Each copy is the whole round: its
//! emptiness test still leaves the loop after any round, so the rounds run are the same, in
//! the same order, and a `continue` in copy I starts the next round, as before.
//!
//! **What it does.** Replaces the loop's body B by `{ B } { B' } ...` (K blocks; the copies
//! declare fresh locals). Before and after (`irglc emit ir programs/sssp-nf.irgl --pipe-unroll 2`):
//!
//! ```text
//! region r1 pipe {                   region r1 pipe {
//!   loop {                             loop {
//!     launch k1 sssp_nf(v1:limit)        {
//!     ...                    ==>           launch k1 sssp_nf(v1:limit)
//!     if wl.in.size == 0 {                 ...
//!       break                            }
//!     }                                  {
//!   }                                      launch k1 sssp_nf(v1:limit)
//! }                                        ...
//! ```
//!
//! A program without a repeating `Pipe` is left as it is (`--pipe-unroll` applies where it
//! can, as `--async all` does).

use irgl_diagnostics::Diagnostic;
use irgl_ir::edit::LocalMap;
use irgl_ir::*;

use crate::config::OptConfig;

/// Unrolls the loop of every repeating `Pipe` of `main` `config.pipe_unroll` times.
pub fn unroll_pipes(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let k = config.pipe_unroll;
    if k <= 1 {
        return Ok(());
    }
    let body = &m.host;
    let mut loops = Vec::new();
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Region(r) = &body.stmts[s].kind
            && r.kind == (RegionKind::Pipe { once: false })
        {
            loops.extend(r.body.iter().copied().filter(|&t| unrollable(body, t)));
        }
    });
    for s in loops {
        unroll(&mut m.host, s, k);
    }
    Ok(())
}

/// A loop as the lowering makes it for a Pipe, without nested regions.
fn unrollable(body: &Body, s: StmtId) -> bool {
    let StmtKind::Loop(l) = &body.stmts[s].kind else {
        return false;
    };
    l.init.is_empty()
        && l.step.is_empty()
        && l.cond.is_none()
        && !visit::block_any(body, &l.body, &|k| {
            matches!(k, StmtKind::Region(_) | StmtKind::Control(_))
        })
}

fn unroll(body: &mut Body, s: StmtId, k: u32) {
    let (original, span) = match &body.stmts[s].kind {
        StmtKind::Loop(l) => (l.body.clone(), body.stmts[s].span),
        _ => unreachable!("{s} is an unrollable loop"),
    };
    let mut copies = vec![body.add_stmt(StmtKind::Block(original.clone()), span)];
    for _ in 1..k {
        let copy = body.clone_block(&original, &mut LocalMap::new());
        copies.push(body.add_stmt(StmtKind::Block(copy), span));
    }
    if let StmtKind::Loop(l) = &mut body.stmts[s].kind {
        l.body = copies;
    }
}

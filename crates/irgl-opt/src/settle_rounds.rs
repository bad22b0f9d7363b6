//! `settle_rounds`: rounds without grid barriers for `Iterate Unordered While Any` loops
//! (beyond the paper; ECL-MIS's threads go round their nodes this way, Burtscher et al.,
//! TOPC 2018).
//!
//! **Why.** An outlined `Iterate While Any` pays, every round, a grid barrier and a
//! reduction, and each round waits for its slowest block. Where a round decides a few items
//! and the rest wait for their neighbours (maximal independent set: a node waits for the
//! undecided neighbours before it in the priority order), most rounds are short and their
//! barriers dominate; and a node whose neighbour was decided early in a round must wait for
//! the next round to see it. Without barriers, each block goes round its own items until all
//! are settled, and sees other blocks' decisions as soon as they land.
//!
//! **What it assumes.** The program wrote `Iterate Unordered While Any k(...)`: its
//! promise that the answer does not depend on which round an item runs in, nor on how late
//! it sees other items' stores. The loop is outlined (its control kernel's grid is resident,
//! so every block runs and the first undecided item always has its block), and
//! `irgl_analysis::SettleCandidates` accepts it: an item that reports nothing never reports
//! again, so a block may stop as soon as a pass over its items reports nothing, and when
//! every block has stopped the rounds would have ended. It costs where items wait long for
//! others: a block re-reads its waiting items while it waits.
//!
//! **What it does.** Marks each accepted region [`Region::settled`] and its kernel
//! [`Kernel::settled`] (so that it reads the properties it updates past the L1 cache). The back
//! end emits the region's loop in the control kernel as passes of each block over its share,
//! counted in the run's `iterations` by the grid's first block, with no grid barrier until
//! the loop ends. Where the kernel has a serial version (run on graphs of low, even degree),
//! that version keeps its rounds: each thread repeating its own items measured slower there
//! (road-NY 0.077 against 0.067 ms, docs/optimizations.md, *Rounds without barriers*).
//! Before and after (`irglc emit ir`, mis at `-O2`):
//!
//! ```text
//! region r0 iterate decide unordered {      region r0 iterate decide unordered, settled (no barrier between rounds) {
//!   loop {                                    loop {
//!     reduce.reset any                 ==>      reduce.reset any
//!     launch k1 decide(..) reduce any           launch k1 decide(..) reduce any
//!     ...                                       ...
//! ```

use irgl_analysis::SettleCandidates;
use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::OptConfig;
use crate::outline_iterations::outlined_statements;

/// With `config.settle`, settles every `Iterate Unordered` region that outlining will put in
/// a control kernel and that the analysis accepts; the others keep their rounds (`irglc emit
/// outline` says why).
pub fn settle_rounds(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    for (region, kernel) in settled_regions(m, config) {
        let host = &mut m.host;
        let mut at = None;
        visit::walk_stmts(host, &host.block, &mut |s| {
            if matches!(&host.stmts[s].kind, StmtKind::Region(r) if r.id == region) {
                at = Some(s);
            }
        });
        if let Some(s) = at
            && let StmtKind::Region(r) = &mut host.stmts[s].kind
        {
            r.settled = true;
        }
        m.kernels[kernel].settled = true;
    }
    Ok(())
}

/// The regions (and their kernels) that `settle_rounds` settles under `config`.
pub fn settled_regions(m: &Module, config: &OptConfig) -> Vec<(RegionId, KernelId)> {
    if !config.settle {
        return Vec::new();
    }
    let outlined = outlined_statements(m, config);
    let candidates = SettleCandidates::build(m);
    candidates
        .regions
        .iter()
        .filter(|(_, _, verdict)| verdict.is_ok())
        .filter(|(region, _, _)| {
            outlined
                .iter()
                .any(|&s| contains_region(&m.host, s, *region))
        })
        .map(|(region, kernel, _)| (*region, *kernel))
        .collect()
}

/// Whether statement `s` of `main` is region `r` or holds it.
fn contains_region(host: &Body, s: StmtId, r: RegionId) -> bool {
    let mut found = false;
    visit::walk_stmts(host, &vec![s], &mut |t| {
        if matches!(&host.stmts[t].kind, StmtKind::Region(region) if region.id == r) {
            found = true;
        }
    });
    found
}
